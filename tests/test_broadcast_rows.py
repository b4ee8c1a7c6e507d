"""Broadcasting on device arrays, where each row is consecutive or one repeated value.

``x - x.max(axis=1, keepdims=True)`` and ``matrix + row_vector`` have an
innermost dimension that every operand walks one element at a time, or not
at all. The CUDA backend runs these in packs of 16 bytes, one row at a time
(``map_rows`` in ``csrc/cuda/map.cuh``), and falls back to the element-wise
walker where a row is not a whole number of packs or a row start is not
aligned. These tests cover both sides of each condition, against NumPy in
the same dtype: the ops here are correctly rounded, so results are
bit-identical.
"""

import numpy as np
import pytest
from conftest import random_array

import gpuvec

DTYPES = [np.float32, np.float64]

# (shape of x, shape of the broadcast operand): row lengths that are whole
# packs for both dtypes (4, 8, 1024), for float64 only (2, 6) and for
# neither (5, 7, 1), with prime row counts.
SHAPES = [
    ((17, 1024), (17, 1)),
    ((3, 8), (3, 1)),
    ((31, 6), (31, 1)),
    ((13, 2), (13, 1)),
    ((7, 5), (7, 1)),
    ((11, 7), (1, 7)),
    ((37, 12), (12,)),
    ((5, 3, 16), (5, 1, 16)),
    ((5, 3, 16), (1, 3, 1)),
    ((2, 3, 5, 8), (2, 1, 5, 1)),
    ((4, 1), (4, 1)),
]


def on_device(a):
    return gpuvec.to_device(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "other"), SHAPES)
def test_broadcast_operand_either_side(backend, rng, dtype, shape, other):
    x, m = random_array(rng, shape, dtype), random_array(rng, other, dtype)
    dx, dm = on_device(x), on_device(m)
    np.testing.assert_array_equal((dx - dm).to_host(), x - m)
    np.testing.assert_array_equal((dm / dx).to_host(), m / x)
    np.testing.assert_array_equal(((dx - dm) * 2.5).to_host(), (x - m) * dtype(2.5))
    np.testing.assert_array_equal(gpuvec.maximum(dm, dx).to_host(), np.maximum(m, x))


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_pattern(backend, rng, dtype):
    x = random_array(rng, (67, 256), dtype)
    d = on_device(x)
    e = gpuvec.exp(d - gpuvec.max(d, axis=1, keepdims=True))
    result = (e / gpuvec.sum(e, axis=1, keepdims=True)).to_host()
    # The difference is rounded in dtype, as gpuvec's is; exp and the
    # normalisation of the reference are in float64. The budget: exp's 3 ulp
    # (tolerances.py), the float64 reference's own ulp, and the roundings of
    # the sum and the quotient, an ulp being up to 2 eps apart (400 draws on
    # the host backend came within 10 eps in float64, 1.5 in float32).
    ref = np.exp((x - x.max(axis=1, keepdims=True)).astype(np.float64))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(result, ref, rtol=32 * np.finfo(dtype).eps, atol=0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rows_not_aligned_to_a_pack(backend, rng, dtype):
    # Views that start one element in, or whose rows are one element longer
    # than the packs, must give the same results as aligned ones.
    base = on_device(random_array(rng, (9, 17), dtype))
    column = random_array(rng, (9, 1), dtype)
    for view in (base[:, 1:], base[:, :16], base[1:, 1:9], base[::2, 8:]):
        x, m = view.to_host(), column[: view.shape[0]]
        np.testing.assert_array_equal((view + on_device(m)).to_host(), x + m)


@pytest.mark.parametrize("dtype", DTYPES)
def test_poisoned_out_views(backend, rng, dtype):
    # out is a view with a row stride that is not a whole number of packs,
    # then one that is: every element written, nothing beside it touched.
    x, m = random_array(rng, (19, 8), dtype), random_array(rng, (19, 1), dtype)
    dx, dm = on_device(x), on_device(m)
    for columns in (9, 16):
        host = np.full((19, columns), np.nan, dtype)
        big = on_device(host)
        gpuvec.subtract(dx, dm, out=big[:, :8])
        result = big.to_host()
        np.testing.assert_array_equal(result[:, :8], x - m)
        assert np.isnan(result[:, 8:]).all(), "an element beside out was written"


@pytest.mark.parametrize("dtype", DTYPES)
def test_bool_results_and_where(backend, rng, dtype):
    x, m = random_array(rng, (23, 16), dtype), random_array(rng, (23, 1), dtype)
    m[3] = np.nan
    dx, dm = on_device(x), on_device(m)
    above = dx > dm
    assert above.dtype == np.bool_
    np.testing.assert_array_equal(above.to_host(), x > m)
    chosen = gpuvec.where(dm > 0, dx, dm)
    np.testing.assert_array_equal(chosen.to_host(), np.where(m > 0, x, m))
    np.testing.assert_array_equal(gpuvec.logical_and(above, dm > 0).to_host(), (x > m) & (m > 0))


def test_mixed_dtypes(backend, rng):
    x = random_array(rng, (29, 8), np.float32)
    m = random_array(rng, (29, 1), np.float64)
    result = on_device(x) - on_device(m)
    assert result.dtype == np.float64
    np.testing.assert_array_equal(result.to_host(), x - m)


def test_nan_and_inf_propagate(backend, rng):
    x = random_array(rng, (6, 8), np.float32)
    x[1, 2], x[4, 7] = np.inf, np.nan
    m = np.array([[1.0], [np.inf], [2.0], [np.nan], [-np.inf], [0.0]], np.float32)
    with np.errstate(invalid="ignore"):
        expected = x - m
    np.testing.assert_array_equal((on_device(x) - on_device(m)).to_host(), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_keepdims_of_every_axis_keeps_its_shape_as_an_operand(backend, rng, dtype):
    # A reduction to one value is written to mapped host memory (a result
    # slot) and copied to the device when an op reads it: in its own shape,
    # (1, 1) here, so that it broadcasts as NumPy's does.
    x = random_array(rng, (5, 8), dtype)
    d = on_device(x)
    total = gpuvec.sum(d, keepdims=True)
    assert total.shape == (1, 1)
    np.testing.assert_array_equal((d - total).to_host(), x - total.to_host())
    assert gpuvec.abs(total).shape == (1, 1)
    empty = gpuvec.sum(d[d > np.inf], axis=0, keepdims=True)  # no element selected
    assert empty.shape == (1,)
    np.testing.assert_array_equal((empty * 2.0).to_host(), np.zeros(1, dtype))
