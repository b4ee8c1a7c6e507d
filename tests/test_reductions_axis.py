"""Reductions over axes against NumPy: every op, dtype, axis, shape and layout.

The ops are the op table's public reductions of a number (gpuvec._table;
any, all and count_nonzero are tests/test_truth_reductions.py's), so a new
reduction row is tested here without an edit.
"""

import re
import warnings

import numpy as np
import pytest
from conftest import LAYOUTS, make_layout, random_array
from tolerances import assert_sum_close

import gpuvec
from gpuvec._table import REDUCE_OPS

ROWS = {name: row for name, row in REDUCE_OPS.items() if row.public and not row.own_dtype}
OPS = list(ROWS)
INDEX_OPS = {name for name, row in ROWS.items() if row.position}
# A chosen element (no identity, so no value for no elements): NumPy's exactly.
EXACT_OPS = {name for name, row in ROWS.items() if row.no_empty and not row.position}
NEEDS_ELEMENTS = {name for name, row in ROWS.items() if row.no_empty}
# The tolerances, by the row's policy: float64 sums, products, and the spreads.
SUM_POLICIES = {"Sum", "Mean", "NanSum", "NanMean"}
SPREAD_POLICIES = {"Var", "Std"}
DTYPES = [np.float32, np.float64]


def ignoring_short_slice_warnings(test):
    """``test``, with NumPy's warnings for slices of NaN alone (the table's
    warning column of the NaN-skipping rows) ignored: the data has some."""
    for row in ROWS.values():
        if row.skips_nan and row.warning:
            mark = pytest.mark.filterwarnings(f"ignore:{re.escape(row.warning)}:RuntimeWarning")
            test = mark(test)
    return test


# (shape, axis). The larger ones pick each launch shape of the CUDA backend:
# many short rows, few long rows (split over blocks), side-by-side rows (a
# column reduction, in tiles), and long side-by-side rows (tiles split too).
CASES = [
    ((1,), None),
    ((7,), 0),
    ((1023,), -1),
    ((3, 5), 0),
    ((3, 5), 1),
    ((3, 5), (0, 1)),
    ((37, 41), None),
    ((0, 5), 1),
    ((2, 3, 4, 5), (0, 2)),
    ((2, 3, 4, 5), (1, -1)),
    ((2, 3, 4, 5), -2),
    ((100_003, 3), 1),
    ((3, 100_003), 1),
    ((40, 1000), 1),
    ((1000, 40), 0),
    ((100_003, 40), 0),
    ((2_001, 13), 0),  # the host's column walk: blocks of rows, columns not in 8s
    ((8, 50_000), 0),
    ((5, 3), 0),
    ((1_000_003,), None),
]


def data(rng, name, shape, dtype):
    """Random data for op `name`: near 1 for prod (no overflow), with NaN for the nan-ops."""
    x = random_array(rng, shape, dtype)
    if name == "prod":
        x = (1 + x / 1000).astype(dtype)
    if ROWS[name].skips_nan and x.size > 2:
        x.reshape(-1)[::7] = np.nan
    return x


def reference(name, x, axis, keepdims=False, ddof=0):
    """NumPy's answer in float64 on the same (already cast) data."""
    kwargs = {"axis": axis, "keepdims": keepdims}
    if ROWS[name].ddof:
        kwargs["ddof"] = ddof
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(np, name)(np.asarray(x, np.float64), **kwargs))


def check(name, result, x, axis, dtype, keepdims=False, ddof=0):
    """The result matches NumPy, exactly or within the op's tolerance."""
    expected = reference(name, x, axis, keepdims, ddof)
    if axis is None and not keepdims:
        assert isinstance(result, int if name in INDEX_OPS else float), type(result)
    else:
        assert isinstance(result, (np.ndarray, np.generic)), type(result)
        assert result.dtype == (np.int64 if name in INDEX_OPS else dtype)
    result = np.asarray(result)
    assert result.shape == expected.shape
    if name in INDEX_OPS or name in EXACT_OPS:
        np.testing.assert_array_equal(result, expected)
        return
    x64 = np.asarray(x, np.float64)
    n = max(x64.size // max(expected.size, 1), 1) if x64.size else 0
    policy = ROWS[name].policy
    if policy in SUM_POLICIES:
        magnitude = np.sum(np.abs(np.nan_to_num(x64)), axis=axis, keepdims=keepdims)
        if policy in ("Mean", "NanMean"):
            magnitude = magnitude / max(n, 1)
        assert_sum_close(result, expected, magnitude, dtype, n)
    elif policy == "Prod":
        rtol = 4 * np.finfo(dtype).eps + 4 * n * np.finfo(np.float64).eps
        np.testing.assert_allclose(result, expected, rtol=rtol)
    else:  # var, std: two passes in float64, rounded once
        assert policy in SPREAD_POLICIES, f"no tolerance stated for the reduction {name!r}"
        # Rounding errors scale with the data's mean square, not with the
        # variance, which may be 0 (a broadcast input) or tiny.
        mean_square = np.mean(x64**2, axis=axis, keepdims=keepdims) if x64.size else 0
        atol = 8 * (n + 1) * np.finfo(np.float64).eps * mean_square
        if name == "std":
            atol = np.sqrt(atol)
        tol = 4 * np.finfo(dtype).eps * np.abs(expected) + atol + np.finfo(dtype).tiny
        special = ~np.isfinite(expected)  # NaN and inf where NumPy has them
        np.testing.assert_array_equal(result[special], expected[special])
        error = np.abs(result - expected)
        assert np.all(error[~special] <= np.broadcast_to(tol, error.shape)[~special]), (
            result,
            expected,
        )


def call(name, x, axis, **kwargs):
    return getattr(gpuvec, name)(x, axis=axis, **kwargs)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_shapes_and_axes(backend, rng, name, dtype, shape, axis):
    if name in INDEX_OPS and isinstance(axis, tuple):
        pytest.skip("argmin and argmax take one axis, as in NumPy")
    x = data(rng, name, shape, dtype)
    if name in NEEDS_ELEMENTS and reference("sum", x, axis).size and x.size == 0:
        pytest.skip("no elements to reduce: tested in test_empty_reductions")
    check(name, call(name, x, axis), x, axis, dtype)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", [k for k in LAYOUTS if k != "0d"])
@ignoring_short_slice_warnings
def test_layouts(backend, rng, name, dtype, layout):
    x = make_layout(rng, layout, dtype)
    if name == "prod":
        x = 1 + x / 1000
    elif ROWS[name].skips_nan:
        x = x.copy()
        x.reshape(-1)[::5] = np.nan
    for axis in (0, -1, None):
        check(name, call(name, x, axis), x, axis, dtype)
    check(name, call(name, x, 0, keepdims=True), x, 0, dtype, keepdims=True)


@pytest.mark.parametrize("name", OPS)
def test_zero_d_input(backend, name):
    x = np.float64(2.5)
    check(name, call(name, x, None), x, None, np.float64)


@pytest.mark.parametrize("name", OPS)
def test_keepdims(backend, rng, name):
    x = data(rng, name, (4, 5, 6), np.float64)
    axes = [None, 1, -1] if name in INDEX_OPS else [None, 1, (0, 2), (0, 1, 2)]
    for axis in axes:
        result = call(name, x, axis, keepdims=True)
        assert result.shape == reference(name, x, axis, keepdims=True).shape
        check(name, result, x, axis, np.float64, keepdims=True)


@pytest.mark.parametrize("name", OPS)
def test_result_types(backend, rng, name):
    x = data(rng, name, (3, 4), np.float32)
    number = call(name, x, None)
    assert type(number) is (int if name in INDEX_OPS else float)
    assert isinstance(call(name, x, 1), np.ndarray)
    scalar = call(name, x[0], 0)  # no dimension left: a NumPy scalar, as from NumPy
    assert isinstance(scalar, np.int64 if name in INDEX_OPS else np.float32)
    if name not in INDEX_OPS:
        assert call(name, x, 1, dtype=np.float64).dtype == np.float64
        ints = call(name, [[1, 2], [3, 4]], 0)  # NumPy's dtype: int64 for the exact rows
        assert ints.dtype == getattr(np, name)(np.array([[1, 2], [3, 4]]), 0).dtype


def test_sum_without_axis_is_unchanged(backend, rng):
    x = random_array(rng, (301, 7), np.float32)
    assert isinstance(gpuvec.sum(x), float)
    assert gpuvec.sum(x) == pytest.approx(float(np.sum(x.astype(np.float64))), rel=1e-6)
    assert gpuvec.sum(np.arange(53735, dtype=np.float64)) == 53734 * 53735 // 2


def test_float32_sums_in_float64(backend):
    # A naive float32 running sum of 2^24 + 1 ones stops at 2^24.
    x = np.ones((2, (1 << 24) + 1), np.float32)
    np.testing.assert_array_equal(gpuvec.sum(x, axis=1), np.float32((1 << 24) + 1))
    np.testing.assert_array_equal(gpuvec.mean(x, axis=1), 1.0)


@pytest.mark.parametrize(
    ("dtype", "offset", "rtol"), [(np.float64, 1e8, 1e-9), (np.float32, 1e4, 1e-6)]
)
def test_var_and_std_far_from_zero(backend, rng, dtype, offset, rtol):
    # E[x^2] - E[x]^2 loses every digit here; two passes keep them.
    x = (offset + rng.standard_normal((3, 100_003))).astype(dtype)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(gpuvec.var(x, axis=1), np.var(x64, axis=1), rtol=rtol)
    np.testing.assert_allclose(gpuvec.std(x, axis=1), np.std(x64, axis=1), rtol=rtol)
    assert gpuvec.var(x) == pytest.approx(np.var(x64), rel=rtol)
    assert gpuvec.var(x.T, axis=0) == pytest.approx(np.var(x64.T, axis=0), rel=rtol)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("ddof", [0, 1, 2.5])
def test_ddof(backend, rng, name, ddof):
    x = random_array(rng, (6, 11), np.float64)
    for axis in (None, 0, 1):
        check(name, call(name, x, axis, ddof=ddof), x, axis, np.float64, ddof=ddof)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("ddof", [2, 3, 4.5])
def test_ddof_at_least_n_warns_like_numpy(backend, name, ddof):
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
        result = call(name, x, 1, ddof=ddof)
    with (
        pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"),
        np.errstate(divide="ignore", invalid="ignore"),
    ):
        expected = getattr(np, name)(x, axis=1, ddof=ddof)
    np.testing.assert_array_equal(result, expected)  # NaN or inf, as in NumPy
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        assert np.isnan(call(name, [], None))


def test_mean_of_empty_warns_like_numpy(backend):
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(gpuvec.mean([]))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        result = gpuvec.mean(np.zeros((0, 3)), axis=0)
    np.testing.assert_array_equal(result, [np.nan] * 3)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        np.testing.assert_array_equal(
            gpuvec.nanmean([[np.nan, 1.0], [np.nan, np.nan]], axis=1), [1.0, np.nan]
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(gpuvec.nanmean([np.inf, -np.inf]))  # NaN, but not from an empty slice


def test_empty_reductions(backend):
    assert gpuvec.sum(np.zeros((0, 3)), axis=(0, 1)) == 0.0
    np.testing.assert_array_equal(gpuvec.sum(np.zeros((0, 3)), axis=0), [0.0] * 3)
    np.testing.assert_array_equal(gpuvec.prod(np.zeros((3, 0)), axis=1), [1.0] * 3)
    assert gpuvec.nansum([]) == 0.0
    assert gpuvec.sum(np.zeros((3, 0)), axis=0).shape == (0,)
    for shape, axis in [((0,), None), ((3, 0), 1), ((0, 3), 0), ((0, 0), 1)]:
        x = np.zeros(shape)
        for name in NEEDS_ELEMENTS:  # NumPy's ValueError, word for word
            with pytest.raises(ValueError, match=r"zero-size array|empty sequence") as numpy_error:
                getattr(np, name)(x, axis=axis)
            with pytest.raises(ValueError, match=re.escape(str(numpy_error.value))):
                call(name, x, axis)
    for name in NEEDS_ELEMENTS:  # no row to reduce: no error
        assert call(name, np.zeros((0, 3)), 1).shape == (0,)


@pytest.mark.parametrize("dtype", DTYPES)
@ignoring_short_slice_warnings
def test_nan(backend, dtype):
    x = np.array([[3.0, np.nan, 1.0, np.nan], [2.0, 5.0, 5.0, 2.0], [np.nan] * 4], dtype)
    for name in OPS:
        for axis in (None, 0, 1):
            check(name, call(name, x, axis), x, axis, dtype)
    assert gpuvec.argmin(x) == 1  # the first NaN
    np.testing.assert_array_equal(gpuvec.argmax(x, axis=1), [1, 1, 0])  # ties: the first
    assert np.isnan(gpuvec.sum(x))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        check("nanmean", gpuvec.nanmean(x, axis=1), x, 1, dtype)


def _numpy_warnings(function):
    """The texts of the RuntimeWarnings ``function()`` gives, and its result."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always", RuntimeWarning)
        result = function()
    # Some NumPy versions end a text with a full stop, others not.
    texts = [str(w.message).rstrip(".") for w in caught if issubclass(w.category, RuntimeWarning)]
    return texts, result


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_short_slices_warn_like_numpy(backend, rng, name, dtype):
    """NumPy's RuntimeWarnings, no more and no fewer, for slices with nothing
    (or, for the NaN-skipping ops, NaN alone) to reduce, and NumPy's values."""
    x = random_array(rng, (4, 6), dtype)
    x[1] = np.nan  # one slice of NaN alone along axis 1
    cases = [(x, 1), (x, None), (x[:, :0], 1), (x[2:], 1)]
    for data_, axis in cases:
        if name in NEEDS_ELEMENTS and data_.size == 0:
            continue  # an error: test_empty_reductions
        want, expected = _numpy_warnings(lambda d=data_, a=axis: getattr(np, name)(d, axis=a))
        got, result = _numpy_warnings(lambda d=data_, a=axis: call(name, d, a))
        assert sorted(set(got)) == sorted(set(want)), (name, axis, got, want)
        np.testing.assert_array_equal(np.isnan(np.asarray(result)), np.isnan(expected))


def test_argmin_argmax_index_the_c_order_flattening(backend, rng):
    base = rng.integers(0, 3, (6, 7, 8)).astype(np.float64)  # many ties
    for view in (base, base.T, np.asfortranarray(base), base[::-1, :, ::-2], base.swapaxes(0, 1)):
        for name in ("argmin", "argmax"):
            assert call(name, view, None) == getattr(np, name)(view)
            for axis in range(-3, 3):
                np.testing.assert_array_equal(
                    call(name, view, axis), getattr(np, name)(view, axis)
                )


@pytest.mark.parametrize("name", OPS)
@ignoring_short_slice_warnings
def test_high_dimensional(backend, rng, name):
    x = data(rng, name, (2,) * 16, np.float64)[..., ::-1]
    axis = -1 if name in INDEX_OPS else tuple(range(1, 16, 2))
    check(name, call(name, x, axis), x, axis, np.float64)
    y = data(rng, name, (1,) * 28 + (3, 4, 1, 5), np.float64)
    check(name, call(name, y, -2), y, -2, np.float64)


@pytest.mark.parametrize("name", OPS)
@ignoring_short_slice_warnings
def test_broadcast_and_read_only_input(backend, rng, name):
    row = data(rng, name, 17, np.float64)
    x = np.broadcast_to(row, (300, 17))  # stride 0, read-only
    check(name, call(name, x, 0), x, 0, np.float64)
    check(name, call(name, x, 1), x, 1, np.float64)


@pytest.mark.parametrize("name", ["sum", "var", "argmax"])
@pytest.mark.parametrize("threads", [32, 64, 1024])
def test_block_sizes(backend, rng, name, threads):
    for shape, axis in [((3, 100_003), 1), ((100_003, 40), 0), ((1000, 40), 1)]:
        x = data(rng, name, shape, np.float64)
        check(name, call(name, x, axis, threads_per_block=threads), x, axis, np.float64)


def test_deterministic(backend, rng):
    for shape, axis in [((3, 1_000_003), 1), ((100_003, 40), 0)]:
        x = random_array(rng, shape, np.float32)
        first = gpuvec.sum(x, axis=axis)
        for _ in range(3):
            np.testing.assert_array_equal(gpuvec.sum(x, axis=axis), first)


@pytest.mark.parametrize("name", OPS)
def test_bad_axis(backend, name):
    x = np.ones((2, 3))
    with pytest.raises(
        np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"
    ):
        call(name, x, 2)
    with pytest.raises(
        ValueError, match="axis -3 is out of bounds"
    ):  # AxisError is a ValueError...
        call(name, x, -3)
    with pytest.raises(IndexError, match="out of bounds"):  # ...and an IndexError, as in NumPy
        call(name, np.float64(1.0), 1)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        call(name, x, 1.0)
    if name in INDEX_OPS:
        with pytest.raises(TypeError, match="'tuple' object cannot be interpreted as an integer"):
            call(name, x, (0, 1))
    else:
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            call(name, x, (1, -1))


@pytest.mark.parametrize("name", OPS)
def test_bad_input(backend, name):
    with pytest.raises(TypeError, match=r"x has dtype datetime64\[D\]"):
        call(name, np.zeros(3, "datetime64[D]"), 0)
    with pytest.raises(TypeError, match="x has dtype <U1"):
        call(name, np.array(["a"]), None)
    with pytest.raises(ValueError, match="multiple of 32"):
        call(name, np.ones((3, 3)), 0, threads_per_block=100)
    with pytest.raises(gpuvec.CudaError, match="cudaErrorInvalidConfiguration"):
        call(name, np.ones((3, 3)), 0, threads_per_block=2048)
    with pytest.raises(ValueError, match="more than 32 dimensions"):
        call(name, np.ones((1,) * 33), 0)


def test_bad_ddof(backend):
    with pytest.raises(TypeError, match="ddof must be a real scalar"):
        gpuvec.var(np.ones(3), ddof="1")
