# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._launch: where a call runs, and how.

Serves every module of the core that makes an ABI call (its gpuvec_launch),
and gpuvec._backend, which chooses the active backend. It holds

- the active backend: the one source of truth, chosen when a call first
  needs it (defer_backend_choice) or set (set_backend_code);
- the rule that says which backend runs a call (backend_for), written
  once: device data runs on CUDA, a host-backend DeviceArray's data on the
  host, and NumPy data on the active backend (which, on a GPU, stages it
  through the device);
- the device a call makes current, and its threads per block.
"""

import operator

from gpuvec._core._abi cimport *
from gpuvec._core._memory cimport switch_to
from gpuvec._core._streams cimport stream_handle

__all__ = [
    "BACKEND_CUDA",
    "BACKEND_HOST",
    "MAX_THREADS_PER_BLOCK",
    "backend_code",
    "backend_is_chosen",
    "defer_backend_choice",
    "set_backend_code",
]

BACKEND_HOST = GPUVEC_BACKEND_HOST
BACKEND_CUDA = GPUVEC_BACKEND_CUDA
MAX_THREADS_PER_BLOCK = GPUVEC_MAX_THREADS_PER_BLOCK

# The active backend. -1 until a call first needs it: choosing asks the CUDA
# driver, which fixes the devices this process sees (CUDA_VISIBLE_DEVICES)
# for good, and a Dask-CUDA worker imports gpuvec before it is given its
# GPU. So `import gpuvec` asks nothing of CUDA.
cdef int _backend_code = -1
cdef object _choose_backend = None  # gpuvec._backend's chooser, registered by it


cdef int active_backend() except -1:
    """The active backend's code, chosen first where no call has needed it yet."""
    if _backend_code < 0:
        _choose_backend()
    return _backend_code


def set_backend_code(int code):
    """Makes `code` (BACKEND_HOST or BACKEND_CUDA) the backend new calls use."""
    global _backend_code
    _backend_code = code


def defer_backend_choice(chooser):
    """Leaves the backend unchosen until a call needs it; then `chooser()` must
    choose it (with set_backend_code) or raise."""
    global _backend_code, _choose_backend
    _choose_backend = chooser
    _backend_code = -1


def backend_is_chosen():
    return _backend_code >= 0


def backend_code():
    return active_backend()


cdef gpuvec_backend backend_for(Placement placement) except *:
    """The backend a call runs on, by where its data is: device memory on the
    cuda backend; host memory that stays there on the host backend; NumPy
    data on the active backend. Every call asks this, nothing else does."""
    if placement == ON_DEVICE:
        return GPUVEC_BACKEND_CUDA
    if placement == IN_HOST_MEMORY:
        return GPUVEC_BACKEND_HOST
    return <gpuvec_backend>active_backend()


cdef int fill_launch(gpuvec_launch* launch, Placement placement, int threads_per_block,
                     object stream) except -1:
    """A call's launch: its backend (backend_for), threads per block (0: the
    backend's choice) and the cudaStream_t of `stream` (a gpuvec.Stream or None)."""
    launch.backend = backend_for(placement)
    launch.threads_per_block = threads_per_block
    launch.stream = <gpuvec_stream>stream_handle(stream)
    return 0


cdef int parse_threads_per_block(object value) except -1:
    """threads_per_block= as an int (None: 0, the backend's choice)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"threads_per_block must be an int, got {value!r}")
    n = operator.index(value)
    if n < 0:
        raise ValueError(f"threads_per_block must be positive, got {n}")
    if n > 2**31 - 1:  # beyond a C int; smaller excesses fail as CUDA's launch does
        raise ValueError(f"threads_per_block={n} exceeds the limit of "
                         f"{GPUVEC_MAX_THREADS_PER_BLOCK} threads per block")
    return n


cdef int current_device() except -1:
    cdef int device = 0
    check(abi.cuda_get_device(&device))
    return device


cdef int make_current(int device) except -2:
    """Makes `device` current for one call; returns the device to restore
    afterwards with restore_device, or -1 when it already was current
    (_memory.switch_to, raising its failures)."""
    cdef int previous = -1
    if active_backend() == GPUVEC_BACKEND_CUDA:
        check(switch_to(device, &previous))
    return previous


cdef int restore_device(int previous) except -1:
    if previous >= 0:
        check(abi.cuda_set_device(previous))
    return 0
