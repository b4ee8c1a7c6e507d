"""Integer dtypes give whole numbers held in float64 (docs/numpy-differences.md, 9).

DeviceArrays hold no integers. Where NumPy casts to one (``astype``, and the
``dtype=`` of ``sum``, ``prod`` and ``nansum``), gpuvec rounds toward zero as
NumPy's cast does and keeps float64; the values must be NumPy's.
"""

import numpy as np
import pytest
from conftest import random_array

import gpuvec

INTEGERS = [np.int64, np.int32, np.uint16, np.intp]


def _with_halves(rng, shape, dtype):
    """Random values with exact halves and negative zeros among them (the ties of a cast)."""
    x = random_array(rng, shape, np.float64)
    x.flat[::3] = np.round(x.flat[::3] * 2) / 2
    x.flat[1::7] = -0.0
    return x.astype(dtype)


@pytest.mark.parametrize("integer", INTEGERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.bool_])
def test_astype_integer(backend, rng, integer, dtype):
    x = _with_halves(rng, (37, 11), np.float64)
    x = x > 0 if dtype == np.bool_ else x.astype(dtype)
    if np.dtype(integer).kind == "u":
        x = np.abs(x)  # NumPy's cast of a negative number to an unsigned one is undefined
    d = gpuvec.to_device(x)[::2, 1:]
    result = d.astype(integer)
    assert isinstance(result, gpuvec.DeviceArray)
    assert result.dtype == np.float64
    assert result.is_c_contiguous
    np.testing.assert_array_equal(result.to_host(), x[::2, 1:].astype(integer))


def test_astype_integer_keeps_what_no_integer_holds(backend):
    x = np.array([np.nan, np.inf, -np.inf, 1e300, -2.5])
    np.testing.assert_array_equal(
        gpuvec.to_device(x).astype(np.int64).to_host(), [np.nan, np.inf, -np.inf, 1e300, -2.0]
    )


def test_astype_integer_of_empty_and_0d(backend):
    assert gpuvec.empty((0, 3)).astype(np.int64).shape == (0, 3)
    assert float(gpuvec.to_device(np.array(-7.9)).astype(np.int32)) == -7.0


@pytest.mark.parametrize("name", ["sum", "prod", "nansum"])
@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
@pytest.mark.parametrize("on_device", [False, True])
def test_reductions_with_an_integer_dtype(backend, rng, name, axis, on_device):
    # Small values, so that NumPy's int64 product cannot overflow.
    x = _with_halves(rng, (5, 4, 3), np.float64) / 8
    x[0, 0, 0] = np.nan if name == "nansum" else x[0, 0, 0]
    data = gpuvec.to_device(x) if on_device else x
    result = getattr(gpuvec, name)(data, axis=axis, dtype=np.int64)
    source = np.nan_to_num(x, nan=0.0) if name == "nansum" else x
    # NumPy casts each element to the dtype first; nansum's NaN counts as zero.
    expected = getattr(np, name)(source.astype(np.int64), axis=axis, dtype=np.int64)
    if on_device:
        assert isinstance(result, gpuvec.DeviceArray)
        result = result.to_host()
    assert np.asarray(result).dtype == np.float64
    np.testing.assert_array_equal(result, expected)


def test_sum_of_bools_with_an_integer_dtype(backend, rng):
    b = rng.random((33, 17)) < 0.3
    d = gpuvec.to_device(b)
    np.testing.assert_array_equal(d.sum(axis=0, dtype=np.intp).to_host(), b.sum(axis=0))
    assert float(np.sum(d, dtype=np.int64)) == b.sum()
    assert float(np.add.reduce(d, axis=None, dtype=np.int64)) == b.sum()


def test_integer_sum_of_float32_reads_float32(backend, rng):
    x = _with_halves(rng, 1025, np.float32) * 1000
    expected = x.astype(np.int64).sum()
    assert float(gpuvec.sum(gpuvec.to_device(x), dtype=np.int64)) == expected


def test_integer_sums_are_exact_to_2_53(backend):
    x = np.full(1000, 2.0**43 + 0.75)
    assert gpuvec.sum(x, dtype=np.int64) == np.sum(x.astype(np.int64))


@pytest.mark.parametrize("name", ["mean", "var", "std", "min", "max"])
def test_other_reductions_refuse_an_integer_dtype(backend, name):
    """Only sums and products take an integer dtype; the others keep their TypeError."""
    with pytest.raises(TypeError, match="dtype must be float32 or float64, got int64"):
        getattr(gpuvec, name)(gpuvec.ones(3), dtype=np.int64)


def test_astype_refuses_other_dtypes(backend):
    with pytest.raises(TypeError, match="dtype must be float32, float64 or bool, got complex64"):
        gpuvec.ones(3).astype(np.complex64)
