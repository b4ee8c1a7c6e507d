"""cumsum, cumprod, bincount and histogram against NumPy, on both backends."""

import numpy as np
import pytest
from conftest import COMPUTED_REAL_DTYPES

import gpuvec

DTYPES = COMPUTED_REAL_DTYPES
INTS = [d for d in DTYPES if np.dtype(d).kind in "iu"]


def random_data(rng, shape, dtype, *, near_one=False):
    """Fresh data of dtype: integers over their whole range (sums overflow),
    floats of both signs (near 1 for products)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if near_one:
        return rng.uniform(0.5, 1.5, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def device(x):
    return gpuvec.to_device(x, dtype=x.dtype)


def check_scan(result, expected, x, backend, axis):
    """Integers (and every host result) are NumPy's exactly; a float scan on
    the GPU is within rounding of a parallel order."""
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    if expected.dtype.kind != "f" or backend == "host":
        np.testing.assert_array_equal(result, expected, strict=True)
        return
    eps = np.finfo(expected.dtype).eps
    scale = np.cumsum(np.abs(x.astype(np.float64)), axis=axis)
    np.testing.assert_allclose(result, expected, rtol=0, atol=0 + 8 * eps * scale.max())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "axis"),
    [((1,), 0), ((7,), None), ((3, 4099), 1), ((4099, 3), 0), ((5, 6, 7), 1), ((2, 3), None)],
)
def test_cumsum_matches_numpy(backend, rng, dtype, shape, axis):
    x = random_data(rng, shape, dtype)
    result = gpuvec.cumsum(device(x), axis=axis)
    assert isinstance(result, gpuvec.DeviceArray)
    check_scan(
        result.to_host(), np.cumsum(x, axis=axis), x, backend, axis if axis is not None else 0
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), [((5,), 0), ((3, 2100), -1), ((40, 6), 0)])
def test_cumprod_matches_numpy(backend, rng, dtype, shape, axis):
    x = random_data(rng, shape, dtype, near_one=True)
    result = gpuvec.cumprod(device(x), axis=axis).to_host()
    expected = np.cumprod(x, axis=axis)
    assert result.dtype == expected.dtype
    if expected.dtype.kind == "f":
        # Long products fall into the subnormals, where a parallel scan's
        # order may leave no significant digit: those count as absolute errors.
        info = np.finfo(expected.dtype)
        np.testing.assert_allclose(
            result, expected, rtol=64 * info.eps, atol=64 * info.eps * info.smallest_normal
        )
        if backend == "host":
            np.testing.assert_array_equal(result, expected)
    else:
        np.testing.assert_array_equal(result, expected, strict=True)


@pytest.mark.parametrize("dtype", INTS)
def test_cumsum_wraps_around_as_numpy(backend, dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, 1, info.max, info.min, info.min, -1 if info.min else 0], dtype)
    for acc in (dtype, None):
        np.testing.assert_array_equal(
            gpuvec.cumsum(device(x), dtype=acc).to_host(), np.cumsum(x, dtype=acc), strict=True
        )
        np.testing.assert_array_equal(
            gpuvec.cumprod(device(x), dtype=acc).to_host(), np.cumprod(x, dtype=acc), strict=True
        )


def test_float32_cumsum_is_numpys_bits_on_the_host(rng):
    x = rng.standard_normal(10001).astype(np.float32)
    np.testing.assert_array_equal(gpuvec.cumsum(x), np.cumsum(x), strict=True)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint16, np.bool_])
def test_scan_dtype_and_out(backend, rng, dtype):
    x = random_data(rng, (4, 9), dtype)
    for acc in (np.float64, np.int32, np.uint8):
        np.testing.assert_allclose(
            gpuvec.cumsum(device(x), axis=0, dtype=acc).to_host(),
            np.cumsum(x, axis=0, dtype=acc),
            rtol=1e-6,
        )
    out = gpuvec.empty((4, 9), np.float64)
    returned = gpuvec.cumsum(device(x), axis=1, out=out)
    assert returned is out
    np.testing.assert_allclose(out.to_host(), np.cumsum(x, axis=1, dtype=np.float64), rtol=1e-12)


def test_numpy_input_gives_numpy(rng):
    x = rng.integers(0, 9, (3, 5)).astype(np.int16)
    result = gpuvec.cumsum(x, axis=0)
    assert type(result) is np.ndarray
    np.testing.assert_array_equal(result, np.cumsum(x, axis=0), strict=True)
    np.testing.assert_array_equal(gpuvec.cumprod(x[:, ::2].T), np.cumprod(x[:, ::2].T))


def test_scan_empty_and_0d(backend):
    for x in (np.zeros((0,)), np.zeros((3, 0), np.int32), np.zeros((0, 4), np.uint8)):
        for axis in (None, -1):
            expected = np.cumsum(x, axis=axis)
            result = gpuvec.cumsum(device(x), axis=axis).to_host()
            assert result.shape == expected.shape
            assert result.dtype == expected.dtype
    zero_d = np.array(5, np.int32)
    np.testing.assert_array_equal(
        gpuvec.cumsum(device(zero_d)).to_host(), np.cumsum(zero_d), strict=True
    )


def test_scan_bad_arguments(backend):
    d = device(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        gpuvec.cumsum(d, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        gpuvec.cumsum(device(np.array(1.0)), axis=0)
    with pytest.raises(TypeError, match="dtype"):
        gpuvec.cumsum(d, dtype=np.complex64)
    with pytest.raises(ValueError, match="out"):
        gpuvec.cumsum(d, axis=0, out=gpuvec.empty((3, 2)))
    with pytest.raises(TypeError, match="a has dtype"):
        gpuvec.cumsum(np.ones(3, np.complex128))


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint32, np.bool_, np.uint64])
def test_bincount_matches_numpy(backend, rng, dtype):
    x = rng.integers(0, 2 if dtype is np.bool_ else 100, 5000).astype(dtype)
    w = rng.standard_normal(5000)
    for minlength in (0, 3, 150):
        expected = np.bincount(x, minlength=minlength)
        result = gpuvec.bincount(device(x), minlength=minlength)
        np.testing.assert_array_equal(result.to_host(), expected, strict=True)
        weighted = gpuvec.bincount(device(x), weights=device(w), minlength=minlength).to_host()
        np.testing.assert_allclose(weighted, np.bincount(x, w, minlength), rtol=1e-12, atol=1e-12)
        if backend == "host":  # added in order, as NumPy adds them
            np.testing.assert_array_equal(weighted, np.bincount(x, w, minlength))


def test_bincount_edges_and_errors(backend):
    empty = np.zeros(0, np.int64)
    np.testing.assert_array_equal(
        gpuvec.bincount(device(empty)).to_host(), np.bincount(empty), strict=True
    )
    np.testing.assert_array_equal(
        gpuvec.bincount(device(empty), minlength=4).to_host(),
        np.bincount(empty, minlength=4),
        strict=True,
    )
    np.testing.assert_array_equal(gpuvec.bincount([3, 0, 3]), np.bincount([3, 0, 3]))
    for bad, error in [
        (np.array([1, -1]), ValueError),
        (np.ones(3), TypeError),
        (np.ones((2, 2), np.int64), ValueError),
        (np.array(1), ValueError),
    ]:
        with pytest.raises(error):
            np.bincount(bad)
        with pytest.raises(error):
            gpuvec.bincount(device(bad))
    with pytest.raises(ValueError, match="minlength"):
        gpuvec.bincount(device(np.arange(3)), minlength=-1)
    with pytest.raises(ValueError, match="weights"):
        gpuvec.bincount(device(np.arange(3)), weights=device(np.ones(2)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64])
@pytest.mark.parametrize("bins", [1, 10, 256, 5000])
def test_histogram_matches_numpy(backend, rng, dtype, bins):
    x = (rng.standard_normal(20000) * 50).astype(dtype)
    hist, edges = gpuvec.histogram(device(x), bins=bins)
    expected, expected_edges = np.histogram(x, bins=bins)
    np.testing.assert_array_equal(edges, expected_edges, strict=True)
    np.testing.assert_array_equal(hist.to_host(), expected, strict=True)


def test_histogram_edges_ranges_weights_density(backend, rng):
    # Values on the edges: integers into unit bins, the last bin closed.
    x = rng.integers(0, 11, 3000).astype(np.float64)
    x[::7] = np.nan
    for kwargs in [
        dict(bins=10, range=(0, 10)),
        dict(bins=[0, 1, 2.5, 7, 10]),
        dict(bins=5, range=(2.5, 8.0)),
        dict(bins="auto", range=(0, 10)),
    ]:
        expected, expected_edges = np.histogram(x, **kwargs)
        hist, edges = gpuvec.histogram(device(x), **kwargs)
        np.testing.assert_array_equal(edges, expected_edges, strict=True)
        np.testing.assert_array_equal(hist.to_host(), expected, strict=True)
    w = rng.standard_normal(3000).astype(np.float32)
    y = rng.standard_normal(3000)
    for kwargs in [dict(bins=7), dict(bins=[-3, -1, 0, 0.5, 4])]:
        expected, _ = np.histogram(y, weights=w, **kwargs)
        hist, _ = gpuvec.histogram(device(y), weights=device(w), **kwargs)
        assert hist.dtype == expected.dtype
        np.testing.assert_allclose(hist.to_host(), expected, rtol=1e-5, atol=1e-4)
        expected, _ = np.histogram(y, density=True, **kwargs)
        hist, _ = gpuvec.histogram(device(y), density=True, **kwargs)
        np.testing.assert_allclose(hist.to_host(), expected, rtol=1e-12)


def test_histogram_numpy_input_and_errors(rng):
    x = rng.standard_normal(100)
    hist, _ = gpuvec.histogram(x, bins=4)
    assert type(hist) is np.ndarray
    np.testing.assert_array_equal(hist, np.histogram(x, bins=4)[0], strict=True)
    empty = np.zeros(0)
    np.testing.assert_array_equal(gpuvec.histogram(empty)[0], np.histogram(empty)[0], strict=True)
    for kwargs, error in [
        (dict(bins=-1), ValueError),
        (dict(range=(2, 1)), ValueError),
        (dict(bins=[3, 1, 2]), ValueError),
    ]:
        with pytest.raises(error):
            np.histogram(x, **kwargs)
        with pytest.raises(error):
            gpuvec.histogram(x, **kwargs)
    with pytest.raises(ValueError, match="range"):
        gpuvec.histogram(np.array([1.0, np.nan]))
