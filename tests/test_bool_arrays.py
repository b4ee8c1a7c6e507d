"""Bool arrays: comparisons, logical ops and tests against NumPy, on both backends.

Every truth-value op of the op table (its rows whose result is "bool") is
compared with NumPy's function of the same name: on NumPy input, on
DeviceArrays, in every layout of conftest.LAYOUTS, with broadcasting, with
numbers on either side, and on bool inputs. Bool DeviceArrays themselves
(making, converting, copying back, taking part in arithmetic) and the
operators ``== != < <= > >= ~ & | ^`` are tested beside them.
"""

import operator

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array

import gpuvec
from gpuvec import _core

# The truth-value rows: (name, arity), from the compiled op table.
TRUTH_ROWS = [(row[1], row[2]) for row in _core.elementwise_ops() if row[5] == "bool"]
BINARY = [name for name, arity in TRUTH_ROWS if arity == 2]
UNARY = [name for name, arity in TRUTH_ROWS if arity == 1]
DTYPES = [np.float32, np.float64]


def test_the_table_has_the_truth_ops():
    expected = {
        "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
        "logical_and", "logical_or", "logical_xor", "logical_not",
        "isnan", "isinf", "isfinite",
    }  # fmt: skip
    assert {name for name, _ in TRUTH_ROWS} == expected


def special_values(rng, shape, dtype):
    """Random values with zeros, repeats, NaN and both infinities mixed in."""
    x = random_array(rng, shape, np.float64).round()  # small integers: many equal pairs
    flat = x.reshape(-1)
    if flat.size:
        picks = rng.integers(0, flat.size, size=max(1, flat.size // 5))
        flat[picks] = rng.choice([0.0, -0.0, np.nan, np.inf, -np.inf], size=picks.size)
    return x.astype(dtype)


def host(result):
    return result.to_host() if isinstance(result, gpuvec.DeviceArray) else np.asarray(result)


def check_bool(result, expected):
    """result is a bool array (or NumPy bool) equal to expected, of its shape."""
    got = host(result)
    assert got.dtype == np.bool_, got.dtype
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(got, expected)


# -- each op against NumPy -----------------------------------------------------------------------


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES[:-1])
def test_binary_against_numpy(backend, rng, name, dtype, n):
    a, b = special_values(rng, n, dtype), special_values(rng, n, dtype)
    b[: n // 3] = a[: n // 3]  # equal elements, NaN == NaN included
    expected = getattr(np, name)(a, b)
    check_bool(getattr(gpuvec, name)(a, b), expected)
    da, db = gpuvec.to_device(a), gpuvec.to_device(b)
    result = getattr(gpuvec, name)(da, db)
    assert isinstance(result, gpuvec.DeviceArray)
    check_bool(result, expected)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES[:-1])
def test_unary_against_numpy(backend, rng, name, dtype, n):
    x = special_values(rng, n, dtype)
    check_bool(getattr(gpuvec, name)(x), getattr(np, name)(x))
    check_bool(getattr(gpuvec, name)(gpuvec.to_device(x)), getattr(np, name)(x))


@pytest.mark.parametrize("name", BINARY + UNARY)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_layout(backend, rng, name, layout):
    x = make_layout(rng, layout, np.float64)
    x = np.array(x) if np.ndim(x) == 0 else x  # 0-d: an array, not a NumPy scalar
    x[...] = special_values(rng, x.shape, np.float64)
    args = (x, x[::-1] if x.ndim else x) if name in BINARY else (x,)
    expected = getattr(np, name)(*args)
    check_bool(getattr(gpuvec, name)(*args), expected)
    # Device data: a copy, and a reversed view of it.
    d = gpuvec.to_device(x)
    device_args = (d, d[::-1] if d.ndim else d) if name in BINARY else (d,)
    check_bool(getattr(gpuvec, name)(*device_args), expected)
    if x.ndim and name in UNARY:
        check_bool(getattr(gpuvec, name)(d[::-1]), getattr(np, name)(x[::-1]))


@pytest.mark.parametrize("name", BINARY)
def test_broadcasting_and_numbers(backend, rng, name):
    a = special_values(rng, (7, 1, 5), np.float32)
    b = special_values(rng, (4, 1), np.float32)
    check_bool(getattr(gpuvec, name)(a, b), getattr(np, name)(a, b))
    da, db = gpuvec.to_device(a), gpuvec.to_device(b)
    check_bool(getattr(gpuvec, name)(da, db), getattr(np, name)(a, b))
    for number in (0.0, 1.0, np.float32(-2.0), np.inf, np.nan, True):
        check_bool(getattr(gpuvec, name)(da, number), getattr(np, name)(a, number))
        check_bool(getattr(gpuvec, name)(number, da), getattr(np, name)(number, a))
    # Two numbers: a NumPy bool, as from NumPy's ufunc.
    result = getattr(gpuvec, name)(1.5, 2.5)
    assert isinstance(result, np.bool_)
    assert result == getattr(np, name)(1.5, 2.5)


def test_comparisons_are_exact_in_the_compute_dtype(backend):
    # 0.1 as a float32 differs from the double 0.1: in float32 they are
    # equal, and NumPy compares a float32 array with a Python float in float32.
    a = np.array([0.1, 0.2], np.float32)
    check_bool(gpuvec.equal(a, 0.1), np.equal(a, 0.1))
    check_bool(gpuvec.equal(a, np.float64(0.1)), np.equal(a, np.float64(0.1)))
    # Adjacent doubles are told apart.
    x = np.array([1.0, np.nextafter(1.0, 2.0)])
    check_bool(gpuvec.less(gpuvec.to_device(x), 1.0 + 2**-52), x < 1.0 + 2**-52)


def test_logical_ops_read_each_operand_as_a_truth_value(backend):
    # NumPy's logical ufuncs test each operand against zero in its own
    # precision: 1e-300 is true, though it is 0 as a float32 (found by the fuzz
    # test); the comparisons do round a Python float to float32.
    a = np.array([0.0, 0.5, np.nan], np.float32)
    for x in (a, gpuvec.to_device(a)):
        check_bool(gpuvec.logical_and(x, 1e-300), np.logical_and(a, 1e-300))
        check_bool(gpuvec.logical_xor(1e-300, x), np.logical_xor(1e-300, a))
        check_bool(gpuvec.logical_or(x, 0.0), np.logical_or(a, 0.0))
        check_bool(gpuvec.not_equal(x * 0.0, 1e-300), np.not_equal(a * 0.0, 1e-300))
    wide = np.array([1e-300, 0.0])
    check_bool(
        gpuvec.logical_and(wide.astype(np.float32), wide),
        np.logical_and(wide.astype(np.float32), wide),
    )


@pytest.mark.parametrize("name", BINARY + UNARY)
def test_bool_inputs(backend, rng, name):
    a = rng.random((3, 45)) < 0.5
    b = rng.random(45) < 0.5
    args = (a, b) if name in BINARY else (a,)
    expected = getattr(np, name)(*args)
    check_bool(getattr(gpuvec, name)(*args), expected)
    device_args = tuple(gpuvec.to_device(x) for x in args)
    check_bool(getattr(gpuvec, name)(*device_args), expected)
    if name in BINARY:  # a bool with a float, and a bool with numbers
        x = special_values(rng, 45, np.float32)
        check_bool(getattr(gpuvec, name)(a, x), getattr(np, name)(a, x))
        for number in (True, False, 2, 0.5):
            check_bool(getattr(gpuvec, name)(a, number), getattr(np, name)(a, number))


def test_empty_and_zero_d(backend):
    for shape in [(0,), (3, 0), ()]:
        x = np.ones(shape)
        check_bool(gpuvec.less(gpuvec.to_device(x), 2.0), np.less(x, 2.0))
    result = gpuvec.isnan(np.float64(np.nan))
    assert isinstance(result, np.bool_)
    assert result


# -- out= ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BINARY)
def test_bool_out_is_written_entirely(backend, rng, name):
    a, b = special_values(rng, 1025, np.float64), special_values(rng, 1025, np.float64)
    expected = getattr(np, name)(a, b)
    out = ~expected  # poison: every element wrong until written
    assert getattr(gpuvec, name)(a, b, out=out) is out
    check_bool(out, expected)
    dout = gpuvec.to_device(~expected)
    assert getattr(gpuvec, name)(gpuvec.to_device(a), gpuvec.to_device(b), out=dout) is dout
    check_bool(dout, expected)


def test_out_casting_follows_numpy(backend, rng):
    a, b = special_values(rng, 33, np.float32), special_values(rng, 33, np.float32)
    # A bool result goes into a float out (same_kind allows it) ...
    out = np.full(33, 7.0)
    gpuvec.less(a, b, out=out)
    np.testing.assert_array_equal(out, np.less(a, b).astype(np.float64))
    dout = gpuvec.full(33, 7.0, dtype=np.float32)
    gpuvec.less(gpuvec.to_device(a), gpuvec.to_device(b), out=dout)
    np.testing.assert_array_equal(dout.to_host(), np.less(a, b).astype(np.float32))
    # ... and into a NumPy out of any dtype that same_kind allows: int, float16.
    for dtype in (np.int64, np.uint8, np.float16):
        out = np.full(33, 7, dtype)
        assert gpuvec.less(a, b, out=out) is out
        np.testing.assert_array_equal(out, np.less(a, b).astype(dtype))
    out = np.full(33, 7, np.float16)
    gpuvec.add(a, b, out=out)
    np.testing.assert_array_equal(out, np.add(a, b, out=np.empty(33, np.float16)))
    # ... but a float result does not go into a bool out: NumPy's UFuncTypeError.
    with pytest.raises(TypeError, match="same_kind"):
        gpuvec.add(a, b, out=np.zeros(33, bool))
    with pytest.raises(TypeError, match="same_kind"):
        gpuvec.add(gpuvec.to_device(a), gpuvec.to_device(b), out=gpuvec.zeros(33, dtype=bool))


# -- bool DeviceArrays ---------------------------------------------------------------------------


def test_making_and_copying_bool_device_arrays(backend, rng):
    mask = rng.random((5, 7)) < 0.3
    d = gpuvec.to_device(mask)
    assert d.dtype == np.bool_
    assert d.itemsize == 1
    assert d.nbytes == 35
    np.testing.assert_array_equal(d.to_host(), mask)
    np.testing.assert_array_equal(np.asarray(d[::-1, 1::2]), mask[::-1, 1::2])
    np.testing.assert_array_equal(d.T.copy().to_host(), mask.T)
    assert gpuvec.zeros(4, dtype=bool).to_host().tolist() == [False] * 4
    assert gpuvec.full(3, True).dtype == np.bool_
    assert gpuvec.ones_like(d).dtype == np.bool_
    assert repr(gpuvec.to_device(np.array([True, False]))) == (
        "DeviceArray([ True, False], dtype=bool)"
    )


def test_astype_between_bool_and_floats(backend):
    x = np.array([0.0, -0.0, 0.5, -3.0, np.nan, np.inf])
    check_bool(gpuvec.to_device(x).astype(bool), x.astype(bool))  # NaN is true, as in NumPy
    b = gpuvec.to_device(np.array([True, False, True]))
    for dtype in DTYPES:
        converted = b.astype(dtype)
        assert converted.dtype == dtype
        np.testing.assert_array_equal(converted.to_host(), [1.0, 0.0, 1.0])


def test_bool_arrays_in_arithmetic_follow_the_dtype_policy(backend, rng):
    mask = rng.random(9) < 0.5
    b = gpuvec.to_device(mask)
    x32 = gpuvec.to_device(random_array(rng, 9, np.float32))
    assert (b + x32).dtype == np.float32  # bool with float32 is float32, as in NumPy
    np.testing.assert_array_equal((b + x32).to_host(), mask + x32.to_host())
    assert (b * 2.5).dtype == np.float64  # a Python float with bools: float64, as in NumPy
    np.testing.assert_array_equal((b * 2.5).to_host(), mask * 2.5)
    assert gpuvec.add(np.ones(2, np.float32), np.True_).dtype == np.float32
    other = rng.random(9) < 0.5
    for name in ("add", "multiply", "maximum", "minimum"):  # bools with bools: bool, as NumPy's
        result = getattr(gpuvec, name)(mask, other)
        assert result.dtype == np.bool_, name
        np.testing.assert_array_equal(result, getattr(np, name)(mask, other))
    with pytest.raises(TypeError, match="boolean subtract"):
        gpuvec.subtract(mask, other)


def test_bool_array_fill_and_setitem(backend):
    d = gpuvec.zeros((2, 3), dtype=bool)
    d[0] = True
    d[1, 1:] = np.array([True, False])
    np.testing.assert_array_equal(d.to_host(), [[True, True, True], [False, True, False]])
    d.fill(False)
    assert not d.to_host().any()


# -- operators -----------------------------------------------------------------------------------

COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("op", COMPARISONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", DTYPES)
def test_comparison_operators(backend, rng, op, dtype):
    x = special_values(rng, (13, 9), dtype)
    y = special_values(rng, (13, 9), dtype)
    y[:4] = x[:4]
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    check_bool(op(dx, dy), op(x, y))
    check_bool(op(dx, 0.0), op(x, 0.0))
    check_bool(op(0.0, dx), op(0.0, x))  # reflected: Python swaps the comparison
    check_bool(op(dx, dy[0]), op(x, y[0]))  # broadcast
    check_bool(op(dx, dx), op(x, x))  # NaN != NaN


def test_equality_with_none_and_strings_is_elementwise(backend):
    # As NumPy 2's: false everywhere (tests/test_newcomer_arrays.py has more).
    x = np.ones(3)
    d = gpuvec.to_device(x)
    check_bool(d == None, x == None)  # noqa: E711 - the operator is what is tested
    check_bool(d != "x", x != "x")
    assert {d: 1}[d] == 1  # still a dict key, looked up by identity


def test_logical_operators(backend, rng):
    p, q = rng.random(50) < 0.5, rng.random(50) < 0.5
    dp, dq = gpuvec.to_device(p), gpuvec.to_device(q)
    check_bool(~dp, ~p)
    check_bool(dp & dq, p & q)
    check_bool(dp | dq, p | q)
    check_bool(dp ^ dq, p ^ q)
    check_bool(dp & True, p & True)
    check_bool(False | dq, False | q)
    x = random_array(rng, 50, np.float64)
    dx = gpuvec.to_device(x)
    check_bool((dx > 0) & (dx < 5), (x > 0) & (x < 5))
    r = gpuvec.to_device(p)
    r &= dq
    check_bool(r, p & q)
    r |= dp
    check_bool(r, (p & q) | p)
    r ^= dq
    check_bool(r, ((p & q) | p) ^ q)


@pytest.mark.parametrize(
    "expression",
    [lambda d: ~d, lambda d: d & d, lambda d: d | True, lambda d: 1.0 ^ (d > 0)],
    ids=["invert", "and", "or", "xor"],
)
def test_bitwise_operators_refuse_floats(backend, expression):
    d = gpuvec.to_device(np.array([1.0, 0.0]))
    with pytest.raises(TypeError, match="not supported for the input types"):  # NumPy's
        expression(d)


# -- where with a device condition ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_where_takes_a_device_condition(backend, rng, dtype):
    x, y = random_array(rng, (6, 11), dtype), random_array(rng, 11, dtype)
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    result = gpuvec.where(dx > dy, dx, dy)
    assert isinstance(result, gpuvec.DeviceArray)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.to_host(), np.where(x > y, x, y))
    np.testing.assert_array_equal(gpuvec.where(dx > 0, dx, 0.0).to_host(), np.where(x > 0, x, 0.0))
    # bool values give a bool result, as in NumPy
    p = gpuvec.to_device(x > 0)
    check_bool(gpuvec.where(dx > 1, p, False), np.where(x > 1, x > 0, False))


def test_where_refuses_a_float_device_condition(backend):
    d = gpuvec.to_device(np.ones(3))
    with pytest.raises(TypeError, match="bool array"):
        gpuvec.where(d, d, d)
