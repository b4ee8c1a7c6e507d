# cython: language_level=3, boundscheck=False, wraparound=False
"""Course lab: SAXPY, ``y = alpha * x + y``, on the GPU or on the host.

A typed-memoryview Cython wrapper around the lab's C ABI (lab.pxd).
"""

from gpuvec import CudaError

from lab cimport *


def cuda_built():
    """True when this build has the CUDA launcher (nvcc was found at build time)."""
    return lab_cuda_built() == 1


cdef int check(gpuvec_status status) except -1 nogil:
    """Raises the Python exception for a failed call; takes the GIL only then."""
    if status == GPUVEC_SUCCESS:
        return 0
    with gil:
        message = lab_last_error_message().decode("utf-8", "replace")
        if status == GPUVEC_ERROR_INVALID_ARGUMENT:
            raise ValueError(message)
        code = lab_last_error_cuda_code()
        name = lab_last_error_cuda_name().decode("ascii", "replace")
        raise CudaError(message, code or None, name or None)


def saxpy(float alpha, const float[::1] x, float[::1] y, *, backend="host",
          int threads_per_block=256):
    """``y = alpha * x + y``, in place, for contiguous float32 vectors.

    Parameters
    ----------
    alpha : float
        The scale factor of ``x``.
    x : float32 array, C-contiguous (read-only is fine)
    y : float32 array, C-contiguous and writable; updated in place
    backend : {"cuda", "host"}
        Where to run: the CUDA launcher (copy in, kernel, copy out) or the
        C++ host fallback.
    threads_per_block : int
        CUDA block size, 1 to 1024; the host fallback checks the same limit.
    """
    cdef int64_t n = x.shape[0]
    cdef const float* px = NULL
    cdef float* py = NULL
    cdef bint use_cuda = backend == "cuda"
    cdef gpuvec_status status
    if y.shape[0] != n:
        raise ValueError(f"x and y must have the same length, got {n} and {y.shape[0]}")
    if backend not in ("cuda", "host"):
        raise ValueError(f"backend must be 'cuda' or 'host', got {backend!r}")
    if n > 0:
        px, py = &x[0], &y[0]
    with nogil:
        if use_cuda:
            status = lab_saxpy_f32_cuda(n, alpha, px, py, threads_per_block)
        else:
            status = lab_saxpy_f32_host(n, alpha, px, py, threads_per_block)
    check(status)
