"""CuPy's ElementwiseKernel and ReductionKernel language beyond one value per input.

The cases of CuPy's own user-kernel and reduction tests, on gpuvec: the
element's index ``i`` and ``_ind.size()``, ``raw`` parameters, several
outputs, ``size=`` and ``block_size=``; a reduction's ``_J``, ``_i``,
``_in_ind.size()``, ``_out_ind.size()`` and raw inputs. Every result is
compared with NumPy's on fresh random data, on each backend.
"""

from math import erf

import numpy as np
import pytest

import gpuvec


def on(backend, x):
    """x as the backend's call takes it: a DeviceArray on CUDA, a NumPy array on the host."""
    return gpuvec.to_device(x) if backend == "cuda" and isinstance(x, np.ndarray) else x


def host(x):
    return x.to_host() if isinstance(x, gpuvec.DeviceArray) else np.asarray(x)


ADD_INDEX = gpuvec.ElementwiseKernel("T x", "T y", "y = x + i", "add_index")
TIMES_SIZE = gpuvec.ElementwiseKernel("T x", "T y", "y = x * _ind.size()", "times_size")
ADD = gpuvec.ElementwiseKernel("T x, T y", "T z", "z = x + y", "plain_add")
RAW_ADD = gpuvec.ElementwiseKernel("raw T x, raw T y", "raw T z", "z[i] = x[i] + y[i]", "raw_add")
REVERSED = gpuvec.ElementwiseKernel(
    "T x, raw T w", "T y", "y = x + w[_ind.size() - 1 - i]", "reversed_add"
)
RAW_SIZE = gpuvec.ElementwiseKernel("T x, raw T w", "T y", "y = x + w.size()", "raw_size")
SUM_DIFF = gpuvec.ElementwiseKernel("T x, T y", "T s, T d", "s = x + y; d = x - y", "sum_diff")
ACCUMULATE = gpuvec.ElementwiseKernel("T x", "T s, T d", "s += x; d -= x", "accumulate_two")


@pytest.mark.parametrize("shape", [(1,), (257,), (5, 7), (3, 4, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_index_is_the_c_order_position(backend, rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    expected = x + np.arange(x.size).reshape(shape).astype(dtype)
    np.testing.assert_array_equal(host(ADD_INDEX(on(backend, x))), expected)


def test_index_follows_the_broadcast_shape_of_strided_inputs(backend, rng):
    x = rng.standard_normal((6, 8))[::2, ::-1]  # strided and reversed
    out = on(backend, np.full((3, 8), np.nan))
    ADD_INDEX(on(backend, x), out)
    np.testing.assert_array_equal(host(out), x + np.arange(24).reshape(3, 8))


def test_ind_size_is_the_number_of_elements(backend, rng):
    x = rng.standard_normal((4, 9))
    np.testing.assert_array_equal(host(TIMES_SIZE(on(backend, x))), x * 36)


@pytest.mark.parametrize("n", [1, 100, 1025])
def test_manual_indexing_of_raw_arrays_matches_the_plain_kernel(backend, rng, n):
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    plain = ADD(on(backend, x), on(backend, y))
    raw = RAW_ADD(on(backend, x), on(backend, y), size=n)
    np.testing.assert_array_equal(host(raw), host(plain))
    np.testing.assert_array_equal(host(raw), x + y)


def test_raw_numpy_arrays_are_staged_on_every_backend(backend, rng):
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    z = np.full(50, np.nan)
    result = RAW_ADD(x, y, z, size=50)
    assert result is z
    np.testing.assert_array_equal(z, x + y)


def test_raw_array_is_read_whole_in_c_order_whatever_its_strides(backend, rng):
    x = rng.standard_normal((3, 4))
    w = rng.standard_normal((4, 6))[:, ::-2]  # (4, 3): strided, reversed
    w_flat = np.ascontiguousarray(w).ravel()[:12]
    result = REVERSED(on(backend, x), on(backend, w))
    np.testing.assert_array_equal(host(result), x + w_flat[::-1].reshape(3, 4))


def test_raw_size_is_the_whole_array(backend, rng):
    x, w = rng.standard_normal(5), rng.standard_normal((7, 3))
    np.testing.assert_array_equal(host(RAW_SIZE(on(backend, x), on(backend, w))), x + 21)


def test_raw_multi_index(backend, rng):
    k2 = gpuvec.ElementwiseKernel(
        "raw T m, T r", "T y", "long long idx[] = {(long long)r, i}; y = m[idx]", "row_of"
    )
    m = rng.standard_normal((4, 6))
    out = on(backend, np.full(6, np.nan))
    k2(on(backend, m), 2.0, out)
    np.testing.assert_array_equal(host(out), m[2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_several_outputs(backend, rng, dtype):
    x = rng.standard_normal((5, 6)).astype(dtype)
    y = rng.standard_normal(6).astype(dtype)
    s, d = SUM_DIFF(on(backend, x), on(backend, y))
    np.testing.assert_array_equal(host(s), x + y)
    np.testing.assert_array_equal(host(d), x - y)


def test_several_outputs_given_are_written_in_place_and_read(backend, rng):
    x = rng.standard_normal((3, 5))
    s0, d0 = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    s, d = on(backend, s0.copy()), on(backend, d0.copy())
    result = ACCUMULATE(on(backend, x), s, d)
    assert result[0] is s
    assert result[1] is d
    np.testing.assert_array_equal(host(s), s0 + x)
    np.testing.assert_array_equal(host(d), d0 - x)


def test_several_outputs_into_strided_numpy_arrays(backend, rng):
    x, y = rng.standard_normal(8), rng.standard_normal(8)
    s = np.full((8, 2), np.nan)[:, 0]
    d = np.full(16, np.nan)[::-2]
    SUM_DIFF(x, y, s, d)
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_array_equal(d, x - y)


BLACK_SCHOLES = gpuvec.ElementwiseKernel(
    "T s, T x, T t, T r, T v",
    "T call, T put",
    """
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;
    const T cnd_d1 = 0.5 * (1 + erf(d1 / sqrt(2.0)));
    const T cnd_d2 = 0.5 * (1 + erf(d2 / sqrt(2.0)));
    const T exp_rt = exp(-r * t);
    call = s * cnd_d1 - x * exp_rt * cnd_d2;
    put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
    """,
    "black_scholes",
)


def test_black_scholes_of_cupy_examples(backend, rng):
    n = 1000
    s, x = rng.uniform(10, 50, n), rng.uniform(10, 50, n)
    t = rng.uniform(1, 5, n)
    r, v = 0.02, 0.3
    call, put = BLACK_SCHOLES(on(backend, s), on(backend, x), on(backend, t), r, v)
    cnd = np.vectorize(lambda d: 0.5 * (1 + erf(d / np.sqrt(2.0))))
    d1 = (np.log(s / x) + (r + v * v / 2) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    exp_rt = np.exp(-r * t)
    # Prices far out of the money are differences of nearly equal terms: an absolute bound.
    expected_call = s * cnd(d1) - x * exp_rt * cnd(d2)
    np.testing.assert_allclose(host(call), expected_call, rtol=1e-9, atol=1e-10)
    expected_put = x * exp_rt * cnd(-d2) - s * cnd(-d1)
    np.testing.assert_allclose(host(put), expected_put, rtol=1e-9, atol=1e-10)


# -- size= ----------------------------------------------------------------------------------


def _kernel(input_raw, output_raw):
    """A kernel of float32 parameters x0, ... and y0, ..., raw where told, that does nothing."""
    ins = ", ".join(f"{'raw ' if raw else ''}float32 x{k}" for k, raw in enumerate(input_raw))
    outs = ", ".join(f"{'raw ' if raw else ''}float32 y{k}" for k, raw in enumerate(output_raw))
    return gpuvec.ElementwiseKernel(ins, outs, "", "noop")


NOT_ALLOWED = r"^Specified 'size' can"
REQUIRED = r"^Loop size is undecided"


@pytest.fixture
def pair(backend):
    return on(backend, np.array([1, 2], np.float32)), on(backend, np.array([3, 4], np.float32))


def test_size_is_required_where_every_array_is_raw(pair):
    a, b = pair
    for output_raw in (False, True):
        k = _kernel((True, True), (output_raw,))
        k(a, b, size=2)
        with pytest.raises(ValueError, match=REQUIRED):
            k(a, b)


@pytest.mark.parametrize(
    ("input_raw", "output_raw"),
    [
        ((False, False), (False,)),
        ((False, False), (True,)),
        ((True, False), (False,)),
        ((False, True), (False,)),
        ((True, False), (True,)),
        ((False, True), (True,)),
    ],
)
def test_size_is_refused_where_a_plain_array_decides_it(pair, input_raw, output_raw):
    a, b = pair
    with pytest.raises(ValueError, match=NOT_ALLOWED):
        _kernel(input_raw, output_raw)(a, b, size=2)


def test_size_with_numbers_and_arrays(pair):
    a, b = pair
    with pytest.raises(ValueError, match=NOT_ALLOWED):
        _kernel((False, False), (False,))(a, 7.0, size=2)
    with pytest.raises(ValueError, match=NOT_ALLOWED):
        _kernel((False, False, True), (True,))(a, 7.0, b, size=2)
    for input_raw in ((True, False), (False, True)):
        k = _kernel(input_raw, (True,))
        args = (a, 7.0) if input_raw[0] else (7.0, a)
        k(*args, size=2)
        with pytest.raises(ValueError, match=REQUIRED):
            k(*args)


def test_size_decided_by_the_output(pair):
    a, b = pair
    k = _kernel((True,), (False,))
    k(a, b)
    with pytest.raises(ValueError, match=NOT_ALLOWED):
        k(a, b, size=2)
    k = _kernel((), (False,))
    k(a)
    with pytest.raises(ValueError, match=NOT_ALLOWED):
        k(a, size=2)
    k = _kernel((), (True,))
    k(a, size=2)
    with pytest.raises(ValueError, match=REQUIRED):
        k(a)


def test_size_gives_the_index_range(backend):
    k = gpuvec.ElementwiseKernel("", "raw float64 y", "y[i] = 2.0 * i", "twice_index")
    np.testing.assert_array_equal(host(k(size=9)), 2.0 * np.arange(9))


@pytest.mark.parametrize("block_size", [0, -1, 1025])
def test_block_size_must_be_a_positive_thread_count(backend, block_size):
    with pytest.raises(ValueError, match="block_size"):
        ADD(np.ones(3), 1.0, block_size=block_size)


def test_block_size_of_one_gives_the_same_result(backend, rng):
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    result = ADD(on(backend, x), np.float32(1), block_size=1)
    np.testing.assert_array_equal(host(result), x + np.float32(1))


# -- ReductionKernel ------------------------------------------------------------------------

MY_SUM = gpuvec.ReductionKernel("T x", "T out", "x", "a + b", "out = a", "0", "my_sum")


@pytest.mark.parametrize("i", [1, 5, 9])
@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reduction_shapes_of_cupy_tests(backend, rng, i, delta, axis):
    shape = (2**i + delta, 1000) if axis is not None else (2**i + delta,)
    a = rng.integers(-8, 8, shape).astype(np.float64)  # exact sums in any order
    for keepdims in (False, True):
        result = MY_SUM(on(backend, a), axis=axis, keepdims=keepdims)
        np.testing.assert_array_equal(host(result), a.sum(axis=axis, keepdims=keepdims))


WEIGHTED_BY_J = gpuvec.ReductionKernel("T x", "T y", "x * _J", "a + b", "y = a", "0", "by_j")
PLUS_OUT_INDEX = gpuvec.ReductionKernel("T x", "T y", "x + _i", "a + b", "y = a", "0", "plus_i")
MEAN_BY_SIZES = gpuvec.ReductionKernel(
    "T x", "T y", "x * _out_ind.size() / _in_ind.size()", "a + b", "y = a", "0", "mean_sizes"
)
RAW_WEIGHTS = gpuvec.ReductionKernel(
    "T x, raw T w", "T y", "x * w[_J]", "a + b", "y = a", "0", "raw_weights"
)


@pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2), (-1, -2)])
def test_reduction_j_counts_the_reduced_axes_in_c_order(backend, rng, axis):
    x = rng.integers(-8, 8, (3, 4, 5)).astype(np.float64)
    axes = tuple(range(3)) if axis is None else tuple(sorted(a % 3 for a in np.atleast_1d(axis)))
    j_shape = [n if d in axes else 1 for d, n in enumerate(x.shape)]
    j = np.arange(np.prod(j_shape)).reshape(j_shape)
    result = WEIGHTED_BY_J(on(backend, x), axis=axis)
    np.testing.assert_array_equal(host(result), (x * j).sum(axis=axis))


@pytest.mark.parametrize("axis", [0, 1, (0, 2)])
def test_reduction_i_is_the_output_index(backend, rng, axis):
    x = rng.integers(-8, 8, (3, 4, 5)).astype(np.float64)
    axes = tuple(np.atleast_1d(axis))
    kept = [1 if d in axes else n for d, n in enumerate(x.shape)]
    i = np.arange(np.prod(kept)).reshape(kept)
    result = PLUS_OUT_INDEX(on(backend, x), axis=axis)
    np.testing.assert_array_equal(host(result), (x + i).sum(axis=axis))


def test_reduction_indexer_sizes(backend, rng):
    x = rng.standard_normal((6, 10))
    result = MEAN_BY_SIZES(on(backend, x), axis=1)
    np.testing.assert_allclose(host(result), x.mean(axis=1), rtol=1e-12)


def test_reduction_raw_input(backend, rng):
    x, w = rng.standard_normal((4, 7)), rng.standard_normal(7)
    result = RAW_WEIGHTS(on(backend, x), on(backend, w), axis=1)
    np.testing.assert_allclose(host(result), (x * w).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(host(RAW_WEIGHTS(x, w, axis=1)), (x * w).sum(axis=1), rtol=1e-12)


def test_reduction_of_several_outputs_is_refused():
    with pytest.raises(NotImplementedError, match="one output"):
        gpuvec.ReductionKernel("T x", "T y, T z", "x", "a + b", "y = a; z = a", "0", "two")


# -- fuse(kernel_name=) ---------------------------------------------------------------------


def test_fuse_kernel_name_names_the_kernels(backend, rng):
    @gpuvec.fuse(kernel_name="squash")
    def f(x):
        return x * x + 1.0

    x = rng.standard_normal(10)
    np.testing.assert_array_equal(host(f(on(backend, x))), x * x + 1.0)
    assert "fused_squash_0" in str(f.explain(on(backend, x)))


def test_fuse_kernel_name_must_be_an_identifier():
    with pytest.raises(ValueError, match="kernel_name"):
        gpuvec.fuse(kernel_name="not a name")
