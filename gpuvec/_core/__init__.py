"""gpuvec's compiled core: Cython modules over the C ABI, one family each.

The Python layer (gpuvec/*.py) calls the core through the names listed
here (``from gpuvec import _core``; ``_core.elementwise(...)``). Everything
here is private to gpuvec: the public, documented API is in gpuvec/*.py.
docs/design.md ("The Cython layer") shows the modules and how a call
crosses them; from the bottom up:

    _abi          the C ABI: the one module that links the C++ library; errors;
                  the C API for other extensions (the capsule _C_API)
    _memory       device memory, raw copies, transfer counters
    _streams      CUDA streams and events; the stream a call runs on
    _dlpack       DLPack capsules in and out
    _launch       which backend runs a call (the rule), the device, threads
    _operands     ArrayFields, the dtype policy, operands as descriptors
    _results      the call scaffold (run_call) and the arrays it makes
    _copy         copies between arrays and across the bus
    _elementwise  the elementwise ops of the op table
    _reduce       the reductions of the op table
    _select       boolean masks: x[mask] and x[mask] = values
    _scan         scans, sorts and counts: cumsum, sort, searchsorted, histogram
    _kernels      users' kernels: modules, launches, Elementwise/ReductionKernel
"""

# ruff: noqa: F401 - a facade: each import is a re-export

import os
import pkgutil

# Run from a source checkout, Python finds this folder first, and it holds no
# compiled module: extend_path adds the installed package's folder (as
# gpuvec/__init__.py does for gpuvec), so the modules come from there.
__path__ = pkgutil.extend_path(__path__, __name__)

from gpuvec._core import _abi
from gpuvec._core._abi import (
    C_API,
    BarrierDivergenceError,
    CompileError,
    CudaError,
    GpuvecError,
    HostFallbackWarning,
    KernelBugError,
    OutOfBoundsError,
    OutOfMemoryError,
    RaceError,
    UninitializedReadError,
    WarpMaskError,
    cuda_built,
    cuda_device_count,
    cuda_device_info,
    cuda_get_device,
    cuda_mem_info,
    cuda_set_device,
    cuda_synchronize,
    cuda_versions,
    set_kernel_compiler,
)
from gpuvec._core._copy import copy_into, to_device, to_host
from gpuvec._core._dlpack import (
    DLPACK_BOOL,
    DLPACK_COMPLEX,
    DLPACK_CPU,
    DLPACK_CUDA,
    DLPACK_FLOAT,
    DLPACK_INT,
    DLPACK_UINT,
    DLPackImport,
    from_dlpack_capsule,
    to_dlpack,
)
from gpuvec._core._elementwise import complex_parts, elementwise, elementwise_ops
from gpuvec._core._kernels import (
    KERNEL_CHECKED,
    KERNEL_COOPERATIVE,
    MAX_MAP_INPUTS,
    KernelLauncher,
    LoadedModule,
    MapKernel,
    MapReduceKernel,
    backend_of_call,
    kernel_check_requested,
    map_call,
    map_reduce_call,
    nvrtc_compile,
    nvrtc_version,
)
from gpuvec._core._launch import (
    BACKEND_CUDA,
    BACKEND_HOST,
    MAX_THREADS_PER_BLOCK,
    backend_code,
    backend_is_chosen,
    defer_backend_choice,
    set_backend_code,
)
from gpuvec._core._memory import (
    DeviceBuffer,
    PinnedHostMemory,
    ResultSlot,
    call_before_allocation,
    copy_to_device,
    copy_to_host,
    pool_release_cached,
    pool_usage,
    read_scalar,
    set_memory_limit,
    transfer_counts,
)
from gpuvec._core._operands import (
    ARRAY_DTYPE_NAMES,
    ARRAY_DTYPES,
    MAX_NDIM,
    SUPPORTED_DTYPES,
    ArrayFields,
    as_real_array,
    check_array_dtype,
    check_dtype,
    native_byte_order,
    native_dtype,
    on_gpu,
    pop_precision,
    precision_dtype,
    push_precision,
    register_device_array,
    result_dtype,
    set_default_precision,
)
from gpuvec._core._reduce import reduce, reduce_ops
from gpuvec._core._results import new_array
from gpuvec._core._select import compress, count_true, expand
from gpuvec._core._streams import (
    CURRENT_STREAM,
    CudaEvent,
    CudaStream,
    register_stream_class,
    stream_synchronize,
)

# gpuvec's C API for other extensions: import_gpuvec() (gpuvec/api.h) imports
# gpuvec._core and reads this capsule.
_C_API = C_API


def include_dir() -> str:
    """The folder of gpuvec's installed C headers (gpuvec/include): next to
    the compiled modules, wherever those were installed."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(_abi.__file__)))
    return os.path.join(package, "include")
