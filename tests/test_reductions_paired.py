"""The mean and the deviation from one pass (gpuvec.reductions._mean_and_deviation).

Against NumPy's float64 np.mean, np.std and np.var on fresh random data,
within the tolerances of tests/tolerances.py (assert_reduction_close), and
against gpuvec.mean and gpuvec.std / gpuvec.var called apart: the same kinds,
dtypes and shapes, the same warnings, and values within a few ulps. The
deviation comes from the same Variance state as gpuvec.std's: the same bits
on the host backend; on the CUDA backend the larger state may change the
launch's grid and so the order of the combination tree, hence within
DEVIATION_ULPS ulps there. The mean is the state's own (runs' sums of
differences over their counts, runs combined by Chan's formula), where
gpuvec.mean's is a sum over the count: both within a float64 sum's error,
so they are compared within MEAN_EPS * log2(n) eps of the mean of |x| (the
mean itself may be near 0, where ulps of it say nothing; measured on the
host: up to 6 eps for rows of about 100 elements, under 1 for long ones).
"""

import warnings

import numpy as np
import pytest
from conftest import LAYOUTS, make_layout, random_array
from tolerances import assert_reduction_close

import gpuvec
from gpuvec.reductions import _mean_and_deviation

DTYPES = [np.float32, np.float64]
# The deviation against gpuvec.std's (var's), in its ulps (CUDA; the host's
# are equal): two combination trees over 10^5 elements differ by up to about
# sqrt(log2(n)) * 8 ulps (measured: 9.6 on an H200, 64-thread blocks); the
# mean against gpuvec.mean's, in eps * log2(n) * mean(|x|).
DEVIATION_ULPS = 32
MEAN_EPS = 16

# (shape, axis): each launch shape of the engine on both backends: a whole
# array as one row, many short rows, few long rows (blocks and partials),
# side-by-side rows (the CUDA column kernel up to 64 of them, tiles beyond;
# the host's column walk), tall-skinny and wide matrices, odd sizes.
CASES = [
    ((1,), None),
    ((7,), 0),
    ((1023,), -1),
    ((65537,), None),
    ((1_000_003,), None),
    ((3, 5), 0),
    ((3, 5), 1),
    ((3, 5), (0, 1)),
    ((37, 41), None),
    ((2, 3, 4, 5), (0, 2)),
    ((2, 3, 4, 5), (1, -1)),
    ((2, 3, 4, 5), -2),
    ((100_003, 8), 0),
    ((100_003, 3), 0),
    ((100_003, 3), 1),
    ((3, 100_003), 1),
    ((40, 1000), 1),
    ((1000, 40), 0),
    ((100_003, 40), 0),
    ((8, 50_000), 0),
    ((127, 65), 0),
    ((5, 3), 0),
]


def on(backend, x):
    """x as the backend's data: a DeviceArray on CUDA, NumPy's array on the host."""
    return gpuvec.to_device(x) if backend == "cuda" else x


def host(x):
    return x.to_host() if isinstance(x, gpuvec.DeviceArray) else x


def apart(x, axis, *, ddof=0, root=True, **kwargs):
    """gpuvec.mean and gpuvec.std (var), called apart, warnings silenced."""
    deviation = gpuvec.std if root else gpuvec.var
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return gpuvec.mean(x, axis, **kwargs), deviation(x, axis, ddof=ddof, **kwargs)


def assert_same_kind(result, expected):
    """The same type, dtype and shape (a float, a NumPy scalar or array, a DeviceArray)."""
    assert type(result) is type(expected), (type(result), type(expected))
    if not isinstance(result, float):
        assert result.dtype == expected.dtype
        assert result.shape == expected.shape


def assert_close_to_apart(pair, x, axis, dtype, ddof=0, root=True, keepdims=False):
    """pair against gpuvec's mean and std (var) called apart, and against NumPy."""
    mean, deviation = pair
    mean_apart, deviation_apart = apart(x, axis, ddof=ddof, root=root, keepdims=keepdims)
    assert_same_kind(mean, mean_apart)
    assert_same_kind(deviation, deviation_apart)
    x64 = np.asarray(host(x), np.float64)
    name = "std" if root else "var"
    assert_reduction_close("mean", host(mean), x64, dtype, axis, keepdims)
    assert_reduction_close(name, host(deviation), x64, dtype, axis, keepdims, ddof)
    got, want = np.asarray(host(deviation), np.float64), np.asarray(host(deviation_apart))
    if gpuvec.backend() == "host":
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    eps = np.finfo(dtype).eps
    tol = DEVIATION_ULPS * eps * np.abs(want) + np.finfo(dtype).tiny
    assert np.all(np.abs(got - want)[~np.isnan(want)] <= tol[~np.isnan(want)])
    if x64.size:
        got, want = np.asarray(host(mean), np.float64), np.asarray(host(mean_apart))
        scale = np.mean(np.abs(x64), axis=axis, keepdims=keepdims)
        n = x64.size // max(np.size(want), 1)
        tol = MEAN_EPS * max(np.log2(n), 1) * eps * scale + np.finfo(dtype).tiny
        assert np.all(np.abs(got - want) <= tol), np.max(np.abs(got - want) / (eps * scale))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_shapes_and_axes(backend, rng, dtype, shape, axis):
    x = on(backend, random_array(rng, shape, dtype))
    assert_close_to_apart(_mean_and_deviation(x, axis), x, axis, dtype)


@pytest.mark.parametrize("root", [True, False])
@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_ddof_root_and_keepdims(backend, rng, root, ddof, keepdims):
    x = on(backend, random_array(rng, (31, 5, 33), np.float64))
    for axis in (None, 0, 1, -1, (0, 2), (0, 1, 2)):
        pair = _mean_and_deviation(x, axis, ddof=ddof, root=root, keepdims=keepdims)
        assert_close_to_apart(pair, x, axis, np.float64, ddof, root, keepdims)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_layouts(backend, rng, dtype, layout):
    x = make_layout(rng, layout, dtype)  # views: negative strides, Fortran order, 0-d
    axes = (None,) if x.ndim == 0 else (None, 0, -1)
    for axis in axes:
        assert_close_to_apart(_mean_and_deviation(x, axis), x, axis, dtype)
    if x.ndim:
        pair = _mean_and_deviation(x, 0, keepdims=True, ddof=1)
        assert_close_to_apart(pair, x, 0, dtype, ddof=1, keepdims=True)


def test_result_kinds(backend, rng):
    x = random_array(rng, (4, 6), np.float32)
    mean, std = _mean_and_deviation(x)
    assert type(mean) is float
    assert type(std) is float
    mean, std = _mean_and_deviation(x[0], 0)
    assert type(mean) is np.float32
    assert type(std) is np.float32
    mean, std = _mean_and_deviation(x, 1, dtype=np.float64)
    assert mean.dtype == std.dtype == np.float64
    mean, std = _mean_and_deviation([[1, 2], [3, 5]], 0)  # ints compute in float64
    assert mean.dtype == np.float64
    np.testing.assert_array_equal(mean, [2.0, 3.5])
    np.testing.assert_array_equal(std, [1.0, 1.5])
    device = gpuvec.asarray(x)
    for axis in (None, 1):
        pair = _mean_and_deviation(device, axis)
        assert all(isinstance(v, gpuvec.DeviceArray) for v in pair)
        assert_close_to_apart(pair, device, axis, np.float32)


def test_far_from_zero(backend, rng):
    # E[x^2] - E[x]^2 would lose every digit; the mean keeps its last ones.
    x = 1e8 + rng.standard_normal((100_003, 3))
    mean, var = _mean_and_deviation(on(backend, x), 0, root=False)
    np.testing.assert_allclose(host(var), np.var(x, axis=0), rtol=1e-9)
    exact = np.array([np.sum(x[:, c] - 1e8) / len(x) + 1e8 for c in range(3)])
    np.testing.assert_allclose(host(mean), exact, rtol=2 * np.finfo(np.float64).eps)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_and_inf_as_numpy(backend, dtype):
    rows = [
        [1.0, np.inf, 2.0, 3.0],
        [-np.inf, 1.0, 2.0, -np.inf],
        [np.inf, -np.inf, 0.0, 1.0],
        [np.nan, 1.0, 2.0, 3.0],
        [np.inf, np.nan, 0.0, 1.0],
        [1.0, 2.0, 4.0, 8.0],
    ]
    x = np.array(rows, dtype)
    for data in (x, x.T.copy()):  # rows, and the column walk
        axis = 1 if data is x else 0
        mean, std = _mean_and_deviation(on(backend, data), axis)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(host(mean), np.mean(data, axis=axis))
            np.testing.assert_array_equal(host(std), np.std(data, axis=axis))
    # a long row, whose runs are folded at once: one inf in 10^5 elements
    long = np.ones((2, 100_003), dtype)
    long[0, 77_777] = -np.inf
    long[1, 5] = np.nan
    mean, std = _mean_and_deviation(on(backend, long), 1)
    np.testing.assert_array_equal(host(mean), [-np.inf, np.nan])
    assert np.isnan(host(std)).all()
    tall = np.ones((100_003, 8), dtype)  # the column kernel and the host's column walk
    tall[1234, 2] = np.inf
    tall[99_999, 5] = np.nan
    mean, std = _mean_and_deviation(on(backend, tall), 0)
    expected = np.ones(8, dtype)
    expected[2], expected[5] = np.inf, np.nan
    np.testing.assert_array_equal(host(mean), expected)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(host(std), np.std(tall, axis=0))  # NaN where inf or NaN


def test_a_sum_that_overflows_makes_the_mean_inf_as_numpy(backend):
    # NumPy's mean divides the float64 sum, which overflows to +-inf here;
    # the state's mean itself (about 1.5e308) would be finite. (Rows whose
    # values span more than the largest float64, [-big, 1.0], give NaN.)
    big = np.finfo(np.float64).max
    x = np.array([[big, big * 0.8, big * 0.7], [-big, -big * 0.9, -big * 0.6], [1.0, 2.0, 6.0]])
    for data, axis in ((x, 1), (x.T.copy(), 0)):
        mean, _ = _mean_and_deviation(on(backend, data), axis)
        with np.errstate(over="ignore"):
            expected = np.mean(data, axis=axis)
        np.testing.assert_array_equal(host(mean), expected)
        np.testing.assert_array_equal(host(mean), host(gpuvec.mean(on(backend, data), axis=axis)))


def test_empty_warns_as_mean_and_std_do(backend):
    for shape, axis in [((0,), None), ((0, 3), 0), ((3, 0), 1)]:
        x = on(backend, np.zeros(shape))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mean, std = _mean_and_deviation(x, axis)
        # NumPy's texts (some versions end them with a full stop).
        messages = [str(w.message).rstrip(".") for w in caught if w.category is RuntimeWarning]
        assert messages == ["Mean of empty slice", "Degrees of freedom <= 0 for slice"]
        assert np.isnan(host(mean)).all()
        assert np.isnan(host(std)).all()
        assert np.shape(host(mean)) == np.shape(host(std)) == ((3,) if axis is not None else ())
    x = on(backend, np.zeros((3, 0)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, std = _mean_and_deviation(x, 0)  # no row to reduce: nothing to warn of
    assert host(mean).shape == host(std).shape == (0,)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
        mean, var = _mean_and_deviation(on(backend, np.array([[1.0, 2.0]])), 1, ddof=2)
    np.testing.assert_array_equal(host(mean), [1.5])
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(host(var), np.float64(0.5) / 0)


def test_zero_d(backend):
    mean, std = _mean_and_deviation(np.float64(2.5))
    assert (mean, std) == (2.5, 0.0)
    x = np.array(-1.5, np.float32)
    assert_close_to_apart(_mean_and_deviation(x, ()), x, (), np.float32)
    mean, std = _mean_and_deviation(x, ())
    assert (mean, std) == (-1.5, 0.0)


def test_broadcast_and_read_only_input(backend, rng):
    row = random_array(rng, 17, np.float64)
    x = np.broadcast_to(row, (300, 17))  # stride 0, read-only
    for axis in (0, 1):
        assert_close_to_apart(_mean_and_deviation(x, axis), x, axis, np.float64)


@pytest.mark.parametrize("threads", [32, 64, 1024])
def test_block_sizes(backend, rng, threads):
    for shape, axis in [((3, 100_003), 1), ((100_003, 8), 0), ((100_003, 40), 0)]:
        x = on(backend, random_array(rng, shape, np.float64))
        pair = _mean_and_deviation(x, axis, threads_per_block=threads)
        assert_close_to_apart(pair, x, axis, np.float64)


def test_deterministic(backend, rng):
    for shape, axis in [((3, 1_000_003), 1), ((100_003, 8), 0), ((1_000_003,), None)]:
        x = on(backend, random_array(rng, shape, np.float32))
        first = [host(v) for v in _mean_and_deviation(x, axis)]
        for _ in range(3):
            again = [host(v) for v in _mean_and_deviation(x, axis)]
            np.testing.assert_array_equal(again, first)


def test_fresh_results_are_written_whole(backend, rng):
    # Poisoned memory, freed: a result that reuses it must not show any of it.
    x = on(backend, random_array(rng, (100_003, 8), np.float64))
    for _ in range(3):
        poison = on(backend, np.full((64, 8), np.nan))
        del poison
        mean, std = _mean_and_deviation(x, 0)
        assert np.isfinite(host(mean)).all()
        assert np.isfinite(host(std)).all()


def test_out_of_the_abi_shape_is_refused(backend):
    x = np.ones((1,) * 32)
    with pytest.raises(ValueError, match="keeps at most 31 dimensions"):
        _mean_and_deviation(x, ())


def test_bad_arguments_raise_as_std_does(backend):
    x = np.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        _mean_and_deviation(x, 2)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        _mean_and_deviation(x, (1, -1))
    with pytest.raises(TypeError, match="ddof must be a real scalar"):
        _mean_and_deviation(x, ddof="1")
    with pytest.raises(TypeError, match=r"x has dtype datetime64\[D\]"):
        _mean_and_deviation(np.zeros(3, "datetime64[D]"), 0)
