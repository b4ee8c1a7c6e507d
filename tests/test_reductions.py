"""sum and dot against NumPy's float64 results."""

import math

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array

import gpuvec

DTYPES = [np.float32, np.float64]


def assert_close_sum(result, terms, dtype):
    """Within a few roundings of the exact float64 sum of the terms."""
    assert isinstance(result, float)
    terms = np.asarray(terms, dtype=np.float64)
    exact = math.fsum(terms.ravel())
    scale = math.fsum(np.abs(terms).ravel())
    # Accumulating in float64 leaves only the final rounding to dtype.
    tol = 4 * np.finfo(dtype).eps * max(abs(exact), 1e-300) + 1e-12 * scale
    assert abs(result - exact) <= tol, (result, exact)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sum_sizes(backend, rng, dtype, n):
    x = random_array(rng, n, dtype)
    assert_close_sum(gpuvec.sum(x), x, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_dot_sizes(backend, rng, dtype, n):
    x, y = random_array(rng, n, dtype), random_array(rng, n, dtype)
    assert_close_sum(gpuvec.dot(x, y), x.astype(np.float64) * y, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reductions_layouts(backend, rng, dtype, layout):
    x = make_layout(rng, layout, dtype)
    y = make_layout(rng, layout, dtype)
    assert_close_sum(gpuvec.sum(x), x, dtype)
    assert_close_sum(gpuvec.dot(x, y), np.asarray(x, np.float64) * y, dtype)


def test_classic_sum_of_arange(backend):
    assert gpuvec.sum(np.arange(53735, dtype=np.float64)) == 53734 * 53735 // 2


def test_float32_sum_is_accurate(backend):
    # A naive float32 running sum of 2^24 + 1 ones stops at 2^24.
    x = np.ones((1 << 24) + 1, np.float32)
    assert gpuvec.sum(x) == float(np.float32((1 << 24) + 1))


def test_sum_is_deterministic(backend, rng):
    x = random_array(rng, 1_000_003, np.float32)
    first = gpuvec.sum(x)
    assert all(gpuvec.sum(x) == first for _ in range(5))


def test_empty_and_special_values(backend):
    assert gpuvec.sum(np.array([])) == 0.0
    assert gpuvec.dot(np.zeros((0, 3)), np.zeros((0, 3))) == 0.0
    assert math.isnan(gpuvec.sum(np.array([1.0, np.nan, 2.0])))
    assert gpuvec.sum(np.array([1.0, np.inf])) == math.inf
    assert math.isnan(gpuvec.sum(np.array([np.inf, -np.inf])))


def test_list_and_int_inputs(backend):
    assert gpuvec.sum([1, 2, 3]) == 6.0
    assert gpuvec.dot([True, False, True], [2, 3, 4]) == 6.0


def test_broadcast_input(backend, rng):
    row = random_array(rng, 17, np.float64)
    x = np.broadcast_to(row, (1000, 17))
    assert_close_sum(gpuvec.sum(x), x, np.float64)


@pytest.mark.parametrize("threads", [32, 64, 1024])
def test_reduction_block_sizes(backend, rng, threads):
    x = random_array(rng, 100_003, np.float64)
    assert_close_sum(gpuvec.sum(x, threads_per_block=threads), x, np.float64)
