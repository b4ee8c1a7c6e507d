"""DeviceArray: creation, views, copies, operators and ops that stay on the device."""

import numpy as np
import pytest
from conftest import random_array

import gpuvec

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_and_attributes(backend, rng, dtype):
    x = random_array(rng, (7, 11), dtype)
    d = gpuvec.to_device(x)
    assert isinstance(d, gpuvec.DeviceArray)
    assert (d.shape, d.dtype, d.ndim, d.size) == (x.shape, x.dtype, 2, 77)
    assert d.nbytes == x.nbytes
    assert d.strides == x.strides
    assert len(d) == 7
    assert d.device == gpuvec.current_device()
    np.testing.assert_array_equal(d.to_host(), x)
    np.testing.assert_array_equal(np.asarray(d), x)
    np.testing.assert_array_equal(gpuvec.asnumpy(d), x)


def test_to_device_copies_strided_and_converts(backend, rng):
    x = random_array(rng, (8, 9), np.float64)[::-2, 1::3]
    np.testing.assert_array_equal(gpuvec.to_device(x).to_host(), x)
    assert gpuvec.to_device(np.arange(3)).dtype == np.arange(3).dtype  # ints stay ints
    assert gpuvec.to_device(x, dtype=np.float32).dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
def test_creation_functions(backend, dtype):
    np.testing.assert_array_equal(gpuvec.zeros((2, 3), dtype).to_host(), np.zeros((2, 3), dtype))
    np.testing.assert_array_equal(gpuvec.ones(5, dtype).to_host(), np.ones(5, dtype))
    np.testing.assert_array_equal(gpuvec.full(4, -2.5, dtype).to_host(), np.full(4, -2.5, dtype))
    np.testing.assert_array_equal(
        gpuvec.arange(1, 10, 3, dtype=dtype).to_host(), np.arange(1, 10, 3, dtype=dtype)
    )
    e = gpuvec.empty((3, 0), dtype)
    assert e.shape == (3, 0)
    assert e.to_host().shape == (3, 0)
    like = gpuvec.ones((2, 2), dtype)
    assert gpuvec.empty_like(like).dtype == dtype
    np.testing.assert_array_equal(gpuvec.zeros_like(like).to_host(), np.zeros((2, 2), dtype))
    np.testing.assert_array_equal(gpuvec.ones_like(like).to_host(), np.ones((2, 2), dtype))
    np.testing.assert_array_equal(gpuvec.full_like(like, 3).to_host(), np.full((2, 2), 3, dtype))


@pytest.mark.parametrize(
    "key",
    [
        np.s_[2:100:3],
        np.s_[::-1],
        np.s_[:, 1],
        np.s_[1],
        np.s_[-1, ::-2],
        np.s_[..., 0],
        np.s_[None, 3:5],
        np.s_[1, 2],
        np.s_[5:2],
    ],
)
def test_basic_slicing_gives_views(backend, rng, key):
    x = random_array(rng, (120, 4), np.float64)
    d = gpuvec.to_device(x)
    view = d[key]
    np.testing.assert_array_equal(view.to_host(), x[key])
    if view.size:
        view += 1.0  # writes through the view into d
        x[key] += 1.0
        np.testing.assert_array_equal(d.to_host(), x)


def test_fancy_indexing_is_refused(backend):
    d = gpuvec.ones(5)
    with pytest.raises(TypeError, match="basic indexing only"):
        d[[0, 1]]
    with pytest.raises(TypeError, match="basic indexing only"):
        d[np.array([0, 2])]  # boolean masks are taken (tests/test_mask_indexing.py)
    with pytest.raises(IndexError):
        d[7]


def test_setitem(backend, rng):
    x = random_array(rng, 50, np.float64)
    d = gpuvec.to_device(x)
    d[3:9] = 2.5
    x[3:9] = 2.5
    d[::7] = np.arange(8.0)
    x[::7] = np.arange(8.0)
    d[-1] = gpuvec.full((), -4.0, np.float32)
    x[-1] = -4.0
    np.testing.assert_array_equal(d.to_host(), x)


def test_reshape_copy_astype(backend, rng):
    x = random_array(rng, 24, np.float32)
    d = gpuvec.to_device(x)
    np.testing.assert_array_equal(d.reshape(2, 3, 4).to_host(), x.reshape(2, 3, 4))
    np.testing.assert_array_equal(d.reshape((4, -1)).to_host(), x.reshape(4, -1))
    with pytest.raises(ValueError, match="cannot reshape array of size 24 into shape"):
        d.reshape(5, 5)
    strided = d.reshape(4, 6)[:, ::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        strided.reshape(12)
    copied = strided.copy()
    assert copied.is_c_contiguous
    np.testing.assert_array_equal(copied.reshape(12).to_host(), x.reshape(4, 6)[:, ::2].ravel())
    as64 = d.astype(np.float64)
    assert as64.dtype == np.float64
    np.testing.assert_array_equal(as64.to_host(), x.astype(np.float64))
    copied[0, 0] = 99.0
    assert d.to_host()[0] == x[0]  # the copy does not share memory


@pytest.mark.parametrize("dtype", DTYPES)
def test_ops_stay_on_device(backend, rng, dtype, no_transfers):
    x, y = random_array(rng, 4099, dtype), random_array(rng, 4099, dtype)
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    with no_transfers:
        s = gpuvec.add(dx, dy)
        t = gpuvec.axpy(2.0, dx, dy)
        u = gpuvec.scale(dx[::-1], 0.5)
        total = gpuvec.dot(t, dy)
    assert isinstance(s, gpuvec.DeviceArray)
    assert isinstance(total, gpuvec.DeviceArray)
    assert total.shape == ()
    np.testing.assert_array_equal(s.to_host(), x + y)
    np.testing.assert_array_equal(t.to_host(), dtype(2.0) * x + y)
    np.testing.assert_array_equal(u.to_host(), dtype(0.5) * x[::-1])
    expected = np.dot((dtype(2.0) * x + y).astype(np.float64), y.astype(np.float64))
    assert float(total) == pytest.approx(expected, rel=1e-5 if dtype == np.float32 else 1e-12)


def test_python_operators(backend, rng):
    x, y = random_array(rng, 33, np.float64), random_array(rng, 33, np.float64)
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    np.testing.assert_array_equal((dx + dy).to_host(), x + y)
    np.testing.assert_array_equal((dx - 1.5).to_host(), x - 1.5)
    np.testing.assert_array_equal((2 - dx).to_host(), 2 - x)
    np.testing.assert_array_equal((dx * dy).to_host(), x * y)
    np.testing.assert_array_equal((3 * dx).to_host(), 3 * x)
    np.testing.assert_array_equal((dx / dy).to_host(), x / y)
    np.testing.assert_array_equal((1 / dx).to_host(), 1 / x)
    np.testing.assert_array_equal((-dx).to_host(), -x)


def test_in_place_operators_allocate_nothing(backend, rng, no_transfers):
    x = random_array(rng, 1000, np.float32)
    d = gpuvec.to_device(x)
    other = gpuvec.to_device(x)
    address, host = d._address, d._host  # device memory, or the host backend's array
    d += other
    d *= other
    d -= other
    d /= other
    assert d._address == address
    assert d._host is host
    expected = (((x + x) * x) - x) / x
    np.testing.assert_array_equal(d.to_host(), expected)


def test_scalar_conversion(backend):
    total = gpuvec.sum(gpuvec.arange(53735))
    assert float(total) == 53734 * 53735 // 2
    assert int(gpuvec.full((), 3.0)) == 3
    with pytest.raises(TypeError, match="only one-element arrays"):
        float(gpuvec.ones(2))


def test_mixing_numpy_and_device_arrays_is_refused(backend):
    d = gpuvec.ones(3)
    with pytest.raises(TypeError, match=r"to_device\(a\)"):
        gpuvec.add(np.ones(3), d)
    with pytest.raises(TypeError, match=r"to_device\(b\)"):
        d + np.ones(3)
    with pytest.raises(TypeError, match=r"\(ndarray\) is in host memory"):
        np.ones(3) + d
    with pytest.raises(TypeError, match="out must be a DeviceArray"):
        gpuvec.add(d, d, out=np.empty(3))


def test_device_out_checks(backend):
    d = gpuvec.ones(3)
    with pytest.raises(ValueError, match=r"out has shape \(2,\)"):
        gpuvec.add(d, d, out=gpuvec.empty(2))
    narrow = gpuvec.empty(3, np.float32)
    assert gpuvec.add(d, d, out=narrow) is narrow  # cast, as NumPy's same_kind does
    np.testing.assert_array_equal(narrow.to_host(), np.full(3, 2, np.float32))
    with pytest.raises(ValueError, match="read-only"):
        gpuvec.add(d, d, out=d._broadcast_to((3,)))


def test_partially_overlapping_device_out(backend, rng):
    x = random_array(rng, 100, np.float64)
    d = gpuvec.to_device(x)
    gpuvec.add(d[:-1], 1.0, out=d[1:])
    expected = x.copy()
    expected[1:] = x[:-1] + 1.0
    np.testing.assert_array_equal(d.to_host(), expected)


def test_mixed_dtypes_on_device(backend, rng):
    x = random_array(rng, 10, np.float32)
    y = random_array(rng, 10, np.float64)
    result = gpuvec.to_device(x) + gpuvec.to_device(y)
    assert result.dtype == np.float64
    np.testing.assert_array_equal(result.to_host(), x.astype(np.float64) + y)
    assert (gpuvec.to_device(x) * 2.0).dtype == np.float32


def test_repr_and_html(backend):
    d = gpuvec.arange(4, dtype=np.float32)
    assert repr(d) == "DeviceArray([0., 1., 2., 3.], dtype=float32)"
    page = d._repr_html_()
    assert "<table>" in page
    assert "float32" in page
    assert "(4,)" in page
    assert "DeviceArray(" in repr(gpuvec.zeros((2000, 2000)))
    assert "<table>" in gpuvec.current_device()._repr_html_()


def test_constructor_points_to_the_creation_functions():
    with pytest.raises(TypeError, match=r"gpuvec\.to_device"):
        gpuvec.DeviceArray()


def test_short_path_with_out_and_overlaps(backend, rng):
    x = random_array(rng, 101, np.float64)
    d = gpuvec.to_device(x)
    # Exact aliasing is written in place...
    assert gpuvec.add(d, d, out=d) is d
    x = x + x
    np.testing.assert_array_equal(d.to_host(), x)
    # ...a partial overlap takes the general path's temporary.
    gpuvec.add(d[:-1], d[1:], out=d[1:])
    x[1:] = x[:-1] + x[1:]
    np.testing.assert_array_equal(d.to_host(), x)
    gpuvec.scale(d[1:], 2.0, out=d[:-1])
    x[:-1] = 2.0 * x[1:]
    np.testing.assert_array_equal(d.to_host(), x)
    gpuvec.axpy(3.0, d[::2][:-1], d[1::2], out=d[1::2])  # strided: the general path
    x[1::2] = 3.0 * x[::2][:-1] + x[1::2]
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_result_as_an_operand(backend, rng, dtype):
    x = random_array(rng, 1000, dtype)
    d = gpuvec.to_device(x)
    total = gpuvec.sum(d)
    normalized = d / total  # a 0-d result broadcast over the array
    expected = x / np.asarray(float(total), dtype)
    np.testing.assert_allclose(normalized.to_host(), expected, rtol=4 * np.finfo(dtype).eps)
    assert float(gpuvec.sum(normalized)) == pytest.approx(1.0, rel=1e-4)
    results = [gpuvec.dot(d, d) for _ in range(50)]  # many results alive at once
    assert len({float(r) for r in results}) == 1


AXIS_OPS = {
    "sum": np.sum,
    "mean": np.mean,
    "min": np.min,
    "max": np.max,
    "prod": np.prod,
    "var": np.var,
    "std": np.std,
    "nansum": np.nansum,
    "nanmean": np.nanmean,
}


@pytest.mark.parametrize("name", AXIS_OPS)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_axis_reductions_stay_on_device(backend, rng, name, axis, no_transfers):
    x = rng.uniform(0.5, 1.5, (6, 7, 5))  # prod stays finite
    d = gpuvec.to_device(x)[:, ::-1]
    expected = AXIS_OPS[name](x[:, ::-1], axis=axis)
    with no_transfers:
        result = getattr(gpuvec, name)(d, axis=axis)
        kept = getattr(gpuvec, name)(d, axis=axis, keepdims=True)
    assert isinstance(result, gpuvec.DeviceArray)
    assert result.shape == np.shape(expected)
    assert kept.shape == AXIS_OPS[name](x, axis=axis, keepdims=True).shape
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-12)


def test_norm_and_arg_reductions_of_device_arrays(backend, rng):
    x = random_array(rng, (9, 11), np.float32)
    d = gpuvec.to_device(x)
    assert float(gpuvec.norm(d)) == pytest.approx(float(np.linalg.norm(x.astype(float))), 1e-6)
    np.testing.assert_allclose(
        gpuvec.asum(d, axis=0).to_host(), np.abs(x).sum(axis=0, dtype=float), rtol=1e-6
    )
    assert gpuvec.argmax(d) == int(x.argmax())
    np.testing.assert_array_equal(gpuvec.argmin(d, axis=1), x.argmin(axis=1))


def test_where_on_device_arrays(backend, rng):
    x, y = random_array(rng, (8, 5), np.float64), random_array(rng, 5, np.float64)
    cond = x > 0
    result = gpuvec.where(cond, gpuvec.to_device(x), gpuvec.to_device(y))
    assert isinstance(result, gpuvec.DeviceArray)
    np.testing.assert_array_equal(result.to_host(), np.where(cond, x, y))
    with pytest.raises(TypeError, match="must be a bool array"):
        gpuvec.where(gpuvec.to_device(x), x, y)  # a float condition
    # A device condition, as a comparison makes it.
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    np.testing.assert_array_equal(gpuvec.where(dx > 0, dx, dy).to_host(), np.where(cond, x, y))
