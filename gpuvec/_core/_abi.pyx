# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._abi: the C ABI, its state, and what its statuses mean in Python.

The one module of gpuvec._core that links the C++ library (csrc), so that its
state exists once in the process: the static CUDA runtime, the per-thread
error message, the memory pools. It serves every other module of the core,
which reach the C functions through the table `abi` filled here
(gpuvec/_core/_abi.pxd), and it owns

- the exceptions gpuvec raises (gpuvec/_errors.py re-exports them) and the
  translation of a failed call's status into one (`check`);
- what the library says about itself: whether CUDA was built, its versions,
  the devices (folded in from what was _runtime.pxi: each is one ABI call);
- the op table's rows, as Python tuples;
- the compiler of the CUDA backend's own kernels, which compiles each at its
  first use (`set_kernel_compiler`);
- the C API for other extensions: the capsule C_API, a table of function
  pointers (gpuvec/api.h), published as gpuvec._core._C_API.
"""

import threading

from cpython.pycapsule cimport PyCapsule_New

from gpuvec._abi cimport *

__all__ = [
    "C_API",
    "BarrierDivergenceError",
    "CompileError",
    "CudaError",
    "GpuvecError",
    "HostFallbackWarning",
    "KernelBugError",
    "OutOfBoundsError",
    "OutOfMemoryError",
    "RaceError",
    "UninitializedReadError",
    "WarpMaskError",
    "cuda_built",
    "cuda_device_count",
    "cuda_device_info",
    "cuda_get_device",
    "cuda_mem_info",
    "cuda_set_device",
    "cuda_synchronize",
    "cuda_versions",
    "set_kernel_compiler",
]

# -- the function table --------------------------------------------------------------------------

abi.last_error_message = gpuvec_last_error_message
abi.last_error_cuda_code = gpuvec_last_error_cuda_code
abi.last_error_cuda_name = gpuvec_last_error_cuda_name
abi.cuda_built = gpuvec_cuda_built
abi.cuda_versions = gpuvec_cuda_versions
abi.cuda_device_count = gpuvec_cuda_device_count
abi.cuda_device_info = gpuvec_cuda_device_info
abi.cuda_get_device = gpuvec_cuda_get_device
abi.cuda_set_device = gpuvec_cuda_set_device
abi.cuda_mem_info = gpuvec_cuda_mem_info
abi.cuda_alloc = gpuvec_cuda_alloc
abi.cuda_free = gpuvec_cuda_free
abi.cuda_set_memory_limit = gpuvec_cuda_set_memory_limit
abi.cuda_pinned_result_alloc = gpuvec_cuda_pinned_result_alloc
abi.cuda_pinned_result_free = gpuvec_cuda_pinned_result_free
abi.cuda_copy_to_device = gpuvec_cuda_copy_to_device
abi.cuda_copy_to_host = gpuvec_cuda_copy_to_host
abi.cuda_stream_synchronize = gpuvec_cuda_stream_synchronize
abi.cuda_read_scalar = gpuvec_cuda_read_scalar
abi.cuda_device_synchronize = gpuvec_cuda_device_synchronize
abi.cuda_pool_usage = gpuvec_cuda_pool_usage
abi.cuda_pool_release_cached = gpuvec_cuda_pool_release_cached
abi.cuda_result_slot_alloc = gpuvec_cuda_result_slot_alloc
abi.cuda_result_slot_free = gpuvec_cuda_result_slot_free
abi.cuda_stream_create = gpuvec_cuda_stream_create
abi.cuda_stream_destroy = gpuvec_cuda_stream_destroy
abi.cuda_event_create = gpuvec_cuda_event_create
abi.cuda_event_destroy = gpuvec_cuda_event_destroy
abi.cuda_event_record = gpuvec_cuda_event_record
abi.cuda_event_synchronize = gpuvec_cuda_event_synchronize
abi.cuda_event_elapsed_ms = gpuvec_cuda_event_elapsed_ms
abi.cuda_stream_wait_event = gpuvec_cuda_stream_wait_event
abi.elementwise_ops = gpuvec_elementwise_ops
abi.reduce_ops = gpuvec_reduce_ops
abi.elementwise = gpuvec_elementwise
abi.reduce = gpuvec_reduce
abi.copy = gpuvec_copy
abi.count_true = gpuvec_count_true
abi.compress = gpuvec_compress
abi.expand = gpuvec_expand
abi.module_load = gpuvec_module_load
abi.module_unload = gpuvec_module_unload
abi.module_kernel = gpuvec_module_kernel
abi.kernel_get_attributes = gpuvec_kernel_get_attributes
abi.kernel_launch = gpuvec_kernel_launch
abi.map = gpuvec_map
abi.map_reduce = gpuvec_map_reduce
abi.nvrtc_version = gpuvec_nvrtc_version
abi.nvrtc_compile = gpuvec_nvrtc_compile
abi.nvrtc_output_free = gpuvec_nvrtc_output_free


# -- the exceptions ------------------------------------------------------------------------------
#
# Python classes, defined here because `check` raises them; their __module__
# is gpuvec._errors, the module users and pickle know them by (it re-exports
# them).

# After these errors the CUDA context is broken for good: every later CUDA
# call in the process fails the same way (cudaErrorIllegalAddress, ...).
_STICKY_CODES = frozenset({214, 700, 701, 702, 710, 713, 714, 715, 716, 717, 718, 719, 720})


class GpuvecError(Exception):
    """Base class of gpuvec's own errors."""

    __module__ = "gpuvec._errors"


class CudaError(GpuvecError, RuntimeError):
    """A CUDA call failed.

    Attributes
    ----------
    code : int or None
        CUDA's error code (a ``cudaError_t`` value), or None where the failure
        was not reported by CUDA itself (a build without CUDA, say).
    name : str or None
        CUDA's name for the code, such as ``"cudaErrorInvalidConfiguration"``.

    Examples
    --------
    >>> err = CudaError("invalid configuration argument", 9, "cudaErrorInvalidConfiguration")
    >>> err.name, err.code
    ('cudaErrorInvalidConfiguration', 9)
    """

    __module__ = "gpuvec._errors"

    def __init__(self, message, code=None, name=None, *, emulated=False):
        self.code = code
        self.name = name
        # The host emulation of a user's kernel reports CUDA's names for the
        # same faults, but it has no context to break.
        if code in _STICKY_CODES and not emulated:
            message += (
                ". The CUDA context is now unusable: every later GPU call in this process "
                "will fail; restart the Python process (in Jupyter: restart the kernel)"
            )
        prefix = f"{name} ({code}): " if name else ""
        super().__init__(prefix + message)


class OutOfMemoryError(CudaError, MemoryError):
    """A device (or staging) allocation failed even after freeing cached memory."""

    __module__ = "gpuvec._errors"


class KernelBugError(CudaError):
    """Checked mode found a bug in a user's kernel (the host emulation).

    A subclass of :class:`CudaError`, so a handler of CudaError catches it
    too. The message names the kernel, the source line (or lines), and the
    threads and block. Its subclasses say which bug; ``name`` and ``code``
    are CUDA's where a GPU would report the same fault (an access out of
    bounds), else None.

    Examples
    --------
    >>> import gpuvec
    >>> issubclass(gpuvec.RaceError, gpuvec.CudaError)
    True
    """

    __module__ = "gpuvec._errors"

    def __init__(self, message, code=None, name=None):
        super().__init__(message, code, name, emulated=True)


class OutOfBoundsError(KernelBugError, IndexError):
    """A checked kernel indexed a pointer or a ``__shared__`` array outside its bounds.

    Also an ``IndexError``; named ``cudaErrorIllegalAddress``, as on a GPU.
    """

    __module__ = "gpuvec._errors"


class RaceError(KernelBugError):
    """Two threads accessed one element of shared memory, one of them writing,
    with no ``__syncthreads()`` between (read-after-write, write-after-read or
    write-after-write)."""

    __module__ = "gpuvec._errors"


class BarrierDivergenceError(KernelBugError):
    """The threads of a block did not all reach the same ``__syncthreads()``:
    some waited at another one, or returned from the kernel."""

    __module__ = "gpuvec._errors"


class UninitializedReadError(KernelBugError):
    """A thread read shared memory that no thread of its block had written."""

    __module__ = "gpuvec._errors"


class WarpMaskError(KernelBugError):
    """A warp intrinsic (``__shfl*_sync``, ``__syncwarp``, ``__ballot_sync``)
    was called with a mask that leaves out the calling lane or names lanes
    that have returned."""

    __module__ = "gpuvec._errors"


# The bug's kind, as the host runtime names it in the error's CUDA name.
_KERNEL_BUGS = {
    "kernel-bug:race": RaceError,
    "kernel-bug:barrier": BarrierDivergenceError,
    "kernel-bug:uninitialized": UninitializedReadError,
    "kernel-bug:warp-mask": WarpMaskError,
}


class CompileError(GpuvecError):
    """A kernel's source did not compile (NVRTC on a GPU, the host C++ compiler without one).

    The message names the first error's line in the user's source, shows the
    line with a caret under the culprit where the compiler says which, and
    leaves out the compiler's noise; the full log is kept.

    Attributes
    ----------
    log : str
        The compiler's whole log.
    source_name : str
        The name the source was compiled under, such as ``"cell_3.cu"``.

    Examples
    --------
    >>> err = CompileError("k.cu, line 2: y is undefined", log="...", source_name="k.cu")
    >>> err.source_name
    'k.cu'
    """

    __module__ = "gpuvec._errors"

    def __init__(self, message, log="", source_name=""):
        self.log = log
        self.source_name = source_name
        super().__init__(message)


class HostFallbackWarning(UserWarning):
    """gpuvec runs on its host backend because CUDA cannot be used; the message says why."""

    __module__ = "gpuvec._errors"


# -- statuses as exceptions ----------------------------------------------------------------------


cdef object error_from_status(gpuvec_status status, bint emulated=False):
    if status == GPUVEC_ERROR_CALLBACK:
        pending = getattr(_pending, "error", None)
        _pending.error = None
        if pending is not None:
            return pending  # the kernel compiler's own exception
    message = gpuvec_last_error_message().decode("utf-8", "replace")
    code = gpuvec_last_error_cuda_code()
    name = gpuvec_last_error_cuda_name().decode("ascii", "replace") or None
    if status == GPUVEC_ERROR_INVALID_ARGUMENT:
        return ValueError(message)
    if status == GPUVEC_ERROR_OUT_OF_MEMORY:
        return OutOfMemoryError(message, code or None, name)
    if status == GPUVEC_ERROR_CUDA:
        if name in _KERNEL_BUGS:
            return _KERNEL_BUGS[name](message)
        return CudaError(message, code, name, emulated=emulated)
    if status == GPUVEC_ERROR_INDEX:
        return OutOfBoundsError(message, 700, "cudaErrorIllegalAddress")
    if status == GPUVEC_ERROR_NOT_BUILT:
        return CudaError(message)
    return GpuvecError(f"internal error in gpuvec (please report it): {message}")


cdef int raise_status(gpuvec_status status) except -1 nogil:
    # ABI calls run without the GIL; this takes it back only to raise.
    with gil:
        raise error_from_status(status)


# -- gpuvec's own kernels, compiled at first use ----------------------------------------------
#
# The CUDA backend compiles each of its kernels when a call first needs it
# (csrc/cuda/own_kernels.hpp), through the compiler registered below. That is
# a Python function, which gpuvec.kernels sets with set_kernel_compiler: it
# compiles with NVRTC through the kernel cache on disk, as users' kernels
# are. An exception it raises waits in _pending, per thread, until the call's
# `check` raises it in place of the status.

cdef object _kernel_compiler = None
_pending = threading.local()


cdef gpuvec_status _compile_own_kernel(const char* source, const char* name_expression,
                                       gpuvec_kernel* kernel) noexcept with gil:
    cdef gpuvec_module module = NULL
    cdef gpuvec_status status
    cdef const char* data
    try:
        if _kernel_compiler is None:
            raise RuntimeError("gpuvec.kernels has not registered the kernel compiler")
        image, lowered = _kernel_compiler(source.decode(), name_expression.decode())
        data = image
        # Loaded for the life of the process: the backend keeps the kernel.
        status = gpuvec_module_load(GPUVEC_BACKEND_CUDA, data, len(image), NULL, &module)
        if status == GPUVEC_SUCCESS:
            status = gpuvec_module_kernel(module, lowered.encode(), 0, kernel)
        if status != GPUVEC_SUCCESS:
            raise error_from_status(status)
    except BaseException as error:
        _pending.error = error
        return GPUVEC_ERROR_CALLBACK
    return GPUVEC_SUCCESS


def set_kernel_compiler(compiler):
    """Sets the function that compiles the CUDA backend's own kernels.

    Parameters
    ----------
    compiler : callable
        ``compiler(source, name_expression) -> (image, lowered_name)``:
        `source` compiled by NVRTC for the current device, instantiating the
        template that `name_expression` names; the CUBIN or PTX image as
        bytes, and the instance's lowered name.
    """
    global _kernel_compiler
    _kernel_compiler = compiler


check(gpuvec_set_kernel_compiler(_compile_own_kernel))


# -- the op table --------------------------------------------------------------------------------


cdef list table_rows(const gpuvec_op_info* rows, int count):
    """Each row a tuple of gpuvec_op_info's fields in order: (code, name, arity,
    params, summary, result, reads_truth, numpy, functor, exact, host_ulps,
    cuda_ulps, ufunc, traits, warning, kinds), result being the name of the
    result's dtype, or None for the compute dtype. gpuvec._table names the fields."""
    return [(rows[i].code, rows[i].name.decode(), rows[i].arity, rows[i].params,
             rows[i].summary.decode(),
             None if rows[i].result < 0 else _npy_name(<gpuvec_dtype>rows[i].result),
             bool(rows[i].reads_truth), rows[i].numpy.decode(), rows[i].functor.decode(),
             bool(rows[i].exact), rows[i].host_ulps, rows[i].cuda_ulps,
             rows[i].ufunc.decode(), rows[i].traits.decode(), rows[i].warning.decode(),
             rows[i].kinds.decode())
            for i in range(count)]


cdef str _npy_name(gpuvec_dtype dtype):
    return {GPUVEC_BOOL: "bool", GPUVEC_INT64: "int64", GPUVEC_UINT8: "uint8",
            GPUVEC_FLOAT32: "float32"}.get(dtype, "float64")


# -- the build and the devices -------------------------------------------------------------------


def cuda_built():
    """True when this build contains the CUDA backend."""
    return gpuvec_cuda_built() == 1


def cuda_device_count():
    """The number of CUDA devices; raises CudaError saying why there are none."""
    cdef int count = 0
    cdef gpuvec_status status
    with nogil:
        status = gpuvec_cuda_device_count(&count)
    check(status)
    return count


def cuda_versions():
    """(runtime, driver) CUDA versions as (major, minor) tuples."""
    cdef int runtime = 0, driver = 0
    check(gpuvec_cuda_versions(&runtime, &driver))
    return (runtime // 1000, runtime % 1000 // 10), (driver // 1000, driver % 1000 // 10)


def cuda_device_info(int device):
    """The properties of one CUDA device, as a dict."""
    cdef gpuvec_device_info info
    cdef gpuvec_status status
    with nogil:
        status = gpuvec_cuda_device_info(device, &info)
    check(status)
    return {
        "id": device,
        "name": info.name.decode("utf-8", "replace"),
        "compute_capability": (info.major, info.minor),
        "total_memory": info.total_memory,
        "multiprocessors": info.multiprocessors,
        "max_threads_per_block": info.max_threads_per_block,
        "warp_size": info.warp_size,
        "l2_cache_bytes": info.l2_cache_bytes,
        "uuid": _uuid_text((<char*>info.uuid)[:16]),
    }


cdef str _uuid_text(bytes uuid):
    """A GPU's UUID as nvidia-smi writes it: GPU-8-4-4-4-12 hex digits."""
    cdef str h = uuid.hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def cuda_get_device():
    cdef int device = 0
    check(gpuvec_cuda_get_device(&device))
    return device


def cuda_set_device(int device):
    cdef gpuvec_status status
    with nogil:
        status = gpuvec_cuda_set_device(device)
    check(status)


def cuda_mem_info():
    """(free, total) bytes of the current device."""
    cdef size_t free_bytes = 0, total_bytes = 0
    cdef gpuvec_status status
    with nogil:
        status = gpuvec_cuda_mem_info(&free_bytes, &total_bytes)
    check(status)
    return free_bytes, total_bytes


def cuda_synchronize():
    """Waits for all work on the current device."""
    cdef gpuvec_status status
    with nogil:
        status = gpuvec_cuda_device_synchronize()
    check(status)


# -- the C API for other extensions --------------------------------------------------------------
#
# No module of gpuvec._core exports a C symbol but its PyInit_ function, so
# another extension cannot link gpuvec's functions. It gets them from a table
# of function pointers instead (gpuvec/api.h), as NumPy's _ARRAY_API serves
# numpy's C API: import_gpuvec() in that extension reads the table from the
# capsule gpuvec._core._C_API (this module's C_API, which the package
# re-exports under that name) and checks its version.

# The table lives in this module's static data, so its pointers stay valid for
# as long as the process runs: extension modules are never unloaded.
cdef gpuvec_api _c_api_table


cdef object _c_api_capsule():
    """Fills the table with this module's functions; returns its capsule."""
    cdef gpuvec_api* table = &_c_api_table
    table.abi_version = GPUVEC_API_VERSION
    table.size = sizeof(gpuvec_api)
    # Version 1. A later version appends its fields here, after these.
    table.elementwise_ops = gpuvec_elementwise_ops
    table.reduce_ops = gpuvec_reduce_ops
    table.elementwise = gpuvec_elementwise
    table.reduce = gpuvec_reduce
    table.copy = gpuvec_copy
    table.count_true = gpuvec_count_true
    table.compress = gpuvec_compress
    table.expand = gpuvec_expand
    table.last_error_message = gpuvec_last_error_message
    table.last_error_cuda_code = gpuvec_last_error_cuda_code
    table.last_error_cuda_name = gpuvec_last_error_cuda_name
    table.cuda_built = gpuvec_cuda_built
    table.cuda_versions = gpuvec_cuda_versions
    table.cuda_device_count = gpuvec_cuda_device_count
    table.cuda_get_device = gpuvec_cuda_get_device
    table.cuda_alloc = gpuvec_cuda_alloc
    table.cuda_free = gpuvec_cuda_free
    table.cuda_copy_to_device = gpuvec_cuda_copy_to_device
    table.cuda_copy_to_host = gpuvec_cuda_copy_to_host
    table.cuda_stream_synchronize = gpuvec_cuda_stream_synchronize
    return PyCapsule_New(table, GPUVEC_API_CAPSULE_NAME, NULL)


C_API = _c_api_capsule()


# -- scans, sorts and counts (gpuvec/scan.h): their table, scan_abi -----------------------------

cdef extern from "gpuvec/gpuvec.h" nogil:
    gpuvec_status gpuvec_scan(gpuvec_scan_op op, const gpuvec_array* out, const gpuvec_array* x,
                              const gpuvec_launch* launch)
    gpuvec_status gpuvec_sort(const gpuvec_array* values, const gpuvec_array* indices,
                              const gpuvec_array* x, const gpuvec_launch* launch)
    gpuvec_status gpuvec_histogram(const gpuvec_array* counts, const gpuvec_array* x,
                                   const gpuvec_array* weights, const gpuvec_array* edges,
                                   const gpuvec_launch* launch)
    gpuvec_status gpuvec_searchsorted(const gpuvec_array* out, const gpuvec_array* sorted,
                                      const gpuvec_array* v, int right,
                                      const gpuvec_launch* launch)
    gpuvec_status gpuvec_sorted_runs(const gpuvec_array* starts, const gpuvec_array* sorted,
                                     const gpuvec_launch* launch)

scan_abi.scan = gpuvec_scan
scan_abi.sort = gpuvec_sort
scan_abi.histogram = gpuvec_histogram
scan_abi.searchsorted = gpuvec_searchsorted
scan_abi.sorted_runs = gpuvec_sorted_runs
