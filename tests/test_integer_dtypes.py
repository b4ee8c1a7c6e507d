"""Casts to an integer dtype: ``astype`` gives the integer dtype, and the
``dtype=`` of ``sum``, ``prod`` and ``nansum`` whole numbers reduced in float64
(docs/numpy-differences.md, 9); the values must be NumPy's.
"""

import warnings

import numpy as np
import pytest
from conftest import random_array
from integer_casts import documented_cast

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
    assert result.dtype == integer
    assert result.is_c_contiguous
    np.testing.assert_array_equal(result.to_host(), x[::2, 1:].astype(integer))


@pytest.mark.parametrize("integer", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64])
@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_astype_integer_of_what_no_integer_holds(backend, integer, source):
    # NumPy warns ("invalid value encountered in cast") and leaves it to the processor.
    x = np.array([np.nan, np.inf, -np.inf, 1e300, -1e300, -2.5, 300.0, 2.0**63, 2.0**64, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # float64 beyond float32's range
        x = x.astype(source)
    result = gpuvec.to_device(x).astype(integer).to_host()
    np.testing.assert_array_equal(result, documented_cast(x, integer))


def test_astype_integer_of_empty_and_0d(backend):
    assert gpuvec.empty((0, 3)).astype(np.int64).shape == (0, 3)
    zero_d = gpuvec.to_device(np.array(-7.9)).astype(np.int32)
    assert zero_d.dtype == np.int32
    assert int(zero_d) == -7


# Differences from NumPy, reported with their reproducers.


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
    assert np.asarray(result).dtype == np.int64
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


@pytest.mark.parametrize(
    "name",
    [
        "mean",
        "var",
        "std",
        "min",
        "max",
    ],
)
def test_other_reductions_refuse_an_integer_dtype(backend, name):
    """Only sums and products take an integer dtype; the others keep their TypeError."""
    with pytest.raises(TypeError, match="dtype must be float32 or float64, got int64"):
        getattr(gpuvec, name)(gpuvec.ones(3), dtype=np.int64)


def test_astype_refuses_other_dtypes(backend):
    with pytest.raises(TypeError, match=r"dtype must be one of float32, .*; got datetime64\[D\]"):
        gpuvec.ones(3).astype("datetime64[D]")
