"""gpuvec.fuse's row kernels: reductions along the last axis that feed back
into it (softmax), as one kernel.

Each result is checked against NumPy's float64 reference and against the
function run op by op. A row kernel sums in another order than the eager
reduction (both in double), so sums may differ from the eager ones in the
last bits: the budgets below say by how much.
"""

import numpy as np
import pytest
from conftest import random_array
from test_fuse import eager, host, on

import gpuvec
from gpuvec import exp, log
from gpuvec.fusion._fuse import _kind


def ulps_of(dtype, n=1):
    """A relative tolerance of n units in the last place of dtype."""
    return n * np.finfo(dtype).eps


def assert_close(result, expected, dtype, n=8, atol=0.0):
    """Within n ulps of expected; a subnormal's ulp is the smallest subnormal
    (a softmax of float32 rows gives some: exp(-90) is 8e-40)."""
    result, expected = host(result), host(expected)
    assert np.asarray(result).dtype == np.dtype(dtype)
    assert np.shape(result) == np.shape(expected)
    atol = max(atol, n * float(np.finfo(dtype).smallest_subnormal))
    np.testing.assert_allclose(result, expected, rtol=ulps_of(dtype, n), atol=atol)


def sum_ulps(dtype, cols):
    """The budget of a softmax: exp and the division (8 ulps), and, in float64,
    a sum of `cols` positive terms in another order (float32 sums in double)."""
    return 8 + (4 * int(np.sqrt(cols)) if np.dtype(dtype) == np.float64 else 0)


def runs_as_row_kernel(fused, *args) -> bool:
    """Whether a call on args takes the row kernel (tracing the function first)."""
    fused.explain(*args)
    kinds = tuple(_kind(a) for a in args)
    plan = fused._plans[next(key for key in fused._plans if key[0] == kinds)]
    return plan.row_call(args) is not None


@gpuvec.fuse
def softmax(x):
    e = exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax64(x):
    """NumPy's softmax in float64 of x - max(x) as x's dtype rounds it (which the
    eager ops and the kernel round alike; an error of half an ulp of |x - max|
    would grow by |x - max| in exp)."""
    d = (x - x.max(axis=-1, keepdims=True)).astype(np.float64)
    e = np.exp(d)
    return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 2), (3, 1025), (257, 33), (64, 4099), (1000, 7)])
def test_softmax_is_one_row_kernel(backend, rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    result = softmax(on(backend, x))
    assert isinstance(result, gpuvec.DeviceArray if backend == "cuda" else np.ndarray)
    assert runs_as_row_kernel(softmax, on(backend, x))
    assert_close(result, eager(softmax, x), dtype, n=sum_ulps(dtype, shape[1]))
    assert_close(result, softmax64(x), dtype, n=sum_ulps(dtype, shape[1]))
    np.testing.assert_allclose(host(result).sum(axis=1), 1.0, rtol=ulps_of(dtype, 64) * shape[1])


def test_explain_shows_the_row_kernel(backend, rng):
    x = on(backend, random_array(rng, (300, 64), np.float32))
    text = str(softmax.explain(x))
    assert "row kernel fused_softmax_rows" in text
    assert "3 passes" in text
    assert "(max; sum; then the results)" in text
    assert "row_total(" in text  # the threads of a row combine their states
    explanation = softmax.explain(x)
    # x read once and the result written once, against five passes of the eager ops
    assert explanation.fused_bytes == 2 * 300 * 64 * 4
    assert explanation.eager_bytes > 2 * explanation.fused_bytes
    assert [k.name for k in explanation.kernels] == ["fused_softmax_rows"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_standardisation_shares_a_pass(backend, rng, dtype):
    @gpuvec.fuse
    def standardize(x, shift):
        centred = x - x.mean(axis=-1, keepdims=True)
        return centred / x.std(axis=-1, keepdims=True, ddof=1) + shift

    x = random_array(rng, (129, 3, 61), dtype) + dtype(100)  # far from zero: var's accuracy
    shift = random_array(rng, (129, 3, 1), dtype)  # one number per row, read once per row
    args = (on(backend, x), on(backend, shift))
    # x - mean cancels: a mean off by an ulp of |x| is off by |x| / std in the result
    atol = 16 * ulps_of(dtype) * np.abs(x).max() / x.std(axis=-1).min()
    assert_close(standardize(*args), eager(standardize, x, shift), dtype, n=16, atol=atol)
    assert runs_as_row_kernel(standardize, *args)
    assert "(mean, std; then the results)" in str(standardize.explain(*args))
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(-1, keepdims=True)) / x64.std(-1, keepdims=True, ddof=1) + shift
    assert_close(standardize(*args), expected.astype(dtype), dtype, n=16, atol=atol)


def test_a_row_value_as_result_and_several_results(backend, rng):
    @gpuvec.fuse
    def logsumexp_and_softmax(x):
        m = x.max(axis=-1, keepdims=True)
        e = exp(x - m)
        s = e.sum(axis=-1, keepdims=True)
        return m + log(s), e / s, m

    x = random_array(rng, (77, 300), np.float64)
    got = logsumexp_and_softmax(on(backend, x))
    assert runs_as_row_kernel(logsumexp_and_softmax, on(backend, x))
    assert type(got) is tuple
    assert [np.shape(g) for g in got] == [(77, 1), (77, 300), (77, 1)]
    for g, e in zip(got, eager(logsumexp_and_softmax, x), strict=True):
        assert_close(g, e, np.float64, n=sum_ulps(np.float64, 300))
    np.testing.assert_array_equal(host(got[2]), x.max(axis=-1, keepdims=True))


def test_arguments_broadcast_along_rows_and_columns(backend, rng):
    @gpuvec.fuse
    def f(x, bias, scale):
        y = x * scale + bias
        return y - y.min(axis=1, keepdims=True) * 2.5

    x = random_array(rng, (50, 31), np.float32)
    bias = random_array(rng, (31,), np.float32)  # every row's
    scale = random_array(rng, (50, 1), np.float32)  # one per row
    args = (on(backend, x), on(backend, bias), on(backend, scale))
    assert runs_as_row_kernel(f, *args)
    # no sum: min and the arithmetic are exact, so the bits are the eager ones
    np.testing.assert_array_equal(host(f(*args)), eager(f, x, bias, scale))


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[:, ::2],
        lambda a: a[::-1],
        lambda a: np.asfortranarray(a),
        lambda a: a.T.copy().T,
        lambda a: a[3:40, 1:-1],
    ],
    ids=["step-2", "reversed-rows", "fortran", "transposed-copy", "inner"],
)
def test_any_layout(backend, rng, view):
    x = view(random_array(rng, (61, 64), np.float64))
    assert_close(softmax(on(backend, x)), softmax64(x), np.float64, n=sum_ulps(np.float64, 64))


def test_nan_and_inf_propagate_as_in_the_eager_ops(backend, rng):
    x = random_array(rng, (6, 40), np.float32)
    x[1, 3] = np.nan
    x[2, 5] = np.inf
    x[3, :] = -np.inf
    x[4, 7] = -np.inf
    with np.errstate(invalid="ignore"):
        expected = eager(softmax, x)
        got = host(softmax(on(backend, x)))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=ulps_of(np.float32, 8))


def test_read_only_input(backend, rng):
    x = random_array(rng, (20, 30), np.float32)
    x.flags.writeable = False
    assert_close(softmax(on(backend, x)), softmax64(x), np.float32, n=8)


@pytest.mark.parametrize(
    ("shape", "why"),
    [
        ((40, 1), "one column: the steps"),
        ((0, 5), "no rows"),
        ((5, 0), "empty rows: max raises as the eager max does"),
    ],
)
def test_shapes_the_row_kernel_leaves_to_the_steps(backend, rng, shape, why):
    x = random_array(rng, shape, np.float64)
    assert not runs_as_row_kernel(softmax, on(backend, x)), why
    try:
        expected = eager(softmax, x)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc).split(":")[0]):
            softmax(on(backend, x))
        return
    np.testing.assert_array_equal(host(softmax(on(backend, x))), expected)


def test_leading_axes_that_broadcast_apart_use_the_steps(backend, rng):
    @gpuvec.fuse
    def f(x, y):
        return x - (x * y).max(axis=-1, keepdims=True)

    x = random_array(rng, (4, 5, 6), np.float64)
    y = random_array(rng, (4, 1, 6), np.float64)  # rows of y are not at one stride
    args = (on(backend, x), on(backend, y))
    assert not runs_as_row_kernel(f, *args)
    np.testing.assert_array_equal(host(f(*args)), eager(f, x, y))


@pytest.mark.parametrize(
    "body",
    [
        lambda x: x - x.max(axis=0, keepdims=True),  # along columns
        lambda x: x - x.max(axis=1),  # no keepdims: broadcasts along the other axis
        lambda x: x.sum(axis=1, keepdims=True),  # nothing feeds back: the engine's reduction
        lambda x: x - x.sum(axis=1, keepdims=True, dtype=np.float64),
    ],
    ids=["axis-0", "no-keepdims", "reduction-alone", "dtype"],
)
def test_other_reductions_take_the_steps(rng, body):
    fused = gpuvec.fuse(lambda x: body(x))
    x = random_array(rng, (9, 9), np.float64)
    assert not runs_as_row_kernel(fused, x)
    assert next(iter(fused._plans.values())).rows is None
    np.testing.assert_array_equal(fused(x), eager(fused, x))


@pytest.mark.parametrize(
    ("shape", "dtype", "on_gpu"),
    [
        ((40, 1000), np.float32, "registers"),  # compiled for rows of 1000
        ((40, 2048), np.float32, "registers"),
        ((40, 2048), np.float64, "warps"),  # 16 KiB a row: too many registers a lane
        ((40, 3000), np.float32, "blocks"),
    ],
)
def test_how_rows_are_taken(backend, rng, shape, dtype, on_gpu):
    x = on(backend, random_array(rng, shape, dtype))
    fused = gpuvec.fuse(softmax.__wrapped__)
    assert runs_as_row_kernel(fused, x)
    plan = next(iter(fused._plans.values()))
    call = plan.row_call((x,))
    assert call.mode == (on_gpu if backend == "cuda" else "buffers")
    assert (call.fixed == shape[1]) == (call.mode == "registers")
    assert_close(fused(x), softmax64(host(x)), dtype, n=sum_ulps(dtype, shape[1]))


def test_a_value_used_many_times_over_is_planned_in_linear_time(backend, rng):
    # Each t below is read three times by the next: walking the graph from a
    # result to find its row values, without remembering the nodes seen,
    # would take 3^30 steps.
    @gpuvec.fuse
    def deep(x):
        t = x.max(axis=-1, keepdims=True)
        for _ in range(30):
            t = gpuvec.minimum(t * t - t, 2.0)
        return t + x

    x = random_array(rng, (64, 33), np.float64) / 10
    assert runs_as_row_kernel(deep, on(backend, x))
    np.testing.assert_array_equal(host(deep(on(backend, x))), eager(deep, x))
