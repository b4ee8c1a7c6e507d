"""What a newcomer from NumPy tries first on a DeviceArray, answered as NumPy answers it.

Assignment of anything NumPy converts (``d[...] = [1, 2, 3, 4]``), == and != with
None and text, the size errors of the creation functions, and ``get()``; each
compared with NumPy on fresh random data, on both backends.
"""

import re
import sys

import numpy as np
import pytest
from conftest import random_array

import gpuvec

FLOATS = [np.float32, np.float64]
# Every real dtype NumPy assigns from.
VALUE_DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64,
]  # fmt: skip


def random_values(rng, shape, dtype):
    """Random values of ``dtype`` (small whole numbers for ints, any sign where it fits)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "u":
        return rng.integers(0, 100, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-100, 100, shape).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def assign_both(x, key, value):
    """x[key] = value in NumPy and on a DeviceArray copy of x; the two results."""
    d = gpuvec.to_device(x)
    expected = x.copy()
    expected[key] = value
    d[key] = value
    return d.to_host(), expected


# Keys of a (6, 5) array, as a newcomer writes them.
KEYS = [..., (), slice(None), slice(1, 3), slice(None, None, -2), 2, -1, (slice(None), 1),
        (Ellipsis, slice(1, 4)), (1, slice(0, 5, 2)), (slice(2, 4), None)]  # fmt: skip


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("dtype", FLOATS)
def test_assigning_lists_and_tuples(backend, rng, key, dtype):
    x = random_array(rng, (6, 5), dtype)
    shape = x[key].shape
    as_list = random_values(rng, shape, np.int64).tolist()  # ints: NumPy converts them
    got, expected = assign_both(x, key, as_list)
    np.testing.assert_array_equal(got, expected)
    as_tuple = tuple(random_values(rng, shape[-1:], np.float64).tolist())  # broadcast rows
    got, expected = assign_both(x, key, as_tuple)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("value_dtype", VALUE_DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("dtype", [*FLOATS, np.bool_], ids=lambda t: np.dtype(t).name)
def test_assigning_numpy_arrays_of_every_real_dtype(backend, rng, value_dtype, dtype):
    x = random_values(rng, (6, 5), dtype)
    for key, shape in [(..., (6, 5)), (slice(1, 3), (2, 5)), (slice(None), (5,)), ((), (1, 5))]:
        value = random_values(rng, shape, value_dtype)
        got, expected = assign_both(x, key, value)
        np.testing.assert_array_equal(got, expected)
        got, expected = assign_both(x, key, value[(0,) * value.ndim][()])  # a NumPy scalar
        np.testing.assert_array_equal(got, expected)
        got, expected = assign_both(x, key, np.asarray(value.flat[0]))  # a 0-d array
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("value", [5, -3, 2.5, True, 0, 10**20], ids=repr)
def test_assigning_python_numbers(backend, rng, value):
    x = random_array(rng, (6, 5), np.float64)
    for key in KEYS:
        got, expected = assign_both(x, key, value)
        np.testing.assert_array_equal(got, expected)


def test_zero_d_arrays_take_every_kind_of_value(backend, rng):
    for value in [5, 2.5, np.int16(3), np.array(4, np.uint8), np.float32(1.5)]:
        x = np.array(rng.standard_normal())
        got, expected = assign_both(x, (), value)
        np.testing.assert_array_equal(got, expected)
    for value in [5, np.int16(3), np.array(4, np.uint8), np.array([[2.5]]), np.array([3])]:
        x = np.array(rng.standard_normal())
        got, expected = assign_both(x, ..., value)
        np.testing.assert_array_equal(got, expected)


def test_assigning_a_device_array_with_leading_ones(backend, rng):
    x, y = random_array(rng, (6, 5), np.float64), random_array(rng, (1, 1, 5), np.float64)
    d = gpuvec.to_device(x)
    d[1:3] = gpuvec.to_device(y)
    x[1:3] = y
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (..., [1, 2, 3]),
        (slice(1, 3), np.arange(10).reshape(5, 2)),
        (slice(1, 3), np.ones((3, 5), np.int32)),
        (0, np.ones((2, 5))),
        (slice(None), [[1.0, 2.0]]),
        ((slice(None), 1), np.arange(5)),
        ((), np.ones((2, 6, 5))),
    ],
    ids=repr,
)
def test_shapes_that_do_not_broadcast_raise_numpys_error(backend, rng, key, value):
    x = random_array(rng, (6, 5), np.float64)
    with pytest.raises(ValueError, match="could not broadcast") as numpy_error:
        x[key] = value
    d = gpuvec.to_device(x)
    with pytest.raises(ValueError, match=re.escape(str(numpy_error.value))):
        d[key] = value
    np.testing.assert_array_equal(d.to_host(), x)  # nothing was written


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (..., [[1, 2], [3]]),
        (..., [1j, 2]),
        (0, [1j, 2]),
        (..., "x"),
        (0, "x"),
        (..., [[[1, 2]]]),
        (0, [[1, 2]]),
        (..., [[1, 2, 3]]),
        (0, [[1, 2, 3]]),
    ],
    ids=repr,
)
def test_values_numpy_refuses_are_refused_with_its_error(backend, rng, key, value):
    x = random_array(rng, (2, 2), np.float64)
    with pytest.raises((ValueError, TypeError)) as numpy_error:
        x[key] = value
    d = gpuvec.to_device(x)
    with pytest.raises(numpy_error.type, match=re.escape(str(numpy_error.value))):
        d[key] = value
    np.testing.assert_array_equal(d.to_host(), x)


def test_values_numpy_reads_as_numbers_are_read_alike(backend, rng):
    for value in [[None, 1.5], ["2.5", 3], ("1e3", True), [np.float16(1.5), 2**70]]:
        x = random_array(rng, (3, 2), np.float32)
        got, expected = assign_both(x, slice(1, 2), value)
        np.testing.assert_array_equal(got, expected)


def test_read_only_views_refuse_assignment(backend):
    d = gpuvec.zeros(4)._broadcast_to((3, 4))
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        d[...] = [1, 2, 3, 4]


# -- == and != with None and text --------------------------------------------------------------


@pytest.mark.parametrize("other", [None, "abc", "1.0", "", b"abc", np.str_("x")], ids=repr)
@pytest.mark.parametrize("shape", [(), (4,), (3, 5), (0, 2)], ids=str)
def test_equality_with_none_and_text_is_elementwise(backend, rng, shape, other):
    x = random_array(rng, shape, np.float64)
    d = gpuvec.to_device(x)
    for got, expected in [
        (d == other, x == other),
        (other == d, other == x),
        (d != other, x != other),
        (other != d, other != x),
    ]:
        assert isinstance(got, gpuvec.DeviceArray)
        assert got.dtype == np.bool_
        assert got.device == d.device
        np.testing.assert_array_equal(got.to_host(), np.asarray(expected), strict=True)


def test_equality_with_none_of_a_view_and_a_float32_array(backend, rng):
    x = random_array(rng, (4, 6), np.float32)
    d = gpuvec.to_device(x)[::2, 1::3]
    np.testing.assert_array_equal((d == None).to_host(), x[::2, 1::3] == None)  # noqa: E711
    np.testing.assert_array_equal((d != None).to_host(), x[::2, 1::3] != None)  # noqa: E711


# -- sizes beyond any address ------------------------------------------------------------------

SHAPES = [
    (2**32, 2**32),
    (2**31, 2**31, 4),
    2**61,
    (2**62,),
    (0, 2**62),
    (2**62, 0),
    (0, 2**61),
    2**63,
    (1, 2**64),
    (0, 2**63),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.bool_], ids=lambda t: t.__name__)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_creation_of_shapes_too_big_raises_numpys_value_error(backend, shape, dtype):
    try:
        np.empty(shape, dtype)
    except ValueError:
        outcome = ValueError
    except MemoryError:
        outcome = MemoryError  # not too big, only more than this machine has
    else:
        outcome = None  # an empty array of that shape: gpuvec makes it too
    dims = (shape,) if isinstance(shape, int) else shape
    makers = [
        lambda: gpuvec.empty(shape, dtype),
        lambda: gpuvec.zeros(shape, dtype),
        lambda: gpuvec.ones(shape, dtype),
        lambda: gpuvec.full(shape, 2, dtype),
        lambda: np.empty_like(gpuvec.zeros(1, dtype), shape=shape),
        lambda: np.zeros_like(gpuvec.zeros(1, dtype), shape=shape),
        lambda: np.ones_like(gpuvec.zeros(1, dtype), shape=shape),
        lambda: np.full_like(gpuvec.zeros(1, dtype), 3, shape=shape),
    ]
    for make in makers:
        if outcome is ValueError:
            with pytest.raises(ValueError, match=re.escape(str(tuple(dims)))):
                make()
        elif outcome is MemoryError:
            with pytest.raises(MemoryError):
                make()
        else:
            assert make().shape == tuple(dims)


def test_arange_too_big_raises_numpys_value_error(backend):
    with pytest.raises(ValueError, match=r"too big|Maximum allowed") as numpy_error:
        np.arange(2**62)
    with pytest.raises(ValueError, match=re.escape(str(numpy_error.value))):
        gpuvec.arange(2**62)


def test_the_largest_size_is_not_refused_as_too_big(backend):
    # One byte under the limit: too much memory for any machine, but not too big.
    with pytest.raises(MemoryError):
        gpuvec.empty(sys.maxsize // 8, np.float64)


# -- get() -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [*FLOATS, np.bool_], ids=lambda t: np.dtype(t).name)
def test_get_returns_the_numpy_copy(backend, rng, dtype):
    x = random_values(rng, (7, 9), dtype)
    d = gpuvec.to_device(x)
    for view, expected in [(d, x), (d[::-2, 1::3], x[::-2, 1::3]), (d[3, 4], x[3, 4])]:
        got = view.get()
        assert type(got) is np.ndarray
        assert got.flags.c_contiguous
        assert got.flags.writeable
        np.testing.assert_array_equal(got, expected, strict=True)
    got = d.get()
    got[0, 0] = not got[0, 0] if dtype == np.bool_ else got[0, 0] + 1
    np.testing.assert_array_equal(d.to_host(), x)  # a copy: the device data stays


def test_get_waits_for_a_stream(backend, rng):
    x = random_array(rng, 1000, np.float64)
    d = gpuvec.to_device(x)
    stream = gpuvec.Stream()
    with stream:
        e = d * 2
    np.testing.assert_array_equal(e.get(stream=stream), x * 2)
    np.testing.assert_array_equal(e.get(stream), x * 2)
    with pytest.raises(TypeError, match=r"stream must be a gpuvec\.Stream or None, got 5"):
        d.get(stream=5)
