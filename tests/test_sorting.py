"""sort, argsort, searchsorted and unique against NumPy, on both backends."""

import doctest

import numpy as np
import pytest
from conftest import COMPUTED_REAL_DTYPES

import gpuvec

DTYPES = COMPUTED_REAL_DTYPES


def random_data(rng, shape, dtype, *, ties=False):
    """Fresh data of dtype with its edge values (and for floats: NaN, the
    infinities, -0.0 and 0.0); with `ties`, few distinct values."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape))
    if dtype.kind == "b":
        x = rng.random(size) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        if ties:
            x = rng.choice(np.array([info.min, info.max, 0, 1, info.max // 2], dtype), size)
        else:
            x = rng.integers(info.min, info.max, size=size, dtype=dtype, endpoint=True)
            x[: min(size, 2)] = [info.min, info.max][: min(size, 2)]
    else:
        x = rng.standard_normal(size).astype(dtype)
        if ties:
            x = np.round(x).astype(dtype)
        specials = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, np.nan], dtype)
        where = rng.choice(size, size=min(size, 12), replace=False) if size else []
        x[where] = specials[np.arange(len(where)) % len(specials)]
    return x.reshape(shape)


def device(x):
    return gpuvec.to_device(x, dtype=x.dtype)


def bits(a):
    """An array's bits, so that -0.0 and 0.0 (and NaN payloads) differ."""
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ((0,), -1),
        ((1,), -1),
        ((1000,), -1),
        ((37, 129), -1),
        ((37, 129), 0),
        ((300, 5), 1),
        ((4, 5, 6), 1),
        ((6, 7), None),
    ],
)
@pytest.mark.parametrize("ties", [False, True])
def test_sort_and_argsort_match_numpy_stable(backend, rng, dtype, shape, axis, ties):
    x = random_data(rng, shape, dtype, ties=ties)
    d = device(x)
    expected = np.sort(x, axis=axis, kind="stable")
    result = gpuvec.sort(d, axis=axis)
    assert isinstance(result, gpuvec.DeviceArray)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(bits(result.to_host()), bits(expected))
    expected_order = np.argsort(x, axis=axis, kind="stable")
    order = gpuvec.argsort(d, axis=axis).to_host()
    np.testing.assert_array_equal(order, expected_order, strict=True)
    np.testing.assert_array_equal(d.to_host(), x)  # the input is not changed


def zeros_and_nans(rng, shape, dtype):
    """Floats that are mostly 0.0, -0.0 and NaNs of both signs and many
    payloads, among other values: equal to a sort, but not in their bits, so a
    stable sort must keep them in their input order."""
    dtype = np.dtype(dtype)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    size = int(np.prod(shape))
    x = rng.standard_normal(size).astype(dtype)
    kind = rng.integers(0, 4, size)
    x[kind == 1] = 0.0
    x[kind == 2] = -0.0
    nans = np.flatnonzero(kind == 3)
    quiet = int(np.array(np.nan, dtype).view(unsigned))
    sign = 1 << (8 * dtype.itemsize - 1)
    payloads = rng.integers(0, 1 << 20, len(nans))  # below the quiet bit of float32
    signs = np.where(rng.random(len(nans)) < 0.5, sign, 0)
    x.view(unsigned)[nans] = (quiet | payloads | signs).astype(unsigned)
    return x.reshape(shape)


def check_sort_and_argsort(x, axis=-1):
    """gpuvec's sort and argsort of x on the device against NumPy's stable ones,
    bits included; x is left as it was."""
    d = device(x)
    expected = np.sort(x, axis=axis, kind="stable")
    np.testing.assert_array_equal(bits(gpuvec.sort(d, axis=axis).to_host()), bits(expected))
    order = gpuvec.argsort(d, axis=axis).to_host()
    np.testing.assert_array_equal(order, np.argsort(x, axis=axis, kind="stable"), strict=True)
    np.testing.assert_array_equal(bits(d.to_host()), bits(x))


# One row and several, odd sizes, sizes around a power of two, one large:
# each takes a different path of the radix sorts (one tile or several, rows
# sorted apart or together, more than 256 rows).
SIZES = [
    (2,),
    (3,),
    (255,),
    (257,),
    (4097,),
    (2**20 + 3,),
    (1, 1),
    (2, 1),
    (3, 2**17 + 1),
    (257, 2),
    (5000, 3),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SIZES)
def test_sort_sizes_match_numpy(backend, rng, dtype, shape):
    check_sort_and_argsort(random_data(rng, shape, dtype, ties=len(shape) > 1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort_is_stable_over_many_ties(backend, rng, dtype):
    check_sort_and_argsort(random_data(rng, (2**20 + 3,), dtype, ties=True))
    check_sort_and_argsort(random_data(rng, (300, 1001), dtype, ties=True), axis=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("shape", "axis"),
    [((1,), -1), ((7,), -1), ((1000,), -1), ((2**20 + 3,), -1), ((33, 65), -1), ((300, 7), 0)],
)
def test_sort_keeps_the_order_of_zeros_and_nans(backend, rng, dtype, shape, axis):
    x = zeros_and_nans(rng, shape, dtype)
    check_sort_and_argsort(x, axis=axis)
    if x.ndim > 1:
        check_sort_and_argsort(x, axis=None)
    d = device(x)
    d.sort(axis=axis)  # in place: the values' memory is x's own
    np.testing.assert_array_equal(bits(d.to_host()), bits(np.sort(x, axis=axis, kind="stable")))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fill", [0.0, -0.0, np.nan, -np.nan])
def test_sort_of_one_run(backend, rng, dtype, fill):
    x = np.full(4099, fill, dtype)
    check_sort_and_argsort(x)
    x[rng.choice(x.size, 100, replace=False)] = zeros_and_nans(rng, (100,), dtype)
    check_sort_and_argsort(x)


def test_sort_numpy_input_strided_and_kinds(rng):
    x = rng.standard_normal((20, 30))[::2, ::-3]
    for kind in (None, "quicksort", "stable", "heapsort"):
        result = gpuvec.sort(x, kind=kind)
        assert type(result) is np.ndarray
        np.testing.assert_array_equal(result, np.sort(x))
    np.testing.assert_array_equal(
        gpuvec.argsort(x.T, axis=0), np.argsort(x.T, axis=0, kind="stable")
    )
    np.testing.assert_array_equal(gpuvec.sort([3, 1, 2]), np.sort([3, 1, 2]))


def test_sort_errors(backend):
    d = device(np.ones(3))
    for call in (gpuvec.sort, gpuvec.argsort):
        with pytest.raises(np.exceptions.AxisError):
            call(d, axis=1)
        with pytest.raises(np.exceptions.AxisError):
            call(device(np.array(1.0)))
        with pytest.raises(ValueError, match="kind"):
            call(d, kind="bogus")
        with pytest.raises(ValueError, match="order"):
            call(d, order="a")
        with pytest.raises(TypeError, match="a has dtype"):
            call(np.ones(2, np.complex64))
    np.testing.assert_array_equal(
        gpuvec.sort(device(np.array(2.0)), axis=None).to_host(), np.sort(np.array(2.0), axis=None)
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(backend, rng, dtype, side):
    a = np.sort(random_data(rng, (500,), dtype, ties=True))
    v = random_data(rng, (7, 31), dtype)
    v.flat[: len(a[:20])] = a[:20]
    expected = np.searchsorted(a, v, side=side)
    result = gpuvec.searchsorted(device(a), device(v), side=side)
    np.testing.assert_array_equal(result.to_host(), expected, strict=True)
    np.testing.assert_array_equal(gpuvec.searchsorted(a, v, side=side), expected, strict=True)


def test_searchsorted_scalars_empty_and_errors(backend):
    a = np.array([1, 2, 2, 5], np.int32)
    assert gpuvec.searchsorted(a, 2) == np.searchsorted(a, 2)
    assert gpuvec.searchsorted(a, 2, side="right") == np.searchsorted(a, 2, side="right")
    r = gpuvec.searchsorted(device(a), 2.5)
    assert int(r.to_host()) == np.searchsorted(a, 2.5)
    empty = np.zeros(0)
    np.testing.assert_array_equal(
        gpuvec.searchsorted(device(empty), device(np.ones(3))).to_host(),
        np.searchsorted(empty, np.ones(3)),
        strict=True,
    )
    with pytest.raises(ValueError, match="side"):
        gpuvec.searchsorted(device(a), 1, side="middle")
    with pytest.raises(ValueError, match="too deep"):
        gpuvec.searchsorted(device(np.ones((2, 2))), 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_matches_numpy(backend, rng, dtype):
    x = random_data(rng, (40, 25), dtype, ties=True)
    u, index, counts = gpuvec.unique(device(x), return_index=True, return_counts=True)
    eu, eindex, ecounts = np.unique(x, return_index=True, return_counts=True)
    np.testing.assert_array_equal(u.to_host(), eu, strict=True)
    np.testing.assert_array_equal(index.to_host(), eindex, strict=True)
    np.testing.assert_array_equal(counts.to_host(), ecounts, strict=True)
    np.testing.assert_array_equal(gpuvec.unique(x), np.unique(x))


def test_unique_empty_and_unsupported(backend):
    empty = np.zeros(0, np.int16)
    u, counts = gpuvec.unique(device(empty), return_counts=True)
    assert u.shape == (0,)
    assert u.dtype == np.int16
    assert counts.dtype == np.int64
    with pytest.raises(NotImplementedError):
        gpuvec.unique(device(empty), return_inverse=True)


def test_methods(backend, rng):
    x = rng.integers(-50, 50, (6, 9)).astype(np.int32)
    d = device(x)
    np.testing.assert_array_equal(d.cumsum(axis=1).to_host(), x.cumsum(axis=1), strict=True)
    np.testing.assert_array_equal(d.cumprod().to_host(), x.cumprod(), strict=True)
    np.testing.assert_array_equal(d.argsort(axis=0).to_host(), x.argsort(axis=0, kind="stable"))
    assert d.sort(axis=0) is None
    x.sort(axis=0)
    np.testing.assert_array_equal(d.to_host(), x, strict=True)


@pytest.mark.parametrize("module", [gpuvec.scans, gpuvec.sorting])
def test_docstring_examples(backend, module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
