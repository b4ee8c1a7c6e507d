"""NumPy's ufuncs and functions on DeviceArrays: gpuvec runs them, on the device.

Each supported call is compared with NumPy on the same random data and must
return a DeviceArray (the index and count functions return host integers:
DeviceArrays hold no integers); each unsupported one must raise NumPy's
TypeError rather than copy the data to the host.
"""

import numpy as np
import pytest
from conftest import random_array
from numpy.exceptions import AxisError

import gpuvec
from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS
from gpuvec.device_array import NUMPY_UFUNCS

DTYPES = [np.float32, np.float64]


def tolerance(dtype):
    # The results are of order one; an absolute term covers elements near zero
    # that come from cancellation (x - mean), whose relative error is larger
    # when the sums are added in another order than NumPy's.
    return {"rtol": 2e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


def check(result, expected, dtype=None):
    assert isinstance(result, gpuvec.DeviceArray), type(result)
    host = result.to_host()
    assert host.shape == np.shape(expected)
    assert host.dtype == np.asarray(expected).dtype
    if host.dtype == np.bool_:
        np.testing.assert_array_equal(host, expected)
    else:
        bounds = tolerance(dtype or host.dtype)
        np.testing.assert_allclose(host, expected, equal_nan=True, **bounds)


# -- ufuncs ------------------------------------------------------------------------------------


def _ufuncs(arity, kind):
    """NumPy's names of the op table's plain rows of ``arity`` inputs and result
    ``kind`` that compute in floats (the integer-only ones: INTEGER_ONLY)."""
    return [
        row.numpy
        for row in ELEMENTWISE_OPS.values()
        if row.public and row.numpy and row.arity == arity and row.kind == kind
        if "f" in row.kinds
    ]


# The rows of integers (and bools) alone: bit ops, shifts, gcd, lcm, bitwise_count.
INTEGER_ONLY = [
    row.numpy
    for row in ELEMENTWISE_OPS.values()
    if row.public and row.numpy and "f" not in row.kinds
]


UNARY = _ufuncs(1, "SAME")
BINARY = _ufuncs(2, "SAME")
COMPARE = _ufuncs(2, "BOOL")
PREDICATES = _ufuncs(1, "BOOL")
LOGICAL = _ufuncs(2, "TRUTH")


def test_every_op_table_ufunc_is_dispatched():
    names = {u.__name__ for u, method in NUMPY_UFUNCS if method == "__call__"}
    expected = set(UNARY + BINARY + COMPARE + PREDICATES + LOGICAL + _ufuncs(1, "TRUTH"))
    assert names == expected | set(INTEGER_ONLY)


@pytest.mark.parametrize("name", INTEGER_ONLY)
def test_integer_ufuncs_of_floats_raise_numpys_type_error(backend, rng, name):
    d = gpuvec.to_device(random_array(rng, 5, np.float64))
    ufunc = getattr(np, name)
    numpys = r"not supported for the input types|did not contain a loop"
    with pytest.raises(TypeError, match=numpys):
        ufunc(*[d] * ufunc.nin)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY + PREDICATES)
def test_unary_ufuncs(backend, rng, name, dtype, no_transfers):
    x = random_array(rng, (7, 33), dtype)
    if name in ("arcsin", "arccos"):
        x = x / 20  # mostly in the domain; the rest are NaN in both
    x[0, :3] = [np.nan, np.inf, -np.inf]
    d = gpuvec.to_device(x)
    ufunc = getattr(np, name)
    with no_transfers, np.errstate(all="ignore"):
        result = ufunc(d)
        expected = ufunc(x)
    check(result, expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY + COMPARE)
def test_binary_ufuncs_broadcast(backend, rng, name, dtype, no_transfers):
    x, y = random_array(rng, (5, 1, 31), dtype), random_array(rng, (3, 1), dtype)
    if name == "power":
        x = np.abs(x)
    x[0, 0, :2] = np.nan
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    ufunc = getattr(np, name)
    with no_transfers, np.errstate(all="ignore"):
        result = ufunc(dx, dy)
        with_scalar = ufunc(dx, 1.5)
    with np.errstate(all="ignore"):
        check(result, ufunc(x, y), dtype)
        check(with_scalar, ufunc(x, 1.5), dtype)


@pytest.mark.parametrize("name", LOGICAL)
def test_logical_ufuncs(backend, rng, name):
    a, b = rng.random(37) > 0.5, rng.random(37) > 0.5
    da, db = gpuvec.to_device(a), gpuvec.to_device(b)
    check(getattr(np, name)(da, db), getattr(np, name)(a, b))
    check(np.logical_not(da), np.logical_not(a))


def test_bitwise_ufuncs_of_bools_are_the_logical_ones(backend, rng):
    a, b = rng.random(33) > 0.5, rng.random(33) > 0.5
    da, db = gpuvec.to_device(a), gpuvec.to_device(b)
    check(np.True_ & da, a)  # NumPy's scalar asks np.bitwise_and
    check(np.False_ | db, b)
    check(np.bitwise_xor(da, db), a ^ b)
    check(np.invert(da), ~a)


def test_may_share_memory(backend, rng):
    d = gpuvec.to_device(random_array(rng, (4, 6), np.float64))
    assert np.may_share_memory(d, d[1:, ::2])
    assert not np.may_share_memory(d[:2], d[2:])
    assert not np.may_share_memory(d, gpuvec.to_device(random_array(rng, 3, np.float64)))
    assert not np.may_share_memory(d[:0], d)
    copy = d.to_host()
    assert not np.may_share_memory(copy, d)


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_scalars_on_the_left(backend, rng, dtype):
    x = random_array(rng, 31, dtype)
    d = gpuvec.to_device(x)
    for scalar in (np.float32(1.5), np.float64(-2.5)):
        check(scalar != d, scalar != x)
        check(scalar < d, scalar < x)
        check(scalar >= d, scalar >= x)
        check(scalar * d, scalar * x)
        check(scalar - d, scalar - x)


def test_mixed_precision_promotes_as_numpy(backend, rng):
    x, y = random_array(rng, 33, np.float32), random_array(rng, 33, np.float64)
    result = np.add(gpuvec.to_device(x), gpuvec.to_device(y))
    assert result.dtype == np.float64
    check(result, x + y)


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_writes_into_the_given_array(backend, rng, dtype):
    x, y = random_array(rng, (4, 9), dtype), random_array(rng, (4, 9), dtype)
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    out = gpuvec.empty((4, 9), dtype)
    assert np.multiply(dx, dy, out=out) is out
    check(out, x * y)
    assert np.exp(dx, out=(out,)) is out  # the 1-tuple NumPy itself passes on
    check(out, np.exp(x), dtype)
    np.add(dx, dy, dx)  # out as the third positional argument, in place
    check(dx, x + y)


def test_dtype_keyword(backend, rng):
    x = random_array(rng, 33, np.float64)
    result = np.add(gpuvec.to_device(x), 1.0, dtype=np.float32)
    assert result.dtype == np.float32
    check(result, np.add(x, 1.0, dtype=np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("ufunc", "axis", "keepdims"),
    [
        (np.add, 0, False),
        (np.add, None, False),
        (np.add, (0, 2), True),
        (np.multiply, 1, False),
        (np.maximum, -1, True),
        (np.minimum, 1, False),
        (np.minimum, None, True),
    ],
)
def test_reduce(backend, rng, ufunc, axis, keepdims, dtype, no_transfers):
    x = random_array(rng, (5, 7, 3), dtype)
    if ufunc is np.multiply:
        x = rng.uniform(0.5, 1.5, x.shape).astype(dtype)
    x[1, 2, 0] = np.nan
    d = gpuvec.to_device(x)
    with no_transfers:
        result = ufunc.reduce(d, axis=axis, keepdims=keepdims)
    # gpuvec accumulates in float64 and rounds once (docs/numpy-differences.md, 2).
    expected = ufunc.reduce(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(dtype)
    check(result, expected, dtype)


def test_reduce_defaults_to_axis_0_and_logical_reductions(backend, rng):
    x = random_array(rng, (5, 7), np.float64)
    check(np.add.reduce(gpuvec.to_device(x)), np.add.reduce(x))
    mask = x > 0
    dm = gpuvec.to_device(mask)
    check(np.logical_and.reduce(dm, axis=1), np.logical_and.reduce(mask, axis=1))
    check(np.logical_or.reduce(dm, axis=None), np.logical_or.reduce(mask, axis=None))


def _lacking_ufunc():
    """A NumPy ufunc of one float input that no row of the op table is."""
    for name in sorted(dir(np)):
        ufunc = getattr(np, name)
        if isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and "d->d" in ufunc.types:
            if (ufunc, "__call__") not in NUMPY_UFUNCS:
                return ufunc
    raise AssertionError("gpuvec has every ufunc of NumPy")


LACKING = _lacking_ufunc()

# NumPy's TypeError for a ufunc prints the arguments' repr, which copies a
# small DeviceArray to the host; the functions' names only the types.
UFUNCS_NOT_IMPLEMENTED = {
    "accumulate": lambda d: np.add.accumulate(d),
    "outer": lambda d: np.multiply.outer(d, d),
    "at": lambda d: np.add.at(d, [0], 1.0),
    "reduceat": lambda d: np.add.reduceat(d, [0, 1]),
    "reduce of subtract": lambda d: np.subtract.reduce(d),
    "reduce with initial": lambda d: np.add.reduce(d, initial=1.0),
    "reduce with out": lambda d: np.add.reduce(d, out=gpuvec.empty(())),
    "ufunc gpuvec lacks": lambda d: LACKING(d),
    "where=": lambda d: np.add(d, d, where=d > 0),
    "casting=": lambda d: np.add(d, d, casting="unsafe"),
    "dtype= of a comparison": lambda d: np.less(d, d, dtype=np.float64),
}
FUNCTIONS_NOT_IMPLEMENTED = {
    "sort": lambda d: np.sort(d),
    "cumsum": lambda d: np.cumsum(d),
    "sum with where=": lambda d: np.sum(d, where=d > 0),
    "sum with out=": lambda d: np.sum(d, out=gpuvec.empty(())),
    "dot of matrices": lambda d: np.dot(d.reshape(1, -1), d.reshape(-1, 1)),
    "norm with ord=1": lambda d: np.linalg.norm(d, ord=1),
    "where with one argument": lambda d: np.where(d > 0),
    "reshape in F order": lambda d: np.reshape(d, -1, order="F"),
    "zeros_like in F order": lambda d: np.zeros_like(d, order="F"),
    "round to tenths": lambda d: np.round(d, 1),
    "tensordot of some axes": lambda d: np.tensordot(d.reshape(1, -1), d.reshape(-1, 1), 1),
    "asarray in F order": lambda d: np.asarray([1.0], order="F", like=d),
}


@pytest.mark.parametrize("name", UFUNCS_NOT_IMPLEMENTED)
def test_unsupported_ufunc_calls_raise_numpys_type_error(backend, rng, name):
    d = gpuvec.to_device(random_array(rng, 5, np.float64))
    with pytest.raises(TypeError, match="returned NotImplemented from __array_ufunc__"):
        UFUNCS_NOT_IMPLEMENTED[name](d)


@pytest.mark.parametrize("name", FUNCTIONS_NOT_IMPLEMENTED)
def test_unsupported_functions_raise_numpys_type_error(backend, rng, name, no_transfers):
    d = gpuvec.to_device(random_array(rng, 5, np.float64))
    with no_transfers, pytest.raises(TypeError, match="no implementation found for 'numpy"):
        FUNCTIONS_NOT_IMPLEMENTED[name](d)


def test_numpy_array_mixed_in_keeps_gpuvecs_explanation(backend):
    d = gpuvec.ones(3)
    with pytest.raises(TypeError, match=r"\(ndarray\) is in host memory"):
        np.add(np.ones(3), d)
    with pytest.raises(TypeError, match=r"to_device"):
        np.concatenate([d, np.ones(3)])


# -- functions ---------------------------------------------------------------------------------

# NumPy's functions of the op table's public reductions of a number (the
# index and truth ones: test_index_and_truth_functions), and NumPy's aliases.
REDUCTIONS = [
    getattr(np, row.numpy)
    for row in REDUCE_OPS.values()
    if row.public and not row.own_dtype and not row.position
]
REDUCTIONS += [np.amin, np.amax]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("function", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("axis", "keepdims"), [(None, False), (0, False), ((1, 2), True)])
def test_reduction_functions(backend, rng, function, axis, keepdims, dtype, no_transfers):
    x = random_array(rng, (6, 5, 3), dtype)
    if function is np.prod:
        x = rng.uniform(0.5, 1.5, x.shape).astype(dtype)
    d = gpuvec.to_device(x)
    with no_transfers:
        result = function(d, axis=axis, keepdims=keepdims)
    expected = function(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(dtype)
    check(result, expected, dtype)


def test_reduction_keywords(backend, rng):
    x = random_array(rng, (4, 7), np.float64)
    d = gpuvec.to_device(x)
    check(np.std(d, axis=1, ddof=1), np.std(x, axis=1, ddof=1))
    check(np.var(d, 0, ddof=1), np.var(x, 0, ddof=1))  # axis positionally
    check(np.sum(d, axis=0, dtype=np.float32, out=None), np.sum(x, axis=0, dtype=np.float32))
    x[2, 3] = np.nan
    check(np.max(gpuvec.to_device(x), axis=1), np.max(x, axis=1))


def test_nan_reductions_skip_nan(backend, rng):
    x = random_array(rng, (5, 6), np.float64)
    x[::2, 1] = np.nan
    x[:, 4] = np.nan  # a column of NaN alone: 0 for nansum, NaN (with a warning) for nanmean
    d = gpuvec.to_device(x)
    check(np.nansum(d, axis=0), np.nansum(x, axis=0))
    check(np.nansum(d, axis=(0, 1), keepdims=True), np.nansum(x, axis=(0, 1), keepdims=True))
    with pytest.warns(RuntimeWarning):
        expected = np.nanmean(x, axis=0)
    check(np.nanmean(d, axis=0), expected)


def test_index_and_truth_functions(backend, rng):
    x = random_array(rng, (5, 8), np.float64)
    x[1, 1] = 0.0
    d = gpuvec.to_device(x)
    assert np.argmax(d) == np.argmax(x)
    assert np.argmin(d) == np.argmin(x)
    for function in (np.argmax, np.argmin, np.count_nonzero):  # NumPy's integer type, too
        assert type(function(d)) is type(function(x)), function
    np.testing.assert_array_equal(np.argmax(d, axis=1), np.argmax(x, axis=1))
    np.testing.assert_array_equal(np.argmin(d, axis=0), np.argmin(x, axis=0))
    assert np.count_nonzero(d) == np.count_nonzero(x)
    np.testing.assert_array_equal(np.count_nonzero(d, axis=0), np.count_nonzero(x, axis=0))
    check(np.any(d > 5, axis=1), np.any(x > 5, axis=1))
    check(np.all(d, axis=0), np.all(x, axis=0))
    assert bool(np.all(d > -100))
    assert not bool(np.any(d > 1e9))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot_where_clip_norm(backend, rng, dtype, no_transfers):
    x, y = random_array(rng, 1025, dtype), random_array(rng, 1025, dtype)
    m = random_array(rng, (7, 9), dtype)
    dx, dy, dm = gpuvec.to_device(x), gpuvec.to_device(y), gpuvec.to_device(m)
    wide = np.float64
    with no_transfers:
        results = [
            np.dot(dx, dy),
            np.vdot(dm, dm),
            np.where(dx > 0, dx, dy),
            np.where(dx, 1.0, dy),  # a float condition: nonzero is true
            np.clip(dx, -3.0, 4.0),
            np.clip(dm, a_min=None, a_max=dm[0]),
            np.linalg.norm(dx),
            np.linalg.norm(dm),
            np.linalg.norm(dm, axis=1, keepdims=True),
            np.linalg.norm(dm, ord="fro"),
            np.round(dm * 0.5),
        ]
    expected = [
        np.dot(x.astype(wide), y).astype(dtype),
        np.vdot(m.astype(wide), m).astype(dtype),
        np.where(x > 0, x, y),
        np.where(x, dtype(1.0), y),
        np.clip(x, -3.0, 4.0),
        np.clip(m, None, m[0]),
        np.linalg.norm(x.astype(wide)).astype(dtype),
        np.linalg.norm(m.astype(wide)).astype(dtype),
        np.linalg.norm(m.astype(wide), axis=1, keepdims=True).astype(dtype),
        np.linalg.norm(m.astype(wide), ord="fro").astype(dtype),
        np.round(m * dtype(0.5)),
    ]
    for result, want in zip(results, expected, strict=True):
        check(result, want, dtype)


# -- shapes and joining ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate(backend, rng, dtype, axis, no_transfers):
    parts = [random_array(rng, (3, n), dtype) for n in (1, 4, 7)]
    if axis == 0:
        parts = [random_array(rng, (n, 5), dtype) for n in (2, 1, 6)]
    devices = [gpuvec.to_device(p) for p in parts]
    devices[1] = devices[1][::-1]  # a strided part
    parts[1] = parts[1][::-1]
    with no_transfers:
        result = np.concatenate(devices, axis=axis)
        direct = gpuvec.concatenate(devices, axis=axis)
    check(result, np.concatenate(parts, axis=axis))
    check(direct, np.concatenate(parts, axis=axis))
    np.testing.assert_array_equal(
        gpuvec.concatenate(parts, axis=axis), np.concatenate(parts, axis=axis)
    )


def test_concatenate_promotes_as_numpy(backend, rng):
    a, b = random_array(rng, 5, np.float32), random_array(rng, 3, np.float64)
    result = gpuvec.concatenate([gpuvec.to_device(a), gpuvec.to_device(b)])
    assert result.dtype == np.float64
    check(result, np.concatenate([a, b]))
    masks = [rng.random(4) > 0.5, rng.random(2) > 0.5]
    check(gpuvec.concatenate([gpuvec.to_device(m) for m in masks]), np.concatenate(masks))
    single = gpuvec.concatenate([gpuvec.to_device(a)], dtype=np.float64)
    assert single.dtype == np.float64
    assert gpuvec.concatenate([a, b.astype(np.float32)]).dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack(backend, rng, dtype, axis, no_transfers):
    parts = [random_array(rng, (3, 5), dtype) for _ in range(4)]
    devices = [gpuvec.to_device(p) for p in parts]
    with no_transfers:
        result = np.stack(devices, axis=axis)
    check(result, np.stack(parts, axis=axis))
    np.testing.assert_array_equal(gpuvec.stack(parts, axis), np.stack(parts, axis))


JOIN_ERRORS = {
    "no arrays": (lambda join, a: join([]), ValueError),
    "0-d arrays": (lambda join, a: join([a[0, 0], a[0, 0]]), ValueError),
    "ndim mismatch": (lambda join, a: join([a, a[0]]), ValueError),
    "shape mismatch": (lambda join, a: join([a, a[:, :2]]), ValueError),
    "bad axis": (lambda join, a: join([a, a], axis=3), AxisError),
}


@pytest.mark.parametrize(
    ("join", "name"),
    [("concatenate", name) for name in JOIN_ERRORS]
    + [("stack", name) for name in JOIN_ERRORS if name != "0-d arrays"],  # NumPy stacks those
)
def test_join_errors_match_numpy(backend, rng, join, name):
    make, error = JOIN_ERRORS[name]
    x = random_array(rng, (2, 3), np.float64)
    with pytest.raises(error) as numpy_error:
        make(getattr(np, join), x)
    for data in (x, gpuvec.to_device(x)):
        with pytest.raises(error) as ours:
            make(getattr(gpuvec, join), data)
        assert str(ours.value) == str(numpy_error.value)
        if isinstance(data, gpuvec.DeviceArray):
            with pytest.raises(error):
                make(getattr(np, join), data)


def test_stack_of_0d_arrays(backend, rng):
    x = random_array(rng, 3, np.float64)
    d = gpuvec.to_device(x)
    check(np.stack([d[0], d[2]]), np.stack([x[0], x[2]]))


def test_like_functions_stay_on_device(backend, rng, no_transfers):
    d = gpuvec.to_device(random_array(rng, (3, 4), np.float32))
    with no_transfers:
        made = [
            np.empty_like(d),
            np.zeros_like(d),
            np.ones_like(d, dtype=np.float64),
            np.full_like(d, fill_value=2.5),
            np.zeros_like(d, shape=(2, 5)),
        ]
    assert [(m.shape, m.dtype) for m in made] == [
        ((3, 4), np.float32),
        ((3, 4), np.float32),
        ((3, 4), np.float64),
        ((3, 4), np.float32),
        ((2, 5), np.float32),
    ]
    assert all(isinstance(m, gpuvec.DeviceArray) for m in made)
    check(made[1], np.zeros((3, 4), np.float32))
    check(made[2], np.ones((3, 4)))
    check(made[3], np.full((3, 4), 2.5, np.float32))


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "axes"),
    [
        ((7,), (7,), 1),
        ((7,), (7,), ((0,), (0,))),
        ((3, 5), (3, 5), 2),
        ((3, 5), (5, 3), ((0, 1), (1, 0))),
        ((2, 3, 4), (4, 2, 3), ((2, -3, 1), (0, 1, 2))),
        ((), (), 0),
    ],
)
def test_tensordot_of_every_axis(backend, rng, a_shape, b_shape, axes, no_transfers):
    a, b = random_array(rng, a_shape, np.float64), random_array(rng, b_shape, np.float64)
    da, db = gpuvec.to_device(a), gpuvec.to_device(b)
    with no_transfers:
        result = np.tensordot(da, db, axes)
    check(result, np.tensordot(a, b, axes))


def test_tensordot_of_mismatched_shapes_is_numpys_error(backend, rng):
    a, b = gpuvec.ones((2, 3)), gpuvec.ones((3, 2))
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        np.tensordot(a, b, 2)


@pytest.mark.parametrize("dtype", [None, np.float32])
def test_asarray_and_array_like_a_device_array(backend, dtype):
    """NEP 35's like=: Dask makes arrays of its chunks' type this way."""
    d = gpuvec.ones(2, dtype=np.float32)
    integers = np.array([[1, 2]], dtype)  # NumPy's dtype: int64 for a list of ints
    made = [
        (np.asarray([[1, 2]], dtype=dtype, like=d), integers),
        (np.array([[1, 2]], dtype=dtype, like=d), integers),
        (np.array([1, 2], dtype=dtype, ndmin=2, like=d), integers),
        (
            np.array(np.array([[1.0, 2.0]]), dtype=dtype, copy=True, like=d),
            np.array([[1.0, 2.0]], dtype or np.float64),
        ),
    ]
    for result, expected in made:
        check(result, expected)
    assert np.asarray([], like=d).shape == (0,)
    assert np.array([], ndmin=3, like=d).shape == (1, 1, 0)


def test_asarray_like_of_a_device_array(backend, rng):
    d = gpuvec.to_device(random_array(rng, 4, np.float64))
    assert np.asarray(d, like=d) is d
    assert np.array(d, copy=False, like=d) is d
    copied = np.array(d, like=d)
    assert copied is not d
    copied[0] = 99.0
    assert float(d[0]) != 99.0
    check(np.asarray(d, dtype=np.float32, like=d), d.to_host().astype(np.float32))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.asarray([1.0], copy=False, like=d)


def test_array_priority_is_above_numpys(backend):
    assert gpuvec.ones(1).__array_priority__ > np.ones(1).__array_priority__


def test_shape_functions_make_views(backend, rng, no_transfers):
    x = random_array(rng, (3, 1, 4), np.float64)
    d = gpuvec.to_device(x)
    with no_transfers:
        results = {
            "squeeze": (np.squeeze(d), np.squeeze(x)),
            "squeeze axis": (np.squeeze(d, axis=1), np.squeeze(x, axis=1)),
            "expand_dims": (np.expand_dims(d, (0, -1)), np.expand_dims(x, (0, -1))),
            "broadcast_to": (np.broadcast_to(d, (2, 3, 5, 4)), np.broadcast_to(x, (2, 3, 5, 4))),
            "reshape": (np.reshape(d, (4, -1)), np.reshape(x, (4, -1))),
            "transpose": (np.transpose(d), np.transpose(x)),
            "transpose axes": (np.transpose(d, (1, 2, 0)), np.transpose(x, (1, 2, 0))),
        }
        reshaped_copy = np.reshape(np.transpose(d), -1)  # not contiguous: a copy
    for name, (result, expected) in results.items():
        assert isinstance(result, gpuvec.DeviceArray), name
        np.testing.assert_array_equal(result.to_host(), expected, err_msg=name)
    np.testing.assert_array_equal(reshaped_copy.to_host(), np.reshape(x.T, -1))
    assert np.broadcast_to(d, (2, 3, 1, 4))._readonly
    assert (np.shape(d), np.ndim(d), np.size(d), np.size(d, 2)) == ((3, 1, 4), 3, 12, 4)
    with pytest.raises(ValueError, match="size not equal to one"):
        np.squeeze(d, axis=0)
    with pytest.raises(AxisError):
        np.expand_dims(d, 5)
    with pytest.raises(ValueError, match="could not be broadcast"):
        np.broadcast_to(d, (3, 1, 5))
    with pytest.raises(ValueError, match="copy"):
        np.reshape(np.transpose(d), -1, copy=False)


# -- NumPy code, unchanged, on DeviceArrays ----------------------------------------------------


def standardize(x):
    return (x - np.mean(x, axis=0)) / np.std(x, axis=0)


def softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def pairwise_features(x):
    both = np.concatenate([x, np.abs(x)], axis=1)
    return np.where(np.isnan(both), 0.0, np.clip(both, -5.0, 5.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("function", [standardize, softmax, pairwise_features])
def test_numpy_written_code_runs_on_device_arrays(backend, rng, dtype, function, no_transfers):
    x = random_array(rng, (37, 11), dtype)
    x[3, 4] = np.nan
    d = gpuvec.to_device(x)
    with no_transfers:
        result = function(d)
    assert isinstance(result, gpuvec.DeviceArray)
    expected = function(x.astype(np.float64)).astype(dtype)
    check(result, expected, dtype)


def test_broadcast_to_a_smaller_shape_is_numpys_error(backend, rng):
    # The view helper behind masks and out= refuses it too, rather than
    # making a view of the first element.
    d = gpuvec.to_device(random_array(rng, 3, np.float64))
    with pytest.raises(ValueError, match="could not be broadcast"):
        d._broadcast_to((1,))
