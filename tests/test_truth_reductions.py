"""any, all and count_nonzero against NumPy, and bool input to the other reductions.

An element is true when it is not zero: NaN and inf are, -0.0 is not. The data
mixes zeros, NaN, infinities and -0.0 at a density drawn per test, so that
rows of no true element (any is False) and of no zero (all is True) both come
up, in every launch shape of the CUDA backend and every walk of the host's.
"""

import numpy as np
import pytest
from conftest import LAYOUTS

import gpuvec
from gpuvec._table import REDUCE_OPS

OPS = ["any", "all", "count_nonzero"]
DTYPES = [np.float32, np.float64, np.bool_]

# (shape, axis): odd sizes (primes, 2^k +- 1), every kind of axis, and the
# shapes that pick each CUDA launch shape (see test_reductions_axis.py).
CASES = [
    ((1,), None),
    ((7,), 0),
    ((1023,), -1),
    ((1025,), None),
    ((3, 5), 0),
    ((3, 5), 1),
    ((3, 5), (0, 1)),
    ((3, 5), ()),
    ((37, 41), None),
    ((31, 33), -2),
    ((0, 5), 1),
    ((5, 0), 1),
    ((2, 3, 4, 5), (0, 2)),
    ((2, 3, 4, 5), (1, -1)),
    ((2, 3, 4, 5), -2),
    ((100_003, 3), 1),
    ((3, 100_003), 1),
    ((40, 1000), 1),
    ((1000, 40), 0),
    ((100_003, 40), 0),
    ((8, 50_001), 0),
    ((65_537,), None),
    ((1_000_003,), None),
]


def data(rng, shape, dtype, density=None):
    """Values with zeros (and -0.0), NaN and infinities; a fraction `density`
    of them (drawn when not given, from all-zero to no zero) is nonzero."""
    if density is None:
        density = rng.choice([0.0, 0.001, 0.5, 0.999, 1.0])
    nonzero = rng.random(shape) < density
    if dtype is np.bool_:
        return nonzero
    x = rng.standard_normal(shape) * 10
    x[~nonzero] = np.where(rng.random(shape) < 0.5, 0.0, -0.0)[~nonzero]
    specials = nonzero & (rng.random(shape) < 0.01)
    x[specials] = rng.choice([np.nan, np.inf, -np.inf, 1e-300], np.count_nonzero(specials))
    return x.astype(dtype)


def reference(name, x, axis=None, keepdims=False):
    return getattr(np, name)(np.asarray(x), axis=axis, keepdims=keepdims)


# Copying a bool DeviceArray back from the GPU needs the bool DeviceArrays
# that come with the elementwise truth ops (isnan, less, ...; issue #13).
BOOL_DEVICE_ARRAYS = hasattr(gpuvec, "isnan")


def host(result):
    """A result as a NumPy array: a DeviceArray's host copy, else the value itself."""
    if not isinstance(result, gpuvec.DeviceArray):
        return np.asarray(result)
    if result.dtype == np.bool_ and gpuvec.backend() == "cuda" and not BOOL_DEVICE_ARRAYS:
        pytest.skip("copying a bool DeviceArray to the host needs bool DeviceArrays (#13)")
    return result.to_host()


def check(name, result, x, axis=None, keepdims=False, device=False):
    """The result is NumPy's, in value, shape, dtype and type."""
    expected = np.asarray(reference(name, x, axis, keepdims))
    dtype = np.int64 if name == "count_nonzero" else np.bool_
    if device and name != "count_nonzero":
        # Device data gives a bool DeviceArray; counts come back as NumPy values.
        assert isinstance(result, gpuvec.DeviceArray), type(result)
    elif axis is None and not keepdims:
        assert type(result) is (int if name == "count_nonzero" else np.bool_), type(result)
    else:
        assert isinstance(result, (np.ndarray, np.generic)), type(result)
    if type(result) is not int:
        assert result.dtype == dtype
    result = host(result)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


def call(name, x, axis=None, **kwargs):
    return getattr(gpuvec, name)(x, axis=axis, **kwargs)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_shapes_and_axes(backend, rng, name, dtype, shape, axis):
    x = data(rng, shape, dtype)
    check(name, call(name, x, axis), x, axis)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("density", [0.0, 0.5, 1.0])
def test_densities(backend, rng, name, dtype, density):
    # All zero, half and none zero, in a row long enough to be split over blocks.
    x = data(rng, (4, 20_011), dtype, density)
    for axis in (None, 0, 1):
        check(name, call(name, x, axis), x, axis)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", [k for k in LAYOUTS if k != "0d"])
def test_layouts(backend, rng, name, dtype, layout):
    # Strided, reversed, Fortran-ordered and transposed views, read in place.
    view, base_shape = LAYOUTS[layout]
    x = view(data(rng, base_shape, dtype))
    for axis in (0, -1, None):
        check(name, call(name, x, axis), x, axis)
    check(name, call(name, x, 0, keepdims=True), x, 0, keepdims=True)


@pytest.mark.parametrize("name", OPS)
def test_keepdims(backend, rng, name):
    x = data(rng, (4, 5, 6), np.float64, 0.7)
    for axis in (None, 1, -1, (0, 2), (0, 1, 2), ()):
        check(name, call(name, x, axis, keepdims=True), x, axis, keepdims=True)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("value", [0.0, -0.0, 2.5, np.nan, np.inf, True, False, 0, 3])
def test_zero_d_input(backend, name, value):
    for x in (value, np.asarray(value), np.float32(value), np.asarray(value, np.float32)):
        check(name, call(name, x), x)
        for axis in (0, -1):  # NumPy's ufunc reductions take them on a 0-d array
            check(name, call(name, x, axis), x, axis)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize(("shape", "axis"), [((0,), None), ((3, 0), 1), ((0, 3), 0), ((0, 0), 1)])
def test_empty(backend, name, shape, axis):
    # any of nothing is False, all True, the count 0; no error, as in NumPy.
    for dtype in DTYPES:
        x = np.zeros(shape, dtype)
        check(name, call(name, x, axis), x, axis)
    assert call(name, np.zeros((0, 3)), 1).shape == (0,)  # no row at all


@pytest.mark.parametrize("name", OPS)
def test_other_inputs(backend, name):
    # Lists, ints and float16: converted to the compute dtype, which keeps
    # every nonzero value nonzero.
    inputs = [[[0, 1, 2], [0, 0, 0]], np.array([[0, -3], [7, 0]]), np.array([0, 1e-4], np.float16)]
    for x in inputs:
        for axis in (None, 0, -1):
            check(name, call(name, x, axis), x, axis)


@pytest.mark.parametrize("name", OPS)
def test_tiny_values_stay_true_in_float32_precision(backend, name):
    # Read in its own dtype, float64 data keeps 1e-300 nonzero, where a
    # float32 conversion (the precision policy) would make it 0.
    x = np.array([[0.0, 1e-300], [5e-324, 0.0]])
    with gpuvec.precision("float32"):
        for axis in (None, 0, 1):
            check(name, call(name, x, axis), x, axis)


@pytest.mark.parametrize("name", OPS)
def test_threads_per_block(backend, rng, name):
    x = data(rng, (33, 4099), np.float32, 0.9)
    for threads in (32, 96, 1024):
        check(name, call(name, x, 1, threads_per_block=threads), x, 1)


def test_axis_errors(backend):
    x = np.ones((2, 3))
    for name in OPS:
        with pytest.raises(np.exceptions.AxisError):
            call(name, x, 2)
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            call(name, x, (1, -1))


def test_result_types(backend, rng):
    x = data(rng, (3, 4), np.float32, 0.5)
    assert type(gpuvec.any(x)) is np.bool_
    assert type(gpuvec.all(x)) is np.bool_
    assert type(gpuvec.count_nonzero(x)) is int
    assert gpuvec.count_nonzero(x, axis=1).dtype == np.int64
    assert gpuvec.any(x, axis=1).dtype == np.bool_
    # No dimension left: a NumPy scalar, as from NumPy.
    assert type(gpuvec.any(x[0], axis=0)) is np.bool_
    assert type(gpuvec.count_nonzero(x[0], axis=0)) is np.int64
    assert ~gpuvec.any(np.zeros(3))  # a NumPy bool: ~ is logical not, as in NumPy


# -- device data -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "axis"), [c for c in CASES if c[0] != (1_000_003,)])
def test_device_arrays(backend, rng, name, dtype, shape, axis):
    x = data(rng, shape, dtype)
    d = gpuvec.to_device(x)
    check(name, call(name, d, axis), x, axis, device=True)
    check(name, call(name, d, axis, keepdims=True), x, axis, keepdims=True, device=True)


@pytest.mark.parametrize("name", OPS)
def test_device_views(backend, rng, name):
    x = data(rng, (37, 41), np.float64, 0.5)
    d = gpuvec.to_device(x)
    for view, expected in [(d[::-1, ::3], x[::-1, ::3]), (d.T, x.T), (d[:, 5], x[:, 5])]:
        for axis in (None, 0, -1):
            check(name, call(name, view, axis), expected, axis, device=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_methods(backend, rng, dtype):
    x = data(rng, (6, 7), dtype, 0.6)
    d = gpuvec.to_device(x)
    # A 0-d result converts to a Python bool, as NumPy's does.
    assert bool(d.any()) is bool(np.any(x))
    assert bool(d.all()) is bool(np.all(x))
    assert bool(gpuvec.to_device(np.zeros(3, dtype)).any()) is False
    assert bool(gpuvec.to_device(np.ones(3, dtype)).all()) is True
    assert gpuvec.count_nonzero(d) == np.count_nonzero(x)
    for name in ("any", "all"):
        for axis in (None, 0, (0, 1)):
            method = getattr(d, name)
            check(name, method(axis), x, axis, device=True)
            check(name, method(axis=axis, keepdims=True), x, axis, keepdims=True, device=True)


# -- bool input to the other reductions ----------------------------------------------------------


@pytest.mark.parametrize("shape", [(1,), (1023,), (65_537,), (37, 41), (100_003, 3)])
def test_sum_and_mean_of_bools(backend, rng, shape):
    # NumPy's sum of bools counts them, in int64; gpuvec's too.
    b = data(rng, shape, np.bool_, 0.3)
    for view in (b, b[::-1], b.T, b[..., ::2]):
        total = gpuvec.sum(view)
        assert type(total) is int
        assert total == np.sum(view)
        for axis in (0, -1):
            result = gpuvec.sum(view, axis=axis)
            assert result.dtype == np.int64
            np.testing.assert_array_equal(result, np.sum(view, axis=axis))
            mean = gpuvec.mean(view, axis=axis)
            assert mean.dtype == np.float64
            np.testing.assert_allclose(mean, np.mean(view, axis=axis), rtol=1e-15)
    assert gpuvec.mean(b) == pytest.approx(np.mean(b), rel=1e-15)


# The other public reductions, from the op table (sum and mean are above;
# any, all and count_nonzero read bools as they are).
OTHERS = [
    row.name
    for row in REDUCE_OPS.values()
    if row.public and not row.own_dtype and row.name not in ("sum", "mean")
]


@pytest.mark.parametrize("name", OTHERS)
def test_other_reductions_of_bools(backend, rng, name):
    # Read as 0.0 and 1.0: converted by the boundary as it reads.
    b = data(rng, (9, 13), np.bool_, 0.5)
    b[0] = True  # rows of one value too
    b[1] = False
    for axis in (None, 0, 1):
        expected = getattr(np, name)(b.astype(np.float64), axis=axis)
        np.testing.assert_allclose(call(name, b, axis), expected, rtol=1e-15, atol=1e-15)


def test_bools_in_float32_precision(backend, rng):
    b = data(rng, (5, 6), np.bool_, 0.5)
    with gpuvec.precision("float32"):
        result = gpuvec.mean(b, axis=0)
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, np.mean(b, axis=0), rtol=1e-7)
    assert gpuvec.sum(b, dtype=np.float32) == np.sum(b)
