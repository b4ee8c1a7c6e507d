"""The dtype policy: result dtypes, casting and the dtype= override."""

import numpy as np
import pytest
from conftest import random_array

import gpuvec
from gpuvec._dtypes import check_array_dtype, check_dtype, native_byte_order

f32, f64 = np.float32, np.float64


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (np.ones(3, f32), np.ones(3, f32), f32),
        (np.ones(3, f32), np.ones(3, f64), f64),
        (np.ones(3, f64), np.ones(3, f64), f64),
        (np.ones(3, f32), 2.0, f32),  # Python scalars do not upcast (NumPy 2)
        (np.ones(3, f32), 2, f32),
        (np.ones(3, np.int32), np.ones(3, np.int64), np.int64),  # ints stay ints, as in NumPy
        (np.ones(3, bool), np.ones(3, bool), bool),  # add of bools is a logical or
        (np.ones(3, np.int16), np.ones(3, f32), f32),  # NumPy: int16 fits in float32
        (np.ones(3, np.int32), np.ones(3, f32), f64),
        (np.ones(3, np.float16), np.ones(3, np.float16), np.float16),  # computed in float32
        (np.ones(3, np.float16), np.ones(3, f32), f32),
        ([1, 2, 3], [4, 5, 6], np.int64),
        (1.5, 2.5, f64),
    ],
)
def test_result_dtype(backend, a, b, expected):
    result = gpuvec.add(a, b)
    assert result.dtype == expected
    np.testing.assert_array_equal(result, np.add(a, b, dtype=expected))


def test_dtype_float32_casts_float64_down(backend, rng):
    a, b = random_array(rng, 1000, f64), random_array(rng, 1000, f64)
    result = gpuvec.add(a, b, dtype=np.float32)
    assert result.dtype == f32
    np.testing.assert_array_equal(result, a.astype(f32) + b.astype(f32))


def test_dtype_float64_casts_float32_up(backend, rng):
    a = random_array(rng, 100, f32)
    result = gpuvec.multiply(a, a, dtype="float64")
    assert result.dtype == f64
    np.testing.assert_array_equal(result, a.astype(f64) ** 2)


def test_reduction_dtype(backend, rng):
    x = random_array(rng, 1000, f64)
    assert gpuvec.sum(x, dtype=np.float32) == pytest.approx(x.sum(), rel=1e-5)
    assert gpuvec.sum(x, dtype=np.float32) == float(np.float32(gpuvec.sum(x, dtype=np.float32)))


def test_scalars_give_numpy_scalars(backend):
    result = gpuvec.add(1.0, 2.0)
    assert result == 3.0
    assert np.ndim(result) == 0


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.float16, bool])
def test_other_real_dtypes_are_accepted(backend, dtype):
    """Ints and bools compute in their own dtype, as in NumPy; float16 in
    float32, its result rounded to float16, as NumPy's."""
    a = np.arange(10).astype(dtype)
    result = gpuvec.add(a, a)
    expected = np.add(a, a)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", [f32, f64, np.float16, np.int16, np.int64, np.uint32])
def test_byte_order_is_part_of_the_dtype(backend, rng, dtype):
    """Data in the other byte order has the dtype policy of its native twin
    (tests/test_byte_order.py checks every op)."""
    a = random_array(rng, 33, dtype)
    swapped = a.astype(a.dtype.newbyteorder("S"))
    result = gpuvec.multiply(swapped, a)
    assert result.dtype == gpuvec.multiply(a, a).dtype
    assert result.dtype.isnative
    np.testing.assert_array_equal(result, gpuvec.multiply(a, a))


@pytest.mark.parametrize("dtype", [f32, f64, np.int32, np.float16, bool, np.uint8])
def test_native_byte_order(rng, dtype):
    """A copy only where the byte order is the other one; bools and bytes have none."""
    a = random_array(rng, (4, 5), dtype)[:, ::-2]
    assert native_byte_order(a) is a
    other = a.astype(a.dtype.newbyteorder("S"))
    converted = native_byte_order(other)
    assert converted.dtype == a.dtype
    np.testing.assert_array_equal(converted, a)
    assert (converted is other) == (a.dtype.itemsize == 1)


def test_dtype_argument_in_either_byte_order():
    assert check_dtype(np.dtype(f32).newbyteorder("S")) == f32
    assert check_array_dtype(np.dtype(f64).newbyteorder("S")) == f64
    with pytest.raises(TypeError, match="float32 or float64, got int32"):
        check_dtype(np.dtype(np.int32).newbyteorder("S"))


# Device inputs that share a dtype other than the one the op computes in are
# converted by the kernels as they load each element: every kernel shape
# (contiguous packs, broadcast rows, one strided dimension, N-d) in both
# directions, with scalars kept in the compute dtype.
CONVERTED_LAYOUTS = {
    "contiguous": (lambda a: a, (1025,)),
    "rows": (lambda a: a, (9, 16)),
    "step-2": (lambda a: a[::2], (2001,)),
    "3d-mixed": (lambda a: a[::-1, 1::2, ::3], (5, 9, 13)),
}


@pytest.mark.parametrize(("stored", "compute"), [(f32, f64), (f64, f32)])
@pytest.mark.parametrize("layout", CONVERTED_LAYOUTS)
def test_dtype_converts_device_inputs_as_it_loads(backend, rng, stored, compute, layout):
    view, shape = CONVERTED_LAYOUTS[layout]
    a, b = random_array(rng, shape, stored), random_array(rng, shape, stored)
    da, db = (view(gpuvec.to_device(x)) for x in (a, b))
    a, b = view(a), view(b)
    m = random_array(rng, (*a.shape[:-1], 1), stored)  # broadcast along the last axis
    dm = gpuvec.to_device(m)
    cases = [
        (gpuvec.add(da, db, dtype=compute), np.add(a, b, dtype=compute)),
        (gpuvec.subtract(da, dm, dtype=compute), np.subtract(a, m, dtype=compute)),
        (gpuvec.multiply(da, 0.1, dtype=compute), np.multiply(a, 0.1, dtype=compute)),
        (gpuvec.divide(0.1, da, dtype=compute), np.divide(0.1, a, dtype=compute)),
        (gpuvec.sqrt(gpuvec.abs(da), dtype=compute), np.sqrt(np.abs(a), dtype=compute)),
        (gpuvec.clip(da, -1.5, db, dtype=compute), np.clip(a, -1.5, b, dtype=compute)),
    ]
    for result, expected in cases:
        assert result.dtype == compute
        np.testing.assert_array_equal(result.to_host(), expected)
