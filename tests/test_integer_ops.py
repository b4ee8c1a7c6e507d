"""gpuvec's ops on integer dtypes, exactly as NumPy computes them.

Every elementwise row of the op table that computes in integers (its kinds
column has i or u), every integer dtype, and the reductions, against NumPy
on fresh random data on both backends. The data holds each dtype's edge
values (its minimum and maximum, -1, 0 and 1) in every pairing with each
other, so wraparound, floor division and shifts meet their corner cases.
Results must be NumPy's bit for bit, dtype included; only mean, var and std
(float64 of integer data) have a tolerance.
"""

import contextlib
import itertools
import warnings

import numpy as np
import pytest
from tolerances import assert_ulp_close

import gpuvec
from gpuvec._table import ELEMENTWISE_OPS

INTEGERS = [np.dtype(t) for t in "int8 int16 int32 int64 uint8 uint16 uint32 uint64".split()]

# The rows to test, from the op table: a new integer row is tested without an edit.
INTEGER_ROWS = [
    row
    for row in ELEMENTWISE_OPS.values()
    if row.public and row.numpy and ("i" in row.kinds or "u" in row.kinds)
]
BINARY = [row.name for row in INTEGER_ROWS if row.arity == 2]
UNARY = [row.name for row in INTEGER_ROWS if row.arity == 1]
SHIFTS = ["left_shift", "right_shift"]

# Partners of an integer array in the mixed tests.
PARTNERS = [*INTEGERS, np.dtype(bool), np.dtype(np.float32), np.dtype(np.float64)]

CONTAINERS = ["numpy", "device"]

# Differences from NumPy known and reported, each with its reproducer: their
# tests are strict xfails, which fail once the difference is mended.
KNOWN = {
    "bool extremes": (
        "min and max of bools are float64: gpuvec.max(gpuvec.to_device(np.array([True]))) "
        "is DeviceArray(1., dtype=float64), NumPy's np.True_"
    ),
    "overflow warning": (
        "MIN // -1 gives no RuntimeWarning: gpuvec.floor_divide(np.array([-128], np.int8), "
        "np.array([-1], np.int8)) is silent, NumPy warns 'overflow encountered in floor_divide'"
    ),
}


def known(what):
    """The strict xfail of a reported difference from NumPy."""
    return pytest.mark.xfail(strict=True, reason=KNOWN[what])


# The exceptions NumPy raises for these ops' arguments, which gpuvec must raise alike.
ERRORS = (TypeError, ValueError, OverflowError)


def edges(dtype):
    """The dtype's edge values: its minimum and maximum, -1 (if signed), 0 and 1."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([False, True])
    if dtype.kind == "f":
        return np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan], dtype)
    info = np.iinfo(dtype)
    values = [info.min, info.max, 0, 1] + ([-1] if info.min < 0 else [])
    return np.array(sorted(set(values)), dtype)


def random_values(rng, size, dtype):
    """Random values of ``dtype``: integers over their whole range."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(size) < 0.5
    if dtype.kind == "f":
        return (rng.standard_normal(size) * 1e3).astype(dtype)
    info = np.iinfo(dtype)
    wide = rng.integers(info.min, info.max, size=size, dtype=dtype, endpoint=True)
    small = rng.integers(max(info.min, -9), 10, size=size).astype(dtype)  # ties, small divisors
    return np.where(rng.random(size) < 0.5, wide, small)


def paired_data(rng, a_dtype, b_dtype, extra=200):
    """Two flat arrays holding every pairing of the two dtypes' edge values, then random ones."""
    ea, eb = edges(a_dtype), edges(b_dtype)
    a = np.concatenate([np.repeat(ea, eb.size), random_values(rng, extra, a_dtype)])
    b = np.concatenate([np.tile(eb, ea.size), random_values(rng, extra, b_dtype)])
    order = rng.permutation(a.size)  # the pairings land at random positions
    return a[order], b[order]


def counts_for(rng, name, a, b):
    """``b`` made fit for ``name`` with ``a``: shift counts in [-2, bits + 2] and
    exponents of integer powers not negative (NumPy refuses them; tested apart)."""
    if name in SHIFTS and b.dtype.kind in "iu":
        bits = 8 * max(a.dtype.itemsize, b.dtype.itemsize)
        low = -2 if b.dtype.kind == "i" else 0
        counts = rng.integers(low, bits + 3, size=b.shape)
        return counts.astype(b.dtype)
    if name == "power" and b.dtype.kind == "i" and a.dtype.kind in "biu":
        return np.where(b < 0, ~b, b)  # ~b of a negative b is -b - 1, never negative
    return b


def skipped(name, args):
    """Whether ``args`` are outside what this file tests ``name`` with
    elementwise: negative integer exponents raise (tested apart), shift
    counts far outside [-2, bits + 2]."""
    last = args[-1]
    if name == "power":
        return last < 0
    return name in SHIFTS and not 0 <= last < 70


def numpy_call(name, *args):
    """NumPy's result (or the exception it raises), warnings silenced."""
    ufunc = getattr(np, ELEMENTWISE_OPS[name].numpy)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ufunc(*args)
        except ERRORS as exc:
            return exc


def gpuvec_call(name, *args):
    """gpuvec's result as a NumPy array (the exception it raises returned), warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            result = getattr(gpuvec, name)(*args)
        except ERRORS as exc:
            return exc
    if isinstance(result, gpuvec.DeviceArray):
        return result.to_host()
    return result


def check_same(name, result, expected, what=""):
    """NumPy's values and dtype exactly (NaN for NaN); NumPy's exception class
    where it raises. Float results of an inexact row are held to its ulp budget."""
    if isinstance(expected, Exception):
        kind = next(k for k in ERRORS if isinstance(expected, k))  # UFuncTypeError is a TypeError
        assert isinstance(result, kind), (
            f"{name}{what}: NumPy raised {expected!r}, gpuvec gave {result!r}"
        )
        return
    if isinstance(result, Exception):
        raise AssertionError(f"{name}{what}: gpuvec raised {result!r}, NumPy gave {expected!r}")
    expected = np.asarray(expected)
    assert np.asarray(result).dtype == expected.dtype, f"{name}{what}"
    assert np.shape(result) == expected.shape, f"{name}{what}"
    row = ELEMENTWISE_OPS[name]
    if expected.dtype.kind == "f" and not row.exact:
        finite = np.isfinite(expected)
        budget = row.ulps(gpuvec.backend()) + 1  # NumPy's own result is itself rounded
        assert_ulp_close(np.asarray(result)[finite], expected[finite], expected.dtype, budget)
        np.testing.assert_array_equal(np.isnan(result), np.isnan(expected), err_msg=name + what)
        return
    np.testing.assert_array_equal(result, expected, err_msg=name + what, strict=False)


def on(container, x):
    """``x`` as the container holds it: a NumPy array or a DeviceArray."""
    if container == "device" and isinstance(x, np.ndarray):
        return gpuvec.to_device(x)
    return x


def layouts(a, b):
    """(what, a view, b view) pairs of the same data in several layouts."""
    n = a.size
    yield "contiguous", a, b
    yield "strided", np.repeat(a, 2)[::2], np.repeat(b, 3)[1::3]
    yield "negative-stride", a[::-1].copy()[::-1], b[::-1]
    rows = 1 + (n - 1) // 17
    padded_a = np.resize(a, rows * 17).reshape(rows, 17, order="F")
    padded_b = np.resize(b, rows * 17).reshape(rows, 17, order="F")
    assert padded_a.flags.f_contiguous
    assert not padded_a.flags.c_contiguous
    yield "fortran", padded_a, padded_b
    yield "transposed-with-c", padded_a.T, np.ascontiguousarray(padded_b.T)
    yield "broadcast", a[:40, None], b[None, :30]
    yield "empty", a[:0], b[:0]
    yield "empty-2d", a[:0].reshape(3, 0), b[:0].reshape(3, 0)


# --- elementwise, one integer dtype ---------------------------------------------------------


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_of_arrays_are_numpys(backend, rng, name, dtype, container):
    a, b = paired_data(rng, dtype, dtype)
    b = counts_for(rng, name, a, b)
    for what, x, y in layouts(a, b):
        expected = numpy_call(name, x, y)
        check_same(name, gpuvec_call(name, on(container, x), on(container, y)), expected, what)


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_of_0d_arrays_are_numpys(backend, rng, name, dtype, container):
    a, b = paired_data(rng, dtype, dtype, extra=5)
    b = counts_for(rng, name, a, b)
    for x, y in zip(a, b, strict=True):
        x, y = np.array(x), np.array(y)
        expected = numpy_call(name, x, y)
        what = f" of 0-d {x!r}, {y!r}"
        check_same(name, gpuvec_call(name, on(container, x), on(container, y)), expected, what)


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_with_scalars_are_numpys(backend, rng, name, dtype, container):
    """Python ints (weak: the array's dtype wins) and NumPy scalars (strong), either side."""
    a, _ = paired_data(rng, dtype, dtype, extra=100)
    scalars = [*edges(dtype), *random_values(rng, 3, dtype)]
    for value in scalars:
        for scalar in (int(value), value, np.int8(value % 100), np.uint16(abs(int(value)) % 9)):
            for left in (False, True):
                args = (scalar, a) if left else (a, scalar)
                if name in SHIFTS and not left:
                    args = (a, type(scalar)(int(scalar) % (8 * dtype.itemsize + 3)))
                if name == "power" and not left and int(args[1]) < 0:
                    continue  # a negative exponent raises: test_negative_integer_powers_raise
                if name == "power" and left and (a < 0).any():
                    args = (scalar, np.where(a < 0, ~a, a))  # exponents not negative
                expected = numpy_call(name, *args)
                given = [on(container, arg) for arg in args]  # the scalar as it is
                side = "left" if left else "right"
                what = f" with {scalar!r} ({type(scalar).__name__}) on the {side}"
                check_same(name, gpuvec_call(name, *given), expected, what)


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_are_numpys(backend, rng, name, dtype, container):
    a = np.concatenate([edges(dtype), random_values(rng, 300, dtype)])
    rng.shuffle(a)
    b = a[: a.size // 2]
    for what, x, _ in layouts(a, b):
        check_same(name, gpuvec_call(name, on(container, x)), numpy_call(name, x), what)
    for value in edges(dtype):
        zero_d = np.array(value)
        what = f" of 0-d {zero_d!r}"
        check_same(name, gpuvec_call(name, on(container, zero_d)), numpy_call(name, zero_d), what)


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_ops_of_numpy_integer_scalars_alone_are_numpys(backend, rng, name):
    """NumPy scalars are strong: np.int8 stays int8, as in NumPy (without any array)."""
    for dtype in INTEGERS:
        values = [dtype.type(v) for v in [*edges(dtype), *random_values(rng, 3, dtype)]]
        for args in itertools.product(values, repeat=ELEMENTWISE_OPS[name].arity):
            if skipped(name, args):
                continue
            check_same(name, gpuvec_call(name, *args), numpy_call(name, *args), f" of {args}")
    a = rng.random(20) < 0.5
    if ELEMENTWISE_OPS[name].arity == 2:  # a bool array with an integer scalar
        for scalar in (np.int8(3), np.uint16(7), np.int64(-2)):
            if name in SHIFTS and scalar < 0:
                continue
            check_same(
                name,
                gpuvec_call(name, a, scalar),
                numpy_call(name, a, scalar),
                f" of bools, {scalar!r}",
            )


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_python_ints_alone_compute_as_numpy(backend, rng, name):
    """Python ints alone are int64 (or wider where they need), as NumPy makes them."""
    for values in itertools.product([0, 1, -1, 7, -9, 2**62, 2**63 - 1, -(2**63)], repeat=2):
        args = values[: ELEMENTWISE_OPS[name].arity]
        if skipped(name, args):
            continue
        check_same(name, gpuvec_call(name, *args), numpy_call(name, *args), f" of {args}")


# --- elementwise, two dtypes ----------------------------------------------------------------


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("other", PARTNERS, ids=str)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_of_mixed_dtypes_are_numpys(backend, rng, name, dtype, other, container):
    """NumPy's result dtype and values for an integer array with an array of another dtype."""
    if other == dtype:
        pytest.skip("one dtype: test_binary_ops_of_arrays_are_numpys")
    a, b = paired_data(rng, dtype, other, extra=100)
    b = counts_for(rng, name, a, b)
    for x, y in ((a, b), (b, a)):
        if name == "power" and y.dtype.kind == "i" and x.dtype.kind in "biu":
            y = np.where(y < 0, ~y, y)
        expected = numpy_call(name, x, y)
        result = gpuvec_call(name, on(container, x), on(container, y))
        check_same(name, result, expected, f" of {x.dtype} and {y.dtype}")
        what = f" of {x.dtype} and {y.dtype}, strided"
        result = gpuvec_call(name, on(container, x[::-3]), on(container, y[::-3]))
        check_same(name, result, numpy_call(name, x[::-3], y[::-3]), what)


# --- NumPy's warnings and errors ------------------------------------------------------------


@contextlib.contextmanager
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def division_data(rng, dtype):
    a, b = paired_data(rng, dtype, dtype)
    b[rng.random(b.size) < 0.1] = 0
    if dtype.kind == "i":  # not MIN // -1: its overflow warning is tested apart
        b[(a == np.iinfo(dtype).min) & (b == -1)] = 1
    return a, b


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_integer_division_by_zero_warns_as_numpy(backend, rng, name, dtype, container):
    a, b = division_data(rng, dtype)
    with np.errstate(divide="ignore"):
        expected = getattr(np, name)(a, b)
    message = f"divide by zero encountered in {name}"
    x, y = on(container, a), on(container, b)
    with pytest.warns(RuntimeWarning, match=message):
        result = getattr(gpuvec, name)(x, y)
    check_same(name, np.asarray(result), expected)
    with np.errstate(divide="ignore"), no_warnings():
        check_same(name, np.asarray(getattr(gpuvec, name)(x, y)), expected)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match=message):
        getattr(gpuvec, name)(x, y)
    with pytest.warns(RuntimeWarning, match=message):
        getattr(gpuvec, name)(x, 0)
    # no zero divisor, no warning
    b[b == 0] = 1
    with no_warnings():
        check_same(
            name, np.asarray(getattr(gpuvec, name)(x, on(container, b))), numpy_call(name, a, b)
        )


@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
def test_operators_floor_divide_and_remainder_as_numpy(backend, rng, dtype):
    a, b = division_data(rng, dtype)
    d, e = gpuvec.to_device(a), gpuvec.to_device(b)
    with np.errstate(divide="ignore"):
        for result, expected in (
            (d // e, a // b), (d % e, a % b), (d // 3, a // 3), (7 % e, 7 % b),
            (divmod(d, e)[0], a // b),
        ):  # fmt: skip
            check_same("floor_divide", result.to_host(), expected)


@known("overflow warning")
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", [t for t in INTEGERS if t.kind == "i"], ids=str)
def test_minimum_floor_divided_by_minus_one_warns_of_overflow_as_numpy(backend, dtype, container):
    a = np.array([np.iinfo(dtype).min, 6], dtype)
    b = np.array([-1, -4], dtype)
    with np.errstate(over="ignore"):
        expected = np.floor_divide(a, b)
    with pytest.warns(RuntimeWarning, match="overflow encountered in floor_divide"):
        result = gpuvec.floor_divide(on(container, a), on(container, b))
    check_same("floor_divide", np.asarray(result), expected)
    with np.errstate(over="ignore"), no_warnings():
        gpuvec.floor_divide(on(container, a), on(container, b))


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", [t for t in INTEGERS if t.kind == "i"], ids=str)
def test_negative_integer_powers_raise(backend, rng, dtype, container):
    a = random_values(rng, 50, dtype)
    b = np.abs(random_values(rng, 50, dtype) % 5).astype(dtype)
    b[17] = -1
    message = "Integers to negative integer powers are not allowed"
    with pytest.raises(ValueError, match=message):
        np.power(a, b)  # NumPy's own
    with pytest.raises(ValueError, match=message):
        gpuvec.power(on(container, a), on(container, b))
    with pytest.raises(ValueError, match=message):
        gpuvec.power(on(container, a), -2)
    if container == "device":
        with pytest.raises(ValueError, match=message):
            gpuvec.to_device(a) ** -1


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
def test_python_ints_out_of_range_raise_overflow_error(backend, rng, dtype, container):
    info = np.iinfo(dtype)
    x = on(container, random_values(rng, 20, dtype))
    for value in (info.max + 1, info.min - 1, 2**64, -(2**63) - 1):
        message = f"Python integer {value} out of bounds for {dtype}"
        with pytest.raises(OverflowError):  # NumPy's own (its message differs beyond int64)
            np.add(np.asarray(x), value)
        for name in ("add", "multiply", "maximum", "bitwise_and", "floor_divide"):
            with pytest.raises(OverflowError, match=message):
                getattr(gpuvec, name)(x, value)
        # comparisons take any Python int, as NumPy's do
        a = np.asarray(x) if container == "numpy" else x.to_host()
        for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
            check_same(name, gpuvec_call(name, x, value), numpy_call(name, a, value))
            check_same(name, gpuvec_call(name, value, x), numpy_call(name, value, a))


@pytest.mark.parametrize("name", [r.name for r in INTEGER_ROWS if "b" not in r.kinds])
def test_ops_without_a_bool_loop_give_numpys_dtype_or_error(backend, rng, name):
    """NumPy refuses some ops of bools (``-`` of bools) and casts others up."""
    a = rng.random(40) < 0.5
    args = (a,) * ELEMENTWISE_OPS[name].arity
    expected = numpy_call(name, *args)
    check_same(name, gpuvec_call(name, *args), expected, " of bools")
    check_same(name, gpuvec_call(name, *map(gpuvec.to_device, args)), expected, " of bools")


@pytest.mark.parametrize("name", [r.name for r in INTEGER_ROWS if "f" not in r.kinds])
def test_integer_only_ops_refuse_floats(backend, rng, name):
    x = rng.standard_normal(10)
    args = (x,) * ELEMENTWISE_OPS[name].arity
    assert isinstance(numpy_call(name, *args), TypeError)
    with pytest.raises(TypeError):
        getattr(gpuvec, name)(*args)
    with pytest.raises(TypeError):
        getattr(gpuvec, name)(*map(gpuvec.to_device, args))


def test_bool_arithmetic_is_numpys(backend, rng):
    a, b = rng.random(50) < 0.5, rng.random(50) < 0.5
    d, e = gpuvec.to_device(a), gpuvec.to_device(b)
    for result, expected in (
        (d + e, a + b), (d * e, a * b), (d & e, a & b), (d | e, a | b), (d ^ e, a ^ b),
        (~d, ~a), (d + 1, a + 1), (d * True, a * True), (gpuvec.add(a, b), a + b),
    ):  # fmt: skip
        check_same(
            "add", np.asarray(result.to_host() if hasattr(result, "to_host") else result), expected
        )
    with pytest.raises(TypeError, match="boolean"):
        gpuvec.negative(d)
    with pytest.raises(TypeError, match="boolean"):
        d - e


# --- reductions -----------------------------------------------------------------------------

EXACT_REDUCTIONS = [
    "sum", "prod", "min", "max", "argmin", "argmax", "nansum", "nanmin", "nanmax", "any", "all",
    "count_nonzero",
]  # fmt: skip
FLOAT_REDUCTIONS = ["mean", "var", "std"]
SHAPES = [(7,), (13, 5), (4, 6, 3)]
AXES = [None, 0, 1, -1, (0, 1)]
EXTREMES = ["min", "max", "nanmin", "nanmax"]


def axes_for(container, axes=AXES):
    """The axes to test: of NumPy input, not None, whose Python number is
    test_whole_reductions_of_numpy_input_are_exact_numbers's."""
    return [axis for axis in axes if axis is not None or container == "device"]


def reduction_data(rng, shape, dtype):
    """Integers over the whole range, small ones among them (ties for argmin, runs
    of zeros for all) and each edge value."""
    x = random_values(rng, int(np.prod(shape)), dtype)
    x[: edges(dtype).size] = edges(dtype)
    return rng.permutation(x).reshape(shape)


def numpy_reduction(name, x, axis, keepdims, **options):
    try:
        if name == "count_nonzero":
            return np.count_nonzero(x, axis=axis, keepdims=keepdims)
        return getattr(np, name)(x, axis=axis, keepdims=keepdims, **options)
    except (ValueError, TypeError, np.exceptions.AxisError) as exc:
        return exc


def gpuvec_reduction(name, x, axis, keepdims, **options):
    try:
        result = getattr(gpuvec, name)(x, axis=axis, keepdims=keepdims, **options)
    except (ValueError, TypeError, np.exceptions.AxisError) as exc:
        return exc
    return result.to_host() if isinstance(result, gpuvec.DeviceArray) else result


def check_reduction(name, result, expected, what, scale=None):
    if isinstance(expected, Exception):
        assert isinstance(result, type(expected)), f"{name}{what}: NumPy raised {expected!r}"
        return
    if isinstance(result, Exception):
        raise AssertionError(f"{name}{what}: gpuvec raised {result!r}")
    expected = np.asarray(expected)
    if type(result) in (bool, int, float):  # axis=None of NumPy input: a Python number
        assert type(result) is type(expected.item()), f"{name}{what}: {result!r} for {expected!r}"
        if scale is None:
            assert result == expected.item(), f"{name}{what}: {result!r} for {expected!r}"
            return
        result = np.asarray(result, expected.dtype)
    assert np.asarray(result).dtype == expected.dtype, f"{name}{what}"
    assert np.shape(result) == expected.shape, f"{name}{what}"
    if scale is None:
        np.testing.assert_array_equal(result, expected, err_msg=name + what, strict=False)
    else:
        np.testing.assert_allclose(
            result, expected, rtol=1e-9, atol=1e-12 * scale, err_msg=name + what
        )


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
@pytest.mark.parametrize("name", EXACT_REDUCTIONS + FLOAT_REDUCTIONS)
def test_reductions_of_integers_are_numpys(backend, rng, name, dtype, container):
    for shape in SHAPES:
        base = reduction_data(rng, shape, dtype)
        scale = None
        if name in FLOAT_REDUCTIONS:
            big = float(np.abs(base.astype(np.float64)).max())
            scale = big * big if name == "var" else big
        for layout, x in (
            ("c", base),
            ("fortran", np.asfortranarray(base)),
            ("reversed", base[::-1]),
        ):
            given = on(container, x)
            for axis in axes_for(container):
                for keepdims in (False, True):
                    what = f" of {dtype}{shape} ({layout}), axis={axis}, keepdims={keepdims}"
                    expected = numpy_reduction(name, x, axis, keepdims)
                    result = gpuvec_reduction(name, given, axis, keepdims)
                    check_reduction(name, result, expected, what, scale)


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", [np.dtype(np.int64), np.dtype(np.uint64)], ids=str)
def test_int64_sums_and_products_wrap_around(backend, rng, dtype, container):
    info = np.iinfo(dtype)
    x = np.full(1001, info.max // 3, dtype)
    x[::7] = info.max
    expected = np.sum(x)
    assert expected < x.max()  # wrapped
    axis = None if container == "device" else 0
    check_reduction("sum", gpuvec_reduction("sum", on(container, x), axis, False), expected, "")
    result = gpuvec_reduction("nansum", on(container, x), axis, False)
    check_reduction("nansum", result, np.nansum(x), "")
    y = rng.integers(2, 1000, size=(17, 33)).astype(dtype)
    assert np.log2(y.astype(float)).sum() > 64  # the product wraps
    for axis in axes_for(container, [None, 0, 1]):
        result = gpuvec_reduction("prod", on(container, y), axis, False)
        check_reduction("prod", result, np.prod(y, axis=axis), f", axis={axis}")


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize(
    "to",
    INTEGERS,
    ids=str,
)
@pytest.mark.parametrize("source", [*INTEGERS, np.dtype(bool), np.dtype(np.float64)], ids=str)
def test_sum_and_prod_with_an_integer_dtype_wrap_in_it(backend, rng, source, to, container):
    """dtype= casts each element to it (wrapping, floats toward zero) and reduces in it."""
    if source.kind == "f":
        x = rng.uniform(-100, 100, size=(7, 131)).astype(source)
    else:
        x = reduction_data(rng, (7, 131), source)
    x[0] = 1  # a long row of ones: 131 wraps in int8
    given = on(container, x)
    for name in ("sum", "prod", "nansum"):
        for axis in axes_for(container, [None, 0, 1]):
            what = f" of {source} with dtype={to}, axis={axis}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                expected = getattr(np, name)(x, axis=axis, dtype=to)
            result = gpuvec_reduction(name, given, axis, False, dtype=to)
            check_reduction(name, result, expected, what)


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=known("bool extremes") if name in EXTREMES else [])
        for name in EXACT_REDUCTIONS + FLOAT_REDUCTIONS
    ],
)
def test_reductions_of_bools_are_numpys(backend, rng, name, container):
    x = rng.random((13, 7)) < 0.4
    for axis in axes_for(container):
        expected = numpy_reduction(name, x, axis, False)
        check_reduction(
            name,
            gpuvec_reduction(name, on(container, x), axis, False),
            expected,
            f" of bools, axis={axis}",
            scale=1.0 if name in FLOAT_REDUCTIONS else None,
        )


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
def test_reductions_of_empty_integer_arrays(backend, dtype, container):
    x = np.zeros((0, 4), dtype)
    for name in EXACT_REDUCTIONS:
        for axis in axes_for(container, [None, 0, 1]):
            expected = numpy_reduction(name, x, axis, False)
            result = gpuvec_reduction(name, on(container, x), axis, False)
            check_reduction(name, result, expected, f" of {dtype}(0, 4), axis={axis}")


def whole_marks(name, dtype):
    if dtype.kind == "b" and name in EXTREMES:
        return [known("bool extremes")]
    return []


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        pytest.param(name, dtype, marks=whole_marks(name, dtype), id=f"{name}-{dtype}")
        for name in EXACT_REDUCTIONS + FLOAT_REDUCTIONS
        for dtype in [*INTEGERS, np.dtype(bool)]
    ],
)
def test_whole_reductions_of_numpy_input_are_exact_numbers(backend, rng, name, dtype):
    """axis=None of NumPy input gives a number of NumPy's value: a Python int
    where NumPy's is an integer (exact beyond 2**53), never a float."""
    for shape in [(0,), *SHAPES]:
        x = reduction_data(rng, shape, dtype) if shape[0] else np.zeros(shape, dtype)
        what = f" of {dtype}{shape}"
        scale = None
        if name in FLOAT_REDUCTIONS:
            big = float(np.abs(x.astype(np.float64)).max(initial=1.0))
            scale = big * big if name == "var" else big
        with warnings.catch_warnings(record=True) as numpys:
            warnings.simplefilter("always", RuntimeWarning)
            expected = numpy_reduction(name, x, None, False)
        with warnings.catch_warnings(record=True) as gpuvecs:
            warnings.simplefilter("always", RuntimeWarning)
            result = gpuvec_reduction(name, x, None, False)
        check_reduction(name, result, expected, what, scale)
        # NumPy's RuntimeWarning for no elements ("Mean of empty slice"), gpuvec's too
        assert {str(w.message) for w in gpuvecs} >= {
            str(w.message) for w in numpys if "empty slice" in str(w.message)
        }, what


@pytest.mark.parametrize("dtype", [*INTEGERS, np.dtype(bool)], ids=str)
@pytest.mark.parametrize("name", ["sum", "prod", "nansum"])
def test_whole_sums_of_numpy_input_with_an_integer_dtype_are_exact(backend, rng, name, dtype):
    x = reduction_data(rng, (5, 7), dtype)
    for to in INTEGERS:
        result = gpuvec_reduction(name, x, None, False, dtype=to)
        check_reduction(name, result, getattr(np, name)(x, dtype=to), f" of {dtype}, dtype={to}")


# --- Hypothesis -----------------------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

property_test = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def integer_operands(draw):
    """An op of two inputs and two arrays of random integer (or bool) dtypes,
    broadcasting together, as views with random steps."""
    name = draw(st.sampled_from(BINARY))
    dtypes = draw(st.tuples(*[st.sampled_from([*INTEGERS, np.dtype(bool)])] * 2))
    shapes = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4)
    )
    arrays = []
    for dtype, shape in zip(dtypes, shapes.input_shapes, strict=True):
        steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in shape]
        base = draw(
            hnp.arrays(dtype, tuple(n * abs(s) for n, s in zip(shape, steps, strict=True)))
        )
        arrays.append(base[(*(slice(None, None, s) for s in steps), ...)])  # 0-d stays an array
    a, b = arrays
    if name == "power" and b.dtype.kind == "i":
        b = np.where(b < 0, ~b, b) if b.ndim else np.array(~b if b < 0 else b, b.dtype)
    if name in SHIFTS and b.dtype.kind in "iu":
        b = (b % 70).astype(b.dtype)
    return name, a, b


@property_test
@given(operands=integer_operands(), container=st.sampled_from(CONTAINERS))
def test_property_binary_ops_of_integer_dtypes_are_numpys(backend, operands, container):
    name, a, b = operands
    expected = numpy_call(name, a, b)
    result = gpuvec_call(name, on(container, a), on(container, b))
    check_same(name, result, expected, f" of {a!r} and {b!r}")


@property_test
@given(
    name=st.sampled_from(BINARY),
    dtype=st.sampled_from(INTEGERS),
    data=st.data(),
)
def test_property_python_int_scalars_are_weak(backend, name, dtype, data):
    a = data.draw(hnp.arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_side=5))))
    info = np.iinfo(dtype)
    value = data.draw(st.integers(info.min, info.max))
    if name == "power":
        value = abs(value) % 70
        a = np.where(a < 0, ~a, a)  # not negative; a 0-d array stays one
    if name in SHIFTS:
        value %= 70
    check_same(
        name, gpuvec_call(name, a, value), numpy_call(name, a, value), f" of {a!r}, {value}"
    )
    if name not in ("power",) or (np.asarray(a) >= 0).all():
        check_same(
            name, gpuvec_call(name, value, a), numpy_call(name, value, a), f" of {value}, {a!r}"
        )


@property_test
@given(
    name=st.sampled_from(["sum", "prod", "min", "max", "argmin", "argmax", "nansum", "mean"]),
    x=hnp.arrays(st.sampled_from(INTEGERS), hnp.array_shapes(min_dims=1, max_dims=3, max_side=6)),
    data=st.data(),
)
def test_property_reductions_of_integers_are_numpys(backend, name, x, data):
    axis = data.draw(st.sampled_from([None, *range(-x.ndim, x.ndim)]))
    container = data.draw(st.sampled_from(axes_for_containers(axis)))
    expected = numpy_reduction(name, x, axis, False)
    scale = None
    if name == "mean":
        scale = float(np.abs(x.astype(np.float64)).max(initial=1.0))
    result = gpuvec_reduction(name, on(container, x), axis, False)
    check_reduction(name, result, expected, f" of {x!r} ({container}), axis={axis}", scale)


def axes_for_containers(axis):
    return [c for c in CONTAINERS if axis in axes_for(c, [axis])]
