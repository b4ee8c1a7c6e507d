"""The dtype policy: result dtypes, casting and the dtype= override."""

import numpy as np
import pytest
from conftest import random_array

import gpuvec

f32, f64 = np.float32, np.float64


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (np.ones(3, f32), np.ones(3, f32), f32),
        (np.ones(3, f32), np.ones(3, f64), f64),
        (np.ones(3, f64), np.ones(3, f64), f64),
        (np.ones(3, f32), 2.0, f32),  # Python scalars do not upcast (NumPy 2)
        (np.ones(3, f32), 2, f32),
        (np.ones(3, np.int32), np.ones(3, np.int64), f64),  # ints become float64
        (np.ones(3, bool), np.ones(3, bool), f64),
        (np.ones(3, np.int16), np.ones(3, f32), f32),  # NumPy: int16 fits in float32
        (np.ones(3, np.int32), np.ones(3, f32), f64),
        (np.ones(3, np.float16), np.ones(3, np.float16), f32),
        ([1, 2, 3], [4, 5, 6], f64),
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
    a = np.arange(10).astype(dtype)
    np.testing.assert_array_equal(
        gpuvec.add(a, a),
        np.add(a, a, dtype=np.float64 if np.dtype(dtype).kind in "biu" else np.float32),
    )
