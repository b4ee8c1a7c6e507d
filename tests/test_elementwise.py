"""Elementwise ops against NumPy: every op, dtype, size and layout."""

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array

import gpuvec

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
}
DTYPES = [np.float32, np.float64]


def reference_binary(name, a, b):
    """NumPy in float64 on the same (already cast) inputs."""
    return BINARY[name](a.astype(np.float64), b.astype(np.float64))


def assert_matches(result, reference, dtype):
    """Correctly rounded ops are within half an ulp of the float64 reference."""
    assert result.dtype == dtype
    assert result.shape == reference.shape
    assert not np.isnan(result).any(), "an output element was not written"
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(result, reference, rtol=eps, atol=0)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_binary_sizes(backend, rng, name, dtype, n):
    a, b = random_array(rng, n, dtype), random_array(rng, n, dtype)
    result = getattr(gpuvec, name)(a, b)
    assert_matches(result, reference_binary(name, a, b), dtype)
    # Same dtype in NumPy: every op here is correctly rounded, so bit-identical.
    np.testing.assert_array_equal(result, BINARY[name](a, b))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_binary_layouts(backend, rng, name, dtype, layout):
    a = make_layout(rng, layout, dtype)
    b = make_layout(rng, layout, dtype)
    result = getattr(gpuvec, name)(a, b)
    np.testing.assert_array_equal(result, BINARY[name](a, b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_poisoned_out_is_fully_written(backend, rng, dtype):
    a, b = random_array(rng, (33, 65), dtype), random_array(rng, (33, 65), dtype)
    out = np.full((33, 65), np.nan, dtype)
    assert gpuvec.add(a, b, out=out) is out
    assert_matches(out, reference_binary("add", a, b), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_out_keeps_the_gaps(backend, rng, dtype):
    base = np.full(200, -7.0, dtype)
    out = base[::2]
    a, b = random_array(rng, 100, dtype), random_array(rng, 100, dtype)
    gpuvec.add(a, b, out=out)
    np.testing.assert_array_equal(out, a + b)
    np.testing.assert_array_equal(base[1::2], -7.0)  # user data between the elements survives


def test_in_place_and_aliasing(backend, rng):
    a = random_array(rng, 1001, np.float64)
    b = random_array(rng, 1001, np.float64)
    expected = a + b
    assert gpuvec.add(a, b, out=a) is a
    np.testing.assert_array_equal(a, expected)
    squared = b * b
    gpuvec.multiply(b, b, out=b)  # both inputs and out are one array
    np.testing.assert_array_equal(b, squared)


def test_partially_overlapping_out(backend, rng):
    base = random_array(rng, 1000, np.float64)
    a = base[:-1]
    expected = a + 1.0
    gpuvec.add(a, 1.0, out=base[1:])  # out is a shifted by one element
    np.testing.assert_array_equal(base[1:], expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcasting(backend, rng, dtype):
    a = random_array(rng, (7, 1, 5), dtype)
    b = random_array(rng, (6, 1), dtype)
    np.testing.assert_array_equal(gpuvec.subtract(a, b), a - b)
    np.testing.assert_array_equal(gpuvec.multiply(a, 3.5), a * dtype(3.5))
    np.testing.assert_array_equal(gpuvec.divide(2.0, a), dtype(2.0) / a)


def test_read_only_inputs(backend, rng):
    a = random_array(rng, 513, np.float64)
    a.flags.writeable = False
    np.testing.assert_array_equal(gpuvec.add(a, a), a + a)


def test_inputs_are_not_modified(backend, rng):
    a = random_array(rng, (20, 30), np.float64)[:, ::2]
    b = random_array(rng, (20, 15), np.float32)
    a_copy, b_copy = a.copy(), b.copy()
    gpuvec.axpy(2.0, a, b)
    np.testing.assert_array_equal(a, a_copy)
    np.testing.assert_array_equal(b, b_copy)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_scale(backend, rng, dtype, layout):
    x = make_layout(rng, layout, dtype)
    result = gpuvec.scale(x, 2.5)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, dtype(2.5) * x)


def test_doublify_in_place(backend, rng):
    m = random_array(rng, (4, 4), np.float32)
    expected = 2 * m
    gpuvec.scale(m, 2.0, out=m)
    np.testing.assert_array_equal(m, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_axpy(backend, rng, dtype, layout):
    x = make_layout(rng, layout, dtype)
    y = make_layout(rng, layout, dtype)
    alpha = rng.standard_normal()
    result = gpuvec.axpy(alpha, x, y)
    # gpuvec never fuses alpha * x + y into one rounding, just like NumPy.
    np.testing.assert_array_equal(result, dtype(alpha) * x + y)


def test_nan_and_inf_propagate(backend):
    a = np.array([np.nan, np.inf, -np.inf, 1.0, 0.0])
    b = np.array([1.0, 1.0, np.inf, 0.0, 0.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, ufunc in BINARY.items():
            np.testing.assert_array_equal(getattr(gpuvec, name)(a, b), ufunc(a, b))


def test_high_dimensional(backend, rng):
    a = random_array(rng, (2,) * 16, np.float64)[..., ::-1]
    b = random_array(rng, (2,) * 16, np.float64).T
    np.testing.assert_array_equal(gpuvec.add(a, b), a + b)


def test_backends_agree_bit_for_bit(rng):
    if not gpuvec.is_available():
        pytest.skip("needs the CUDA backend to compare with")
    a = random_array(rng, (301, 77), np.float32)[::-1, ::3]
    b = random_array(rng, (301, 26), np.float32)
    results = {}
    for name in ("host", "cuda"):
        previous = gpuvec.set_backend(name)
        try:
            results[name] = gpuvec.axpy(1.7, a, gpuvec.divide(a, b))
        finally:
            gpuvec.set_backend(previous)
    np.testing.assert_array_equal(results["host"], results["cuda"])
