# gpuvec._core._memory's interface: device memory owned by Python objects,
# raw copies, the device switch and the transfer counters (see _memory.pyx).
cimport cython
from libc.stdint cimport uintptr_t

from gpuvec._core._abi cimport gpuvec_status


@cython.no_gc_clear  # __dealloc__ needs stream_owner: keep it until then
cdef class DeviceBuffer:
    cdef void* ptr
    cdef readonly size_t nbytes
    cdef readonly uintptr_t stream
    cdef readonly int device  # -1 for an empty buffer
    cdef object stream_owner
    # The other streams that used the memory (handle -> what keeps the stream
    # alive), or None: the free waits for the work queued on them.
    cdef dict used_on

    cdef void note_use(self, uintptr_t stream, object stream_owner)


cdef class PinnedHostMemory:
    cdef void* ptr
    cdef Py_ssize_t length[1]

    @staticmethod
    cdef PinnedHostMemory take(size_t nbytes)


cdef class ResultSlot:
    cdef void* ptr
    cdef readonly uintptr_t stream
    cdef readonly int device
    cdef object stream_owner


# Makes `device` current (-1: leaves the current one); says in `current`
# which device switch_back restores afterwards (-1: none).
cdef gpuvec_status switch_to(int device, int* current) noexcept nogil
cdef void switch_back(int previous) noexcept nogil

# n bytes between host and device memory, ordered on `stream` and waited
# for; both add to the transfer counters.
cdef int upload(uintptr_t dst, const void* src, size_t n, uintptr_t stream) except -1
cdef int download(void* dst, uintptr_t src, size_t n, uintptr_t stream) except -1

# Adds bytes that a call moved (staged through pinned memory) to the counters.
cdef void count_transfer(size_t to_device, size_t to_host) noexcept
