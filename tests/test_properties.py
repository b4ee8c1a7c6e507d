"""Property tests: gpuvec against NumPy on generated shapes, strides and values.

Hypothesis draws shapes from empty to a few elements per side (0-size and
1-element arrays included), broadcasting partners, views with random steps
(negative ones too) over C- or Fortran-ordered memory, and values from
subnormal to the largest finite, with NaN, inf and -0.0. Ops that NumPy
computes exactly (arithmetic, comparisons, sqrt) must match it bit for bit,
NaN for NaN; the math library functions must be within their ulp budget
wherever NumPy's result is finite. HYPOTHESIS_PROFILE=gpu runs more examples
(see conftest.py).
"""

import math
import warnings

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tolerances import ULPS, assert_ulp_close

import gpuvec

DTYPES = [np.float32, np.float64]
# The backend fixture switches the backend once per test, which is all the
# examples of a test need: no reset between them.
property_test = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


def values(dtype, bound=None):
    """Floats of ``dtype``: subnormal to huge (up to ``bound``), NaN, inf, -0.0."""
    width = np.finfo(dtype).bits
    if bound is None:
        return st.floats(width=width, allow_subnormal=True)
    finite = st.floats(-bound, bound, width=width, allow_subnormal=True)
    return st.one_of(finite, st.sampled_from([np.nan, np.inf, -np.inf, -0.0]))


@st.composite
def arrays(draw, shape, dtype, elements):
    """An array of ``shape`` that is a view with random steps over C or F memory."""
    steps = [draw(st.sampled_from([1, 1, 2, 3, -1, -2])) for _ in shape]
    base_shape = tuple(n * abs(s) for n, s in zip(shape, steps, strict=True))
    base = draw(hnp.arrays(dtype, base_shape, elements=elements))
    if base.ndim >= 2 and draw(st.booleans()):
        base = np.asfortranarray(base)
    view = base[tuple(slice(None, None, s) for s in steps)]
    assert view.shape == tuple(shape)
    return view


def shapes(num_shapes):
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=0, max_dims=4, min_side=0, max_side=5
    )


def check_exact(result, expected):
    """Bit for bit (up to the sign of zero and NaN payloads), NaN for NaN."""
    expected = np.asarray(expected)
    assert np.asarray(result).dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def check_finite_within_ulps(result, expected64, dtype, ulps):
    """Within ``ulps`` ulp where NumPy's float64 result is finite in ``dtype``."""
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(np.asarray(expected64).astype(dtype))
    assert_ulp_close(np.asarray(result)[finite], np.asarray(expected64)[finite], dtype, ulps)


EXACT_BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
ULP_BINARY = {"power": np.power, "hypot": np.hypot, "atan2": np.arctan2}


@pytest.mark.parametrize("name", [*EXACT_BINARY, *ULP_BINARY])
@property_test
@given(data=st.data())
def test_binary(backend, name, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape_a, shape_b = data.draw(shapes(2)).input_shapes
    a = data.draw(arrays(shape_a, dtype, values(dtype)))
    b = data.draw(arrays(shape_b, dtype, values(dtype)))
    result = getattr(gpuvec, name)(a, b)
    with np.errstate(all="ignore"):
        if name in EXACT_BINARY:
            check_exact(result, EXACT_BINARY[name](a, b))
        else:
            expected = ULP_BINARY[name](a.astype(np.float64), b)
            check_finite_within_ulps(result, expected, dtype, ULPS[name])


EXACT_UNARY = {"negative": np.negative, "abs": np.abs, "sqrt": np.sqrt}
ULP_UNARY = {
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
}


def sigmoid64(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


@pytest.mark.parametrize("name", [*EXACT_UNARY, *ULP_UNARY, "sigmoid"])
@property_test
@given(data=st.data())
def test_unary(backend, name, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    x = data.draw(arrays(shape, dtype, values(dtype)))
    result = getattr(gpuvec, name)(x)
    with np.errstate(all="ignore"):
        if name in EXACT_UNARY:
            check_exact(result, EXACT_UNARY[name](x))
        else:
            reference = ULP_UNARY.get(name, sigmoid64)
            expected = reference(x.astype(np.float64))
            check_finite_within_ulps(result, expected, dtype, ULPS[name])
            # A NaN in gives a NaN out.
            assert np.isnan(np.asarray(result)[np.isnan(x)]).all()


@property_test
@given(data=st.data())
def test_clip(backend, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    sx, slo, shi = data.draw(shapes(3)).input_shapes
    x = data.draw(arrays(sx, dtype, values(dtype)))
    lo = data.draw(arrays(slo, dtype, values(dtype)))
    hi = data.draw(arrays(shi, dtype, values(dtype)))
    check_exact(gpuvec.clip(x, lo, hi), np.clip(x, lo, hi))


@property_test
@given(data=st.data())
def test_where(backend, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    sc, sa, sb = data.draw(shapes(3)).input_shapes
    cond = data.draw(arrays(sc, np.bool_, st.booleans()))
    a = data.draw(arrays(sa, dtype, values(dtype)))
    b = data.draw(arrays(sb, dtype, values(dtype)))
    check_exact(gpuvec.where(cond, a, b), np.where(cond, a, b))


@property_test
@given(data=st.data())
def test_axpby(backend, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    sx, sy = data.draw(shapes(2)).input_shapes
    x = data.draw(arrays(sx, dtype, values(dtype)))
    y = data.draw(arrays(sy, dtype, values(dtype)))
    alpha, beta = data.draw(st.tuples(values(dtype), values(dtype)))
    with np.errstate(all="ignore"):
        expected = dtype(alpha) * x + dtype(beta) * y
    check_exact(gpuvec.axpby(alpha, x, beta, y), expected)


# -- reductions ---------------------------------------------------------------------------------

REDUCTIONS = ["sum", "mean", "nansum", "nanmean", "prod", "min", "max", "argmin", "argmax"]
REDUCTIONS += ["var", "std"]
# Bounds on |x| that keep float64 intermediates finite, so that NumPy's order
# of operations and gpuvec's give the same inf and NaN: squares for var and
# std, sums of a few hundred elements for the sums.
BOUNDS = {"var": 2.0**500, "std": 2.0**500, "sum": 2.0**1000, "mean": 2.0**1000}


def prod_values(dtype):
    """Magnitudes 2**-12 to 2**12, so that no product of 81 of them over- or underflows."""
    width = np.finfo(dtype).bits
    magnitude = st.floats(2.0**-12, 2.0**12, width=width)
    signed = st.tuples(magnitude, st.booleans()).map(lambda m: -m[0] if m[1] else m[0])
    return st.one_of(signed, st.sampled_from([0.0, -0.0, np.nan, np.inf, -np.inf]))


@st.composite
def reduction_case(draw, name):
    dtype = draw(st.sampled_from(DTYPES))
    max_side = 3 if name == "prod" else 6
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=max_side))
    if name == "prod":
        elements = prod_values(dtype)
    else:
        # float32 data is reduced in float64, where no float32 value overflows.
        bound = BOUNDS.get(name.removeprefix("nan")) if dtype == np.float64 else None
        elements = values(dtype, bound)
    x = draw(arrays(shape, dtype, elements))
    ndim = len(shape)
    if name in ("argmin", "argmax"):
        axes = st.none() | (st.integers(-ndim, ndim - 1) if ndim else st.none())
    else:
        some = st.lists(st.integers(0, ndim - 1), unique=True).map(
            lambda ax: tuple(a - ndim if i % 2 else a for i, a in enumerate(ax))
        )
        axes = st.none() | (st.integers(-ndim, ndim - 1) | some if ndim else st.just(()))
    return x, draw(axes), draw(st.booleans())


def reference(name, x, axis, keepdims):
    """NumPy's float64 answer, or the exception it raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return np.asarray(
                getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=keepdims)
            )
        except ValueError as exc:
            return exc


@pytest.mark.parametrize("name", REDUCTIONS)
@property_test
@given(data=st.data())
def test_reductions(backend, name, data):
    x, axis, keepdims = data.draw(reduction_case(name))
    dtype = x.dtype.type
    expected = reference(name, x, axis, keepdims)
    if isinstance(expected, ValueError):
        with pytest.raises(ValueError, match=r"zero-size array|empty sequence"):
            getattr(gpuvec, name)(x, axis=axis, keepdims=keepdims)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = getattr(gpuvec, name)(x, axis=axis, keepdims=keepdims)
    if axis is None and not keepdims:
        assert isinstance(result, int if name.startswith("arg") else float)
        result = np.asarray(result, np.int64 if name.startswith("arg") else dtype)
    assert result.shape == expected.shape
    if name in ("min", "max", "argmin", "argmax"):
        np.testing.assert_array_equal(result, expected.astype(result.dtype))
        return
    assert result.dtype == dtype
    x64 = np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    n = math.prod(x.shape) // max(expected.size, 1) if x.size else 0
    eps, eps64 = float(np.finfo(dtype).eps), float(np.finfo(np.float64).eps)
    with np.errstate(all="ignore"):
        if name in ("var", "std"):
            scale = np.mean(x64**2, axis=axis, keepdims=keepdims) if x.size else 0
        elif name == "prod":
            scale = np.abs(expected)
        else:
            scale = np.sum(np.abs(x64), axis=axis, keepdims=keepdims)
            if name in ("mean", "nanmean"):
                scale = scale / max(n, 1)
        expected_in_dtype = expected.astype(dtype)
    finite = np.isfinite(expected_in_dtype)
    np.testing.assert_array_equal(result[~finite], expected_in_dtype[~finite])  # NaN for NaN
    # The final rounding to dtype: relative for normal numbers, one ulp for subnormal ones.
    with np.errstate(all="ignore"):
        rounding = 4 * eps * np.abs(expected) + np.spacing(np.abs(expected_in_dtype))
    tol = rounding + 8 * (n + 1) * eps64 * scale
    if name == "std":  # the square root of var's tolerance
        tol = rounding + np.sqrt(8 * (n + 1) * eps64 * scale)
    with np.errstate(all="ignore"):
        error = np.abs(result.astype(np.float64) - expected)
    assert np.all(error[finite] <= np.broadcast_to(tol, error.shape)[finite]), (
        result,
        expected,
    )


@property_test
@given(data=st.data())
def test_norm_and_asum(backend, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    x = data.draw(arrays(shape, dtype, values(dtype)))
    x64 = np.abs(x.astype(np.float64))
    norm, asum = gpuvec.norm(x), gpuvec.asum(x)
    if np.isnan(x64).any():
        assert math.isnan(norm)
        assert math.isnan(asum)
        return
    if np.isinf(x64).any():
        assert norm == math.inf
        assert asum == math.inf
        return
    scale = float(x64.max()) if x.size else 0.0
    exact = scale * math.sqrt(math.fsum((x64 / scale).ravel() ** 2)) if scale else 0.0
    # A subnormal result is rounded to a whole number of dtype's smallest
    # subnormal, whatever its relative error.
    tiny = max(1e-320, float(np.finfo(dtype).smallest_subnormal))
    with np.errstate(over="ignore"):
        exact_in_dtype = float(dtype(exact))
    if math.isinf(exact_in_dtype):
        assert norm == math.inf
    else:  # a few roundings per element, in float64, then one to dtype
        rel = 4 * float(np.finfo(dtype).eps) + 4 * x.size * 2.0**-52
        assert norm == pytest.approx(exact, rel=rel, abs=tiny)
    try:
        total = math.fsum(x64.ravel())
    except OverflowError:  # beyond the largest float64
        total = math.inf
    with np.errstate(over="ignore"):
        total_in_dtype = float(dtype(total))
    if math.isinf(total_in_dtype):
        assert asum == math.inf
    else:
        rel = 4 * float(np.finfo(dtype).eps) + 4 * x.size * 2.0**-52
        assert asum == pytest.approx(total, rel=rel, abs=tiny)
