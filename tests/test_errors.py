"""Every bad input gives a clear Python exception, and nothing is half-written."""

import numpy as np
import pytest

import gpuvec


def test_shapes_that_do_not_match_name_both(backend):
    with pytest.raises(ValueError, match=r"a \(3,\) and b \(4,\)"):
        gpuvec.add(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match=r"x \(3,\) and y \(4,\)"):
        gpuvec.dot(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match=r"x \(3, 1\) and y \(3,\)"):
        gpuvec.dot(np.ones((3, 1)), np.ones(3))


@pytest.mark.parametrize(
    ("value", "dtype_text"),
    [
        (np.array([object(), 1], dtype=object), "object"),
        (np.array(["a", "b"]), "<U1"),
        (np.array(["2026-11-21"], dtype="datetime64[D]"), r"datetime64\[D\]"),
        (np.array([1], dtype="timedelta64[s]"), r"timedelta64\[s\]"),
    ],
)
def test_unsupported_dtypes_name_the_dtype(backend, value, dtype_text):
    with pytest.raises(TypeError, match=f"a has dtype {dtype_text}"):
        gpuvec.add(value, value)
    with pytest.raises(TypeError, match=f"x has dtype {dtype_text}"):
        gpuvec.sum(value)


def test_a_complex_scalar_gives_numpys_complex_result(backend):
    result = gpuvec.add(np.ones(3), 1j)
    assert result.dtype == np.complex128
    np.testing.assert_array_equal(np.asarray(result), np.ones(3) + 1j)


def test_bad_dtype_argument(backend):
    with pytest.raises(TypeError, match="dtype must be float32 or float64, got int32"):
        gpuvec.add(np.ones(3), np.ones(3), dtype=np.int32)


def test_bad_out(backend):
    a = np.ones(5)
    with pytest.raises(ValueError, match=r"out has shape \(4,\), but the result has shape \(5,\)"):
        gpuvec.add(a, a, out=np.empty(4))
    narrow = np.empty(5, np.float32)  # NumPy casts float64 into it (same_kind)
    assert gpuvec.add(a, a, out=narrow) is narrow
    np.testing.assert_array_equal(narrow, np.add(a, a, out=np.empty(5, np.float32)))
    with pytest.raises(TypeError, match=r"dtype\('float64'\) to out's dtype\('int64'\)"):
        gpuvec.add(a, a, out=np.empty(5, np.int64))
    with pytest.raises(TypeError):  # what NumPy raises for the same out
        np.add(a, a, out=np.empty(5, np.int64))
    readonly = np.zeros(5)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        gpuvec.add(a, a, out=readonly)
    np.testing.assert_array_equal(readonly, 0.0)
    with pytest.raises(TypeError, match=r"out must be a numpy\.ndarray, got list"):
        gpuvec.add(a, a, out=[0.0] * 5)


def test_bad_alpha(backend):
    with pytest.raises(TypeError, match="alpha must be a real scalar"):
        gpuvec.scale(np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match="alpha must be a real scalar"):
        gpuvec.axpy("2", np.ones(3), np.ones(3))


@pytest.mark.parametrize("op", ["add", "sum"])
def test_invalid_launch_configuration_is_a_cuda_error(backend, op):
    x = np.ones(100)
    args = (x, x) if op == "add" else (x,)
    with pytest.raises(gpuvec.CudaError, match="cudaErrorInvalidConfiguration") as info:
        getattr(gpuvec, op)(*args, threads_per_block=2048)
    assert info.value.code == 9
    assert info.value.name == "cudaErrorInvalidConfiguration"


def test_failed_launch_leaves_out_untouched(backend):
    x = np.ones(100)
    out = np.full(100, 7.0)
    with pytest.raises(gpuvec.CudaError):
        gpuvec.add(x, x, out=out, threads_per_block=2048)
    np.testing.assert_array_equal(out, 7.0)


def test_bad_threads_per_block(backend):
    with pytest.raises(ValueError, match="threads_per_block must be positive"):
        gpuvec.add(np.ones(3), np.ones(3), threads_per_block=-1)
    with pytest.raises(ValueError, match="multiple of 32"):
        gpuvec.sum(np.ones(3), threads_per_block=100)
    with pytest.raises(TypeError, match="threads_per_block must be an int"):
        gpuvec.add(np.ones(3), np.ones(3), threads_per_block=1.5)


def test_too_many_dimensions(backend):
    x = np.ones((1,) * 33)
    with pytest.raises(ValueError, match="more than 32 dimensions"):
        gpuvec.add(x, x)


def test_empty_inputs_give_empty_results(backend):
    result = gpuvec.add(np.ones((0, 4)), np.ones((0, 4)))
    assert result.shape == (0, 4)
    assert result.dtype == np.float64


def test_exception_hierarchy():
    assert issubclass(gpuvec.CudaError, gpuvec.GpuvecError)
    assert issubclass(gpuvec.CudaError, RuntimeError)
    assert issubclass(gpuvec.OutOfMemoryError, gpuvec.CudaError)
    assert issubclass(gpuvec.OutOfMemoryError, MemoryError)
    err = gpuvec.CudaError(
        "an illegal memory access was encountered", 700, "cudaErrorIllegalAddress"
    )
    assert "restart the Python process" in str(err)
