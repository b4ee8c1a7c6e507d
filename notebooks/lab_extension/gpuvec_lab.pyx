# cython: language_level=3, boundscheck=False, wraparound=False
"""Course lab: SAXPY, ``y = alpha * x + y``, on the GPU or on the host.

A typed-memoryview Cython wrapper around the lab's C ABI (lab.pxd), and the
same SAXPY computed by gpuvec's own compiled code, called from C through
gpuvec's C API (a table of its functions: gpuvec/api.h).
"""

from libc.stdint cimport int64_t
from libc.string cimport memset, strcmp

from gpuvec import CudaError

from gpuvec._abi cimport (
    GPUVEC_BACKEND_CUDA,
    GPUVEC_BACKEND_HOST,
    GPUVEC_ERROR_INVALID_ARGUMENT,
    GPUVEC_FLOAT32,
    GPUVEC_MEMORY_HOST,
    GPUVEC_SUCCESS,
    gpuvec_api_table,
    gpuvec_array,
    gpuvec_launch,
    gpuvec_op_info,
    import_gpuvec,
)
from lab cimport *

# gpuvec's C API: gpuvec_api_table, from the capsule gpuvec._core._C_API. It
# raises ImportError when the installed gpuvec is older than its headers were.
import_gpuvec()


cdef int find_op(const char* name) except -1:
    """The code of gpuvec's elementwise op ``name``, from gpuvec's op table.

    Looked up by name, once, at import: the op table lists the ops that the
    installed gpuvec has, and gives each its stable code.
    """
    cdef int count = 0
    cdef const gpuvec_op_info* rows = gpuvec_api_table.elementwise_ops(&count)
    for i in range(count):
        if strcmp(rows[i].name, name) == 0:
            return rows[i].code
    raise ImportError(f"gpuvec has no elementwise op {name.decode()!r}")


cdef int AXPY = find_op(b"axpy")


def cuda_built():
    """True when this build has the CUDA launcher (nvcc was found at build time)."""
    return lab_cuda_built() == 1


cdef object error(gpuvec_status status, const char* message, int code, const char* name):
    """The Python exception for a failed call, from its error record."""
    text = message.decode("utf-8", "replace")
    if status == GPUVEC_ERROR_INVALID_ARGUMENT:
        return ValueError(text)
    return CudaError(text, code or None, name.decode("ascii", "replace") or None)


cdef int check(gpuvec_status status) except -1 nogil:
    """Raises the Python exception for a failed call; takes the GIL only then."""
    if status == GPUVEC_SUCCESS:
        return 0
    with gil:
        raise error(status, lab_last_error_message(), lab_last_error_cuda_code(),
                    lab_last_error_cuda_name())


cdef int check_gpuvec(gpuvec_status status) except -1 nogil:
    """The same for a call into gpuvec, which keeps its own error record."""
    if status == GPUVEC_SUCCESS:
        return 0
    with gil:
        raise error(status, gpuvec_api_table.last_error_message(),
                    gpuvec_api_table.last_error_cuda_code(),
                    gpuvec_api_table.last_error_cuda_name())


cdef int check_arguments(const float[::1] x, float[::1] y, backend) except -1:
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if backend not in ("cuda", "host"):
        raise ValueError(f"backend must be 'cuda' or 'host', got {backend!r}")
    return 0


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
    check_arguments(x, y, backend)
    if n > 0:
        px, py = &x[0], &y[0]
    with nogil:
        if use_cuda:
            status = lab_saxpy_f32_cuda(n, alpha, px, py, threads_per_block)
        else:
            status = lab_saxpy_f32_host(n, alpha, px, py, threads_per_block)
    check(status)


cdef gpuvec_array host_vector(const float* data, int64_t n) noexcept:
    """A descriptor of gpuvec's C API: n contiguous float32 in host memory."""
    cdef gpuvec_array array
    memset(&array, 0, sizeof(array))
    array.data = <void*>data
    array.dtype = GPUVEC_FLOAT32
    array.memory = GPUVEC_MEMORY_HOST
    array.ndim = 1
    array.shape[0] = n
    array.strides[0] = 1  # in elements
    return array


def saxpy_gpuvec(float alpha, const float[::1] x, float[::1] y, *, backend="host",
                 int threads_per_block=256):
    """:func:`saxpy` by gpuvec's own ``axpy``, called from C through gpuvec's C API.

    No Python object of gpuvec's is made: the lab describes its two buffers
    and calls ``gpuvec_api_table.elementwise``, which runs gpuvec's compiled
    AXPY on the backend asked for (on ``"cuda"`` gpuvec copies the host
    arrays to the GPU and back). Takes the arguments of :func:`saxpy`; a
    failure raises with gpuvec's own error message.
    """
    cdef int64_t n = x.shape[0]
    cdef gpuvec_array inputs[2]
    cdef gpuvec_array out
    cdef double params[1]
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    check_arguments(x, y, backend)
    inputs[0] = host_vector(&x[0] if n > 0 else NULL, n)
    inputs[1] = host_vector(&y[0] if n > 0 else NULL, n)
    out = inputs[1]  # in place: out is y, as NumPy's out=y
    params[0] = alpha
    launch.backend = GPUVEC_BACKEND_CUDA if backend == "cuda" else GPUVEC_BACKEND_HOST
    launch.threads_per_block = threads_per_block
    launch.stream = NULL  # the default stream
    with nogil:
        status = gpuvec_api_table.elementwise(AXPY, &out, inputs, 2, params, GPUVEC_FLOAT32,
                                              &launch)
    check_gpuvec(status)
