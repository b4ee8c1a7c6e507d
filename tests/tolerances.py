"""How close a result must be to NumPy's float64 reference, stated once: from the op table."""

import warnings

import numpy as np

from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS
from gpuvec.ufuncs import ALIASES

# Units in the last place that each op may be off by, counted against the
# float64 reference rounded to the result's dtype: the op table's host_ulps
# and cuda_ulps columns (csrc/include/gpuvec/op_table.h), which hold the
# documented error of the C and the CUDA math libraries (a few ulp for exp,
# sin, pow, ...), half an ulp for the rounding of the reference itself, and,
# for float64 results, the reference's own error (NumPy's float64 functions
# are within about one ulp). Correctly rounded ops have a budget of 0: they
# must give the reference exactly. ULPS[name] is the larger of the two, for
# tests that run on either backend; ulps(name, backend) the backend's own.
_ROWS = {**ELEMENTWISE_OPS, **{a: ELEMENTWISE_OPS[n] for a, n in ALIASES.items()}}
ULPS = {name: max(row.host_ulps, row.cuda_ulps) for name, row in _ROWS.items()}


def ulps(name, backend):
    """The ulp budget of elementwise op ``name`` on ``backend`` ("host" or "cuda")."""
    return _ROWS[name].ulps(backend)


def is_exact(name):
    """Whether elementwise op ``name`` is correctly rounded: NumPy's bits, on both backends."""
    return _ROWS[name].exact


def _positive(x):
    return np.abs(x) + x.dtype.type(1e-3)


def _with_halves(x):
    """Every other element an integer or an exact half (the ties of rounding)."""
    ties = np.round(x * 2) / 2
    every_other = np.arange(x.size).reshape(x.shape) % 2 == 0
    return np.where(every_other, ties, x).astype(x.dtype)


def _off_zero_result(x):
    """No element in [-1, 0): logaddexp's result is then at least 0.3 away
    from 0, near which it is ill-conditioned (its relative error there grows
    without bound, in NumPy's float64 reference too)."""
    return np.where((x < 0) & (x >= -1), x - 1, x).astype(x.dtype)


# Where the budgets hold: name -> per operand, a map from random data (both
# signs, |x| mostly below 40, of any float dtype) into the op's domain. The
# other ops take the data as it is.
DOMAINS = {
    "sqrt": (_positive,),
    "log": (_positive,),
    "log2": (_positive,),
    "log10": (_positive,),
    "log1p": (lambda x: np.abs(x) - x.dtype.type(0.999),),
    "arcsin": (np.sin,),  # all of [-1, 1], dense near the ends
    "arccos": (np.cos,),
    "arctanh": (lambda x: x.dtype.type(0.999) * np.sin(x),),
    "arccosh": (lambda x: np.abs(x) + 1,),
    "tanh": (lambda x: x / x.dtype.type(5),),
    "floor": (_with_halves,),
    "ceil": (_with_halves,),
    "round": (_with_halves,),
    "trunc": (_with_halves,),
    # Positive bases and moderate exponents: finite results of any size.
    "power": (lambda x: np.abs(x) / 5 + x.dtype.type(0.05), lambda x: x / x.dtype.type(4)),
    "logaddexp": (_off_zero_result, _off_zero_result),
}


def in_domain(name, i, x):
    """Operand ``i`` of op ``name``: the data ``x`` mapped into its domain."""
    maps = DOMAINS.get(name, ())
    return maps[i](x) if i < len(maps) else x


def assert_ulp_close(result, reference, dtype, ulps):
    """Asserts that ``result`` is within ``ulps`` ulp of ``reference``.

    ``reference`` is a float64 array computed from the same (already cast)
    inputs. Where the reference, rounded to ``dtype``, is not finite the
    result must match it exactly (NaN with NaN, inf with inf of the same
    sign). Where the reference is finite but within the budget of the largest
    finite number, the result may overflow to inf.
    """
    result = np.asarray(result)
    assert result.dtype == dtype, (result.dtype, dtype)
    ref64 = np.asarray(reference, dtype=np.float64)
    assert result.shape == ref64.shape, (result.shape, ref64.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = ref64.astype(dtype)
    special = ~np.isfinite(ref)
    np.testing.assert_array_equal(result[special], ref[special])
    finite = ~special
    got = result[finite].astype(np.float64)
    want = ref64[finite]
    with np.errstate(over="ignore", invalid="ignore"):
        spacing = np.spacing(np.abs(ref[finite])).astype(np.float64)
        error = np.abs(got - want)
    edge = np.abs(want) >= np.finfo(dtype).max * (1 - (ulps + 1) * np.finfo(dtype).eps)
    ok = (error <= (ulps + 0.5) * spacing) | (edge & np.isinf(got))
    if not ok.all():
        bad = np.flatnonzero(~ok)[:5]
        raise AssertionError(
            f"{(~ok).sum()} of {ok.size} elements are more than {ulps} ulp off; "
            f"first: got {got[bad]}, expected {want[bad]} (errors in ulp: "
            f"{error[bad] / spacing[bad]})"
        )


def assert_sum_close(result, exact, magnitude, dtype, n):
    """Asserts a sum-like result against its float64 reference.

    Accumulating in float64 leaves two errors: the final rounding to
    ``dtype`` (a few eps of the result) and float64 rounding along the way,
    bounded by about n * eps64 times ``magnitude``, the sum of |terms|.
    """
    result = np.asarray(result, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    magnitude = np.asarray(magnitude, dtype=np.float64)
    eps = float(np.finfo(dtype).eps)
    tol = 4 * eps * np.abs(exact) + 4 * max(n, 1) * np.finfo(np.float64).eps * magnitude
    tol = tol + np.finfo(dtype).tiny
    special = ~np.isfinite(exact)
    np.testing.assert_array_equal(result[special], exact[special])
    error = np.abs(result - exact)
    assert np.all(error[~special] <= tol[~special]), (result, exact, tol)


# Reductions whose result must be NumPy's exactly: a chosen element or its
# index (the rows without a value for no elements, having no identity).
INDEX_REDUCTIONS = {row.name for row in REDUCE_OPS.values() if row.position}
EXACT_REDUCTIONS = {row.name for row in REDUCE_OPS.values() if row.no_empty}


def reduction_reference(name, x, axis=None, keepdims=False, ddof=0):
    """NumPy's ``name`` in float64 on the same (already cast) data."""
    kwargs = {"axis": axis, "keepdims": keepdims}
    if REDUCE_OPS[name].ddof:
        kwargs["ddof"] = ddof
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(np, name)(np.asarray(x, np.float64), **kwargs))


def assert_reduction_close(name, result, x, dtype, axis=None, keepdims=False, ddof=0):
    """Asserts a reduction's values against NumPy's float64 reference.

    ``result`` is what gpuvec returned (any array-like: a number, a NumPy
    array, a host copy of a DeviceArray); ``x`` the (already cast) input and
    ``dtype`` the dtype the reduction computed in. Shapes must match NumPy's;
    min, max, argmin and argmax must match exactly, the sums, means, products
    and spreads within the error of a float64 accumulation plus one rounding
    to ``dtype``.
    """
    expected = reduction_reference(name, x, axis, keepdims, ddof)
    result = np.asarray(result)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    if name in EXACT_REDUCTIONS:
        np.testing.assert_array_equal(result, expected)
        return
    x64 = np.asarray(x, np.float64)
    n = x64.size // max(expected.size, 1)
    if name in ("sum", "mean", "nansum", "nanmean"):
        finite = np.nan_to_num(x64, nan=0.0)
        magnitude = np.sum(np.abs(finite), axis=axis, keepdims=keepdims)
        if name == "mean":
            magnitude = magnitude / max(n, 1)
        elif name == "nanmean":
            count = np.sum(~np.isnan(x64), axis=axis, keepdims=keepdims)
            magnitude = magnitude / np.maximum(count, 1)
        assert_sum_close(result, expected, magnitude, dtype, n)
    elif name == "prod":
        rtol = 4 * np.finfo(dtype).eps + 4 * n * np.finfo(np.float64).eps
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=np.finfo(dtype).tiny)
    elif name in ("var", "std"):
        # Two passes in float64, rounded once. Rounding errors scale with the
        # data's mean square, not with the variance, which may be tiny.
        mean_square = np.mean(x64**2, axis=axis, keepdims=keepdims) if x64.size else 0.0
        atol = 8 * (n + 1) * np.finfo(np.float64).eps * mean_square
        if name == "std":
            atol = np.sqrt(atol)
        tol = 4 * np.finfo(dtype).eps * np.abs(expected) + atol + np.finfo(dtype).tiny
        special = ~np.isfinite(expected)
        np.testing.assert_array_equal(result[special], expected[special])
        error = np.abs(result.astype(np.float64) - expected)
        assert np.all(error[~special] <= np.broadcast_to(tol, error.shape)[~special]), (
            result,
            expected,
        )
    else:
        raise AssertionError(f"no tolerance stated for the reduction {name!r}")
