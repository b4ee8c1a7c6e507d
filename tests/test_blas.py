"""axpby, norm and asum against NumPy."""

import math

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array
from tolerances import assert_sum_close

import gpuvec

DTYPES = [np.float32, np.float64]


# -- axpby --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_axpby_sizes(backend, rng, dtype, n):
    x, y = random_array(rng, n, dtype), random_array(rng, n, dtype)
    alpha, beta = (float(v) for v in rng.standard_normal(2))  # Python floats are weak
    result = gpuvec.axpby(alpha, x, beta, y)
    assert result.dtype == dtype
    # Two roundings of products, one of the sum, never fused: exactly NumPy's.
    np.testing.assert_array_equal(result, dtype(alpha) * x + dtype(beta) * y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_axpby_layouts(backend, rng, dtype, layout):
    x, y = make_layout(rng, layout, dtype), make_layout(rng, layout, dtype)
    np.testing.assert_array_equal(
        gpuvec.axpby(1.5, x, -0.25, y), dtype(1.5) * x + dtype(-0.25) * y
    )


def test_axpby_broadcasting_out_and_in_place(backend, rng):
    x = random_array(rng, (7, 1, 5), np.float32)
    y = random_array(rng, (6, 1), np.float32)
    expected = np.float32(2) * x + np.float32(3) * y
    np.testing.assert_array_equal(gpuvec.axpby(2.0, x, 3.0, y), expected)
    out = np.full((7, 6, 5), np.nan, np.float32)
    assert gpuvec.axpby(2.0, x, 3.0, y, out=out) is out
    np.testing.assert_array_equal(out, expected)
    z = random_array(rng, 1001, np.float64)
    w = random_array(rng, 1001, np.float64)
    expected = 0.5 * w + 2.0 * z
    gpuvec.axpby(0.5, w, 2.0, z, out=z)  # y = alpha * x + beta * y, in place
    np.testing.assert_array_equal(z, expected)


def test_axpby_bad_input(backend):
    with pytest.raises(TypeError, match="beta must be a real scalar"):
        gpuvec.axpby(1.0, np.ones(3), np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match="alpha must be a real scalar"):
        gpuvec.axpby("1", np.ones(3), 1.0, np.ones(3))
    with pytest.raises(ValueError, match=r"x \(3,\) and y \(4,\) cannot be broadcast"):
        gpuvec.axpby(1.0, np.ones(3), 1.0, np.ones(4))
    with pytest.raises(TypeError, match="on complex numbers yet"):
        gpuvec.axpby(1.0, np.ones(3), 1.0, np.ones(3, complex))
    out = np.full(3, 7.0)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        gpuvec.axpby(1.0, np.ones(3), 1.0, np.ones(3), out=out)
    np.testing.assert_array_equal(out, 7.0)


# -- norm and asum ------------------------------------------------------------------------------


def exact_norm(x):
    """The norm in float64, scaled by hand so that nothing overflows."""
    x = np.abs(np.asarray(x, np.float64))
    if x.size == 0:
        return 0.0
    scale = x.max()
    if scale == 0 or not np.isfinite(scale):
        return float(scale)
    return float(scale * np.sqrt(math.fsum((x / scale).ravel() ** 2)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_norm_and_asum_sizes(backend, rng, dtype, n):
    x = random_array(rng, n, dtype)
    result = gpuvec.norm(x)
    assert isinstance(result, float)
    # A running scale costs a few roundings per element, in float64.
    rtol = 2 * float(np.finfo(dtype).eps) + 8 * 2.0**-52 * math.sqrt(max(n, 1))
    assert result == pytest.approx(exact_norm(x), rel=rtol, abs=0)
    absx = np.abs(x.astype(np.float64))
    assert_sum_close(gpuvec.asum(x), math.fsum(absx), math.fsum(absx), dtype, n)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_norm_and_asum_layouts(backend, rng, dtype, layout):
    x = make_layout(rng, layout, dtype)
    rtol = 2 * float(np.finfo(dtype).eps) + 8 * 2.0**-52 * math.sqrt(x.size)
    assert gpuvec.norm(x) == pytest.approx(exact_norm(x), rel=rtol)
    absx = np.abs(x.astype(np.float64)).ravel()
    assert_sum_close(gpuvec.asum(x), math.fsum(absx), math.fsum(absx), dtype, x.size)


def test_norm_neither_overflows_nor_underflows(backend):
    assert gpuvec.norm(np.array([1e200, 1e200])) == pytest.approx(math.sqrt(2) * 1e200, rel=1e-15)
    assert gpuvec.norm(np.array([1e-200, 1e-200])) == pytest.approx(
        math.sqrt(2) * 1e-200, rel=1e-15
    )
    assert gpuvec.norm(np.array([3e-320, 4e-320])) == pytest.approx(5e-320, rel=1e-3)  # subnormal
    assert gpuvec.norm(np.full(1000, 1e300)) == pytest.approx(math.sqrt(1000) * 1e300, rel=1e-14)
    big = np.float32(3e38)
    assert gpuvec.norm(np.array([big, big])) == math.inf  # 4.2e38 is beyond float32
    assert gpuvec.norm(np.array([big, big]), dtype=np.float64) == pytest.approx(
        math.sqrt(2) * float(big), rel=1e-15
    )
    tiny = np.float32(1e-30)
    assert gpuvec.norm(np.array([tiny, tiny])) == pytest.approx(
        math.sqrt(2) * float(tiny), rel=1e-7
    )
    # A float32 subnormal result: the exact norm rounded once to float32.
    sub = np.float32(1.1349e-41)
    exact = math.sqrt(2) * float(sub)
    assert gpuvec.norm(np.array([sub, sub])) == float(np.float32(exact))


def test_norm_special_values(backend):
    assert gpuvec.norm(np.array([])) == 0.0
    assert gpuvec.norm(np.zeros(5)) == 0.0
    assert gpuvec.norm(np.array([np.inf, 1.0])) == math.inf
    assert gpuvec.norm(np.array([np.inf, np.inf, -np.inf])) == math.inf
    assert math.isnan(gpuvec.norm(np.array([np.inf, np.nan])))
    assert math.isnan(gpuvec.norm(np.array([np.nan, np.inf, 0.0])))
    assert math.isnan(gpuvec.norm(np.array([0.0, np.nan])))
    assert gpuvec.norm([3, 4]) == 5.0
    assert gpuvec.asum([]) == 0.0
    assert gpuvec.asum([-np.inf, 1.0]) == math.inf
    assert math.isnan(gpuvec.asum([np.nan, 1.0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_norm_and_asum_over_axes(backend, rng, dtype):
    x = random_array(rng, (5, 6, 7), dtype)
    x64 = x.astype(np.float64)
    rtol = 4 * float(np.finfo(dtype).eps) + 2.0**-45
    for axis in (0, -1, (0, 2)):
        result = gpuvec.norm(x, axis=axis)
        assert result.dtype == dtype
        np.testing.assert_allclose(result, np.linalg.norm(x64, axis=axis), rtol=rtol)
        np.testing.assert_allclose(
            gpuvec.asum(x, axis=axis), np.sum(np.abs(x64), axis=axis), rtol=rtol
        )
    assert gpuvec.norm(x, axis=1, keepdims=True).shape == (5, 1, 7)


def test_norm_bad_input(backend):
    with pytest.raises(TypeError, match="on complex numbers yet"):
        gpuvec.norm(np.ones(3, complex))
    with pytest.raises(TypeError, match=r"x has dtype datetime64\[D\]"):
        gpuvec.asum(np.array(["2026-11-21"], dtype="datetime64[D]"))
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        gpuvec.asum(np.ones(3), axis=1)
