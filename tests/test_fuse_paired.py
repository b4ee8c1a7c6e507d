"""gpuvec.fuse: a mean and a std or var of one value over the same axes, as one pass.

The fused plan runs them as one reduction (gpuvec.reductions._mean_and_deviation),
whose deviation is gpuvec.std's and whose mean is as accurate as gpuvec.mean's
but not always the same bits (tests/test_reductions_paired.py). So the
fused standardisation ``(x - mean) / std`` is compared with the function run
op by op within the error that a mean off by MEAN_EPS * log2(n) eps of
mean(|x|) leaves after the division by std, plus RESULT_ULPS ulps of the result.
"""

import math

import numpy as np
import pytest
from conftest import random_array
from test_fuse import eager, host, on

import gpuvec

MEAN_EPS = 16
RESULT_ULPS = 8


@gpuvec.fuse
def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def assert_standardized_close(result, expected, x, axis, dtype):
    result, expected = np.asarray(host(result)), np.asarray(expected)
    assert result.dtype == expected.dtype == dtype
    assert result.shape == expected.shape
    special = ~np.isfinite(expected)  # 0 / 0 where a row is constant
    np.testing.assert_array_equal(result[special], expected[special])
    x64 = np.asarray(x, np.float64)
    n = x64.size // max(np.mean(x64, axis=axis, keepdims=True).size, 1)
    eps = np.finfo(dtype).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.std(x64, axis=axis, keepdims=True)
        scale = np.mean(np.abs(x64), axis=axis, keepdims=True) / spread
    tol = MEAN_EPS * max(np.log2(n), 1) * eps * scale + RESULT_ULPS * eps * np.abs(expected)
    error = np.abs(result.astype(np.float64) - expected)
    assert np.all(error[~special] <= np.broadcast_to(tol, error.shape)[~special])


def steps(fn, *args):
    return [line for line in str(fn.explain(*args)).splitlines() if line.startswith("step ")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(100_003, 8), (1000, 3), (65537, 1), (5, 40), (1, 7)])
def test_standardize_matches_the_eager_function(backend, rng, dtype, shape):
    x = random_array(rng, shape, dtype) + 3
    result = standardize(on(backend, x))
    assert isinstance(result, gpuvec.DeviceArray if backend == "cuda" else np.ndarray)
    assert_standardized_close(result, eager(standardize, x), x, 0, dtype)
    # and the answer of float64 sums correctly rounded (math.fsum), which
    # NumPy's np.std of 10^5 values misses by up to about 30 eps
    x64 = x.astype(np.float64)
    mean = np.apply_along_axis(math.fsum, 0, x64) / len(x64)
    std = np.sqrt(np.apply_along_axis(math.fsum, 0, (x64 - mean) ** 2) / len(x64))
    with np.errstate(invalid="ignore"):  # 0 / 0 where a column is constant
        expected = ((x64 - mean) / std).astype(dtype)
    assert_standardized_close(result, expected, x, 0, dtype)


def test_device_arrays_on_the_host_backend(rng):
    x = random_array(rng, (1001, 8), np.float64)
    result = standardize(gpuvec.asarray(x))
    assert isinstance(result, gpuvec.DeviceArray)
    assert_standardized_close(result, eager(standardize, x), x, 0, np.float64)


def test_explain_shows_one_reduction_pass(backend, rng):
    m, c = 1000, 8
    x = on(backend, random_array(rng, (m, c), np.float64))
    explanation = standardize.explain(x)
    text = str(explanation)
    lines = steps(standardize, x)
    assert len(lines) == 2, text
    assert "gpuvec.mean(x, axis=0) and gpuvec.std(x, axis=0)" in lines[0]
    assert "one reduction pass, reading x once" in lines[0]
    assert "fused kernel" in lines[1]
    # the pass reads x once and writes both rows; the kernel reads x and both, writes the result
    assert explanation.fused_bytes == (m * c + 2 * c + m * c + 2 * c + m * c) * 8
    # eager: mean and std each read x; subtract and divide each read and write
    assert explanation.eager_bytes == (2 * (m * c + c) + 2 * (m * c + c + m * c)) * 8


@pytest.mark.parametrize("ddof", [0, 1])
def test_var_with_ddof_and_keepdims_is_paired(backend, rng, ddof):
    # Along columns (along rows, the two are one pass of a row kernel: test_fuse_rows.py).
    @gpuvec.fuse
    def scaled(x):
        v = x.var(axis=0, ddof=ddof, keepdims=True)
        return (x - gpuvec.mean(x, axis=-2, keepdims=True)) / gpuvec.sqrt(v)

    x = random_array(rng, (1001, 37), np.float64)
    lines = steps(scaled, on(backend, x))
    assert "one reduction pass" in lines[0]
    assert "gpuvec.var(" in lines[0]
    assert "gpuvec.mean(" in lines[0]
    result = scaled(on(backend, x))
    expected = eager(scaled, x)
    x64 = x - x.mean(axis=0, keepdims=True)
    expected64 = x64 / np.sqrt(x.var(axis=0, ddof=ddof, keepdims=True))
    assert_standardized_close(result, expected, x, 0, np.float64)
    assert_standardized_close(result, expected64, x, 0, np.float64)


def test_the_deviation_may_come_first(backend, rng):
    @gpuvec.fuse
    def f(x):
        s = x.std(axis=0)
        y = x / s  # a kernel between the two reductions
        return y, y - x.mean(axis=0) / s

    x = random_array(rng, (501, 4), np.float64)
    lines = steps(f, on(backend, x))
    assert "gpuvec.mean(x, axis=0) and gpuvec.std(x, axis=0)" in lines[0]
    assert "one reduction pass" in lines[0]
    result, expected = host(f(on(backend, x))), eager(f, x)
    np.testing.assert_array_equal(result[0], expected[0])  # the deviation is std's
    assert_standardized_close(result[1], expected[1], x, 0, np.float64)


def test_a_computed_value_is_paired(backend, rng):
    @gpuvec.fuse
    def f(x):
        y = 2.0 * x + 1.0
        return (y - y.mean(axis=0)) / y.std(axis=0)

    x = random_array(rng, (999, 5), np.float32)
    lines = steps(f, on(backend, x))
    assert len(lines) == 3  # y's kernel, the pair, the result's kernel
    assert "one reduction pass, reading step 1's result once" in lines[1]
    y = 2.0 * x.astype(np.float64) + 1.0
    assert_standardized_close(f(on(backend, x)), eager(f, x), y, 0, np.float32)


def test_whole_array_mean_and_std_give_numbers_as_eager(rng):
    @gpuvec.fuse
    def centred(x):
        return (x - gpuvec.mean(x)) / x.std(ddof=1), gpuvec.mean(x), gpuvec.std(x, ddof=1)

    x = random_array(rng, 50, np.float64)
    assert "one reduction pass" in steps(centred, x)[0]
    result, expected = centred(x), centred.__wrapped__(x)  # NumPy in: numbers out
    assert type(result[1]) is type(expected[1]) is float
    assert result[2] == expected[2]
    assert result[1] == pytest.approx(expected[1], abs=64 * np.finfo(float).eps * 10)


@pytest.mark.parametrize(
    "body",
    [
        lambda x, y: (x.mean(axis=0), x.std(axis=1)),  # other axes
        lambda x, y: (x.mean(axis=0), y.std(axis=0)),  # another source
        lambda x, y: (x.mean(axis=0), (x + 0.0).std(axis=0)),  # another value of the same data
        lambda x, y: (x.mean(axis=0, keepdims=True), x.std(axis=0)),  # keepdims differs
        lambda x, y: (x.mean(axis=None), x.std(axis=(0, 1))),  # a number against an array
        lambda x, y: (x.mean(axis=0, dtype=np.float32), x.std(axis=0)),  # dtype differs
        lambda x, y: (x.sum(axis=0), x.std(axis=0)),  # not a mean
    ],
)
def test_what_is_not_paired(backend, rng, body):
    f = gpuvec.fuse(lambda x, y: body(x, y))
    x, y = random_array(rng, (40, 6), np.float64), random_array(rng, (40, 6), np.float64)
    args = on(backend, x), on(backend, y)
    text = "\n".join(steps(f, *args))
    assert "one reduction pass" not in text
    assert text.count("runs as gpuvec's reduction") == 2
    for got, expected in zip(host(f(*args)), eager(f, x, y), strict=True):
        np.testing.assert_array_equal(got, expected)


def test_two_means_and_one_std_pair_once(backend, rng):
    @gpuvec.fuse
    def f(x):
        return x.mean(axis=0), x.mean(axis=0) * 2.0, x.std(axis=0)

    x = random_array(rng, (300, 5), np.float64)
    text = "\n".join(steps(f, on(backend, x)))
    assert text.count("one reduction pass") == 1
    assert text.count("runs as gpuvec's reduction") == 1
    result, expected = host(f(on(backend, x))), eager(f, x)
    np.testing.assert_array_equal(result[2], expected[2])
    for k in (0, 1):
        np.testing.assert_allclose(result[k], expected[k], rtol=0, atol=1e-13 * 10)
