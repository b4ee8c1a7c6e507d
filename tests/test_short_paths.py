"""The short call paths for device arrays: strided binary ops, reductions over
all axes or one, and single-pass reductions on several streams at once.

On the cuda backend these calls skip the general Python path; the answers
must be the general path's: NumPy's, with the same overlap rules and errors.
"""

import numpy as np
import pytest
from conftest import SIZES, random_array

import gpuvec
from gpuvec import _core

DTYPES = [np.float32, np.float64]

VIEWS = {
    "step-2": (lambda a: a[::2], (2001,)),
    "reversed-step": (lambda a: a[::-3], (3001,)),
    "transposed": (lambda a: a.T, (37, 41)),
    "column": (lambda a: a[:, 5], (53, 11)),
    "3d-mixed": (lambda a: a[::-1, 1::2, ::3], (5, 9, 13)),
}


def poisoned_out(shape, dtype):
    return gpuvec.full(shape, np.nan, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", VIEWS)
def test_strided_binary_ops(backend, rng, dtype, view):
    make, base_shape = VIEWS[view]
    x, y = random_array(rng, base_shape, dtype), random_array(rng, base_shape, dtype)
    a, b = make(gpuvec.to_device(x)), make(gpuvec.to_device(y))
    before = _core.transfer_counts()
    fresh = gpuvec.subtract(a, b)
    assert _core.transfer_counts() == before, "a device op moved data"
    assert fresh.shape == make(x).shape
    assert fresh.dtype == dtype
    np.testing.assert_array_equal(fresh.to_host(), make(x) - make(y))
    out = poisoned_out(make(x).shape, dtype)
    assert gpuvec.multiply(a, b, out=out) is out
    np.testing.assert_array_equal(out.to_host(), make(x) * make(y))


@pytest.mark.parametrize("n", [s for s in SIZES if s < 100_000])
def test_strided_binary_sizes(backend, rng, n):
    x, y = random_array(rng, 2 * n, np.float32), random_array(rng, 2 * n, np.float32)
    result = gpuvec.add(gpuvec.to_device(x)[::2], gpuvec.to_device(y)[1::2])
    np.testing.assert_array_equal(result.to_host(), x[::2] + y[1::2])


def test_strided_out_in_place_and_overlaps(backend, rng):
    x = random_array(rng, 1001, np.float64)
    d = gpuvec.to_device(x)
    # The very same strided view as input and output: in place.
    view = d[::2]
    assert gpuvec.add(view, view, out=view) is view
    x[::2] = x[::2] + x[::2]
    np.testing.assert_array_equal(d.to_host(), x)
    # Interleaved views do not share an element, but their byte ranges
    # overlap: the result must still be right.
    gpuvec.add(d[1::2], d[1::2], out=d[:-1:2])
    x[:-1:2] = x[1::2] + x[1::2]
    np.testing.assert_array_equal(d.to_host(), x)
    # A shifted view overlaps for real: each element must read the old values.
    gpuvec.add(d[:-2:2], d[2::2], out=d[2::2])
    x[2::2] = x[:-2:2] + x[2::2]
    np.testing.assert_array_equal(d.to_host(), x)


def test_strided_out_errors(backend, rng):
    d = gpuvec.to_device(random_array(rng, 100, np.float32))
    with pytest.raises(ValueError, match="out has shape"):
        gpuvec.add(d[::2], d[1::2], out=gpuvec.empty(49, np.float32))
    # An out of the other float dtype takes the float32 result, cast as NumPy's same_kind does.
    wide = gpuvec.add(d[::2], d[1::2], out=gpuvec.empty(50, np.float64))
    x = d.to_host()
    np.testing.assert_array_equal(wide.to_host(), (x[::2] + x[1::2]).astype(np.float64))
    with pytest.raises(ValueError, match=r"a \(50,\) and b \(34,\) cannot be broadcast"):
        gpuvec.add(d[::2], d[::3])


REDUCTIONS = {
    "sum": (gpuvec.sum, np.sum),
    "mean": (gpuvec.mean, np.mean),
    "max": (gpuvec.max, np.max),
    "var": (
        lambda a, axis: gpuvec.var(a, axis=axis, ddof=1),
        lambda a, axis: np.var(a, axis, ddof=1),
    ),
    "norm": (gpuvec.norm, lambda a, axis: np.linalg.norm(a, axis=axis)),
}


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("view", ["transposed", "3d-mixed", "step-2"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_reductions_over_all_axes_or_one(backend, rng, name, view, axis):
    ours, numpys = REDUCTIONS[name]
    make, base_shape = VIEWS[view]
    x = random_array(rng, base_shape, np.float64)
    d = make(gpuvec.to_device(x))
    before = _core.transfer_counts()
    result = ours(d, axis=axis)
    assert _core.transfer_counts() == before, "a device reduction moved data"
    expected = numpys(make(x), axis=axis)
    assert isinstance(result, gpuvec.DeviceArray)
    assert result.shape == np.shape(expected)
    # Sums of both signs cancel: measure their error against the magnitudes summed.
    scale = np.sum(np.abs(make(x)), axis=axis)
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-12, atol=1e-14 * np.max(scale))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 1023, 4099, 65537, 1_000_003])
def test_row_sums_of_odd_rows(backend, rng, dtype, n):
    # Rows of odd length start off 16-byte boundaries: loads must not assume them.
    rows = max(1, 2_000_000 // n)
    x = random_array(rng, (rows, n), dtype)
    d = gpuvec.to_device(x)
    expected = x.astype(np.float64).sum(axis=1)
    tolerance = 1e-6 if dtype == np.float32 else 1e-12
    scale = np.abs(x.astype(np.float64)).sum(axis=1)
    got = gpuvec.sum(d, axis=1).to_host().astype(np.float64)
    assert np.all(np.abs(got - expected) <= tolerance * scale + 1e-30)
    assert int(gpuvec.argmax(d[-1])) == int(x[-1].argmax())


def test_few_degrees_of_freedom_still_warn(backend, rng):
    x = random_array(rng, (4, 3), np.float64)
    with pytest.warns(RuntimeWarning):
        result = gpuvec.var(gpuvec.to_device(x), axis=1, ddof=3)
    with pytest.warns(RuntimeWarning):
        expected = np.var(x, axis=1, ddof=3)
    np.testing.assert_array_equal(result.to_host(), expected)


def test_axis_out_of_range_on_device(backend, rng):
    d = gpuvec.to_device(random_array(rng, (4, 3), np.float64))
    with pytest.raises(ValueError, match="axis"):
        gpuvec.sum(d, axis=2)


def test_reductions_on_many_streams(backend, rng):
    # Single-pass reductions keep a scratch area per stream: reductions on
    # several streams at once must not mix up their partial totals.
    arrays = [random_array(rng, 3_000_017, np.float64) for _ in range(4)]
    devices = [gpuvec.to_device(a) for a in arrays]
    streams = [gpuvec.Stream() for _ in arrays]
    sums, norms = [], []
    for _ in range(5):
        for d, s in zip(devices, streams, strict=True):
            sums.append(gpuvec.sum(d, stream=s))
            norms.append(gpuvec.norm(d, stream=s))
    for s in streams:
        s.synchronize()
    for k, (total, norm) in enumerate(zip(sums, norms, strict=True)):
        x = arrays[k % len(arrays)]
        assert float(total) == pytest.approx(float(np.sum(x)), rel=1e-12, abs=1e-9)
        assert float(norm) == pytest.approx(float(np.linalg.norm(x)), rel=1e-12)
    # A stream made after others were dropped starts with a clean scratch.
    del streams, s
    fresh = gpuvec.Stream()
    assert float(gpuvec.dot(devices[0], devices[1], stream=fresh)) == pytest.approx(
        float(np.dot(arrays[0], arrays[1])), rel=1e-10
    )


def test_one_value_results_are_recycled_safely(backend, rng):
    # Reductions to one value write into slots of host memory that are
    # recycled once given back; several thousand results, most dropped unread
    # while their kernels may still run, some kept, must each keep its own
    # value. (The slots come in blocks of 4096, so this spans several.)
    x = np.abs(random_array(rng, 100_003, np.float64)) + 1.0  # sums far from 0
    d = gpuvec.to_device(x)
    scales = rng.uniform(0.5, 2.0, size=64)
    scaled = [gpuvec.scale(d, float(c)) for c in scales]
    expected = [float(np.sum(x * c)) for c in scales]
    kept = []
    for k in range(12_000):
        total = gpuvec.sum(scaled[k % len(scaled)])
        if k % 97 == 0:
            kept.append((k % len(scaled), total))
        if k % 1001 == 0:  # read at once, on the default stream and on another one
            assert float(total) == pytest.approx(expected[k % len(scaled)], rel=1e-12)
            with gpuvec.Stream():
                other = gpuvec.sum(scaled[(k + 1) % len(scaled)])
            assert float(other) == pytest.approx(expected[(k + 1) % len(scaled)], rel=1e-12)
    gpuvec.synchronize()
    for j, total in kept:
        assert float(total) == pytest.approx(expected[j], rel=1e-12)
