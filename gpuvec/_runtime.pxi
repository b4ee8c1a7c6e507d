# Backends, devices and device memory.

BACKEND_HOST = GPUVEC_BACKEND_HOST
BACKEND_CUDA = GPUVEC_BACKEND_CUDA
MAX_NDIM = GPUVEC_MAX_NDIM
MAX_MAP_INPUTS = GPUVEC_MAX_MAP_INPUTS
MAX_THREADS_PER_BLOCK = GPUVEC_MAX_THREADS_PER_BLOCK


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
