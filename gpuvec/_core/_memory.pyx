# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._memory: device memory owned by Python objects.

Serves the modules that allocate or move data (_results, _copy, _reduce,
_select) and gpuvec.memory and gpuvec.device_array: DeviceBuffer,
PinnedHostMemory and ResultSlot, raw copies between host and device, the
device switch around a call on another device's memory, and the counters
of bytes moved (which tests and benchmarks read).

Memory comes from CUDA's stream-ordered pool (cudaMallocAsync), which
gpuvec keeps as a cache: freed blocks are reused without a cudaMalloc.
A buffer is allocated on a stream and freed on the same stream, after all
work queued there so far. When another stream uses the buffer, the buffer
remembers it (note_use), and its free waits for that stream's work (see
_wait_for_uses), so memory is never reused while a kernel on another
stream may still read it.

With several GPUs, a buffer lives on the device it was allocated on, which
need not be the current one: it is allocated, and later freed, with its own
device current (stream 0 means that device's default stream).
"""

cimport cython
from cpython.buffer cimport PyBUF_FORMAT
from libc.stdint cimport uintptr_t

from gpuvec._core._abi cimport *

import numpy as np

__all__ = [
    "DeviceBuffer",
    "PinnedHostMemory",
    "ResultSlot",
    "call_before_allocation",
    "copy_to_device",
    "copy_to_host",
    "pool_release_cached",
    "pool_usage",
    "read_scalar",
    "set_memory_limit",
    "transfer_counts",
]

# Bytes moved between host and device, for tests and benchmarks that check
# that chained device ops move nothing.
cdef size_t _bytes_to_device = 0
cdef size_t _bytes_to_host = 0


# What to call before the next allocation, or None: gpuvec.memory's reading of
# GPUVEC_MEMORY_LIMIT, which is read then rather than at import, since a
# process may be given it after importing gpuvec (a Dask Nanny's env=, say).
cdef object _before_allocation = None


def transfer_counts():
    """(bytes copied to the device, bytes copied to the host) so far."""
    return _bytes_to_device, _bytes_to_host


def call_before_allocation(function):
    """Calls function() before each allocation of device memory until it is
    called again with None (which the function may do itself)."""
    global _before_allocation
    _before_allocation = function


cdef void count_transfer(size_t to_device, size_t to_host) noexcept:
    global _bytes_to_device, _bytes_to_host
    _bytes_to_device += to_device
    _bytes_to_host += to_host


cdef gpuvec_status switch_to(int device, int* current) noexcept nogil:
    """Makes `device` current (-1: leaves the current one), and says in
    `current` which device to restore afterwards (-1: none)."""
    cdef int now = 0
    cdef gpuvec_status status
    current[0] = -1
    if device < 0:
        return GPUVEC_SUCCESS
    status = abi.cuda_get_device(&now)
    if status != GPUVEC_SUCCESS or now == device:
        return status
    current[0] = now
    return abi.cuda_set_device(device)


cdef void switch_back(int previous) noexcept nogil:
    """Makes `previous` (from _switch_to) current again, if it was another
    device; a failure here cannot be reported, and leaves the current one."""
    if previous >= 0:
        abi.cuda_set_device(previous)


@cython.no_gc_clear  # __dealloc__ needs stream_owner: keep it until then
cdef class DeviceBuffer:
    """Device memory owned by Python: freed, in stream order, when collected.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 gives a buffer with a NULL pointer).
    stream : int
        The cudaStream_t to allocate and later free on (0: the default stream).
    stream_owner : object, optional
        What keeps that stream alive (a gpuvec.Stream): the buffer holds on to
        it, so the stream outlives the free queued on it.
    device : int, optional
        The device to allocate on (by default the current one).
    """

    def __cinit__(self, size_t nbytes, uintptr_t stream=0, stream_owner=None, int device=-1):
        cdef gpuvec_status status = GPUVEC_SUCCESS
        cdef int previous = -1
        self.ptr = NULL
        self.nbytes = nbytes
        self.stream = stream
        self.stream_owner = stream_owner
        self.device = -1
        if nbytes and _before_allocation is not None:
            _before_allocation()
        if nbytes:
            with nogil:
                status = switch_to(device, &previous)
                if status == GPUVEC_SUCCESS:
                    if device >= 0:
                        self.device = device
                    else:
                        status = abi.cuda_get_device(&self.device)
                if status == GPUVEC_SUCCESS:
                    status = abi.cuda_alloc(nbytes, <gpuvec_stream>stream, &self.ptr)
                switch_back(previous)  # the allocation's status is the one reported
            check(status)

    cdef void note_use(self, uintptr_t stream, object stream_owner):
        """Remembers that work queued on `stream` (kept alive by
        `stream_owner`) uses the memory, so that the free waits for it.

        The wait is queued when the buffer is freed, once for each stream,
        rather than an event per call: a call inside `with gpuvec.Stream():`
        on arrays made outside it then costs what a call outside does.
        """
        if stream == self.stream:
            return
        if self.used_on is None:
            self.used_on = {}
        elif len(self.used_on) >= _MAX_USES_REMEMBERED and stream not in self.used_on:
            # Many short-lived streams: order the free after them now, so
            # that the buffer does not keep them all alive.
            _wait_for_uses(self)
            self.used_on.clear()
        self.used_on[stream] = stream_owner

    def __dealloc__(self):
        # Failures cannot be raised from here; the memory is then lost to the
        # process, which is all a failed free can do.
        cdef int previous = -1
        if self.ptr != NULL:
            switch_to(self.device, &previous)
            if self.used_on:
                _wait_for_uses(self)
            abi.cuda_free(self.ptr, self.nbytes, <gpuvec_stream>self.stream)
            switch_back(previous)

    @property
    def address(self):
        """The device address, as an int."""
        return <uintptr_t>self.ptr


# One event per device orders a free after the uses on other streams,
# recorded again for each: a wait queued on an event waits for what the
# event recorded when the wait was queued, so a later record leaves the
# earlier waits as they were.
cdef dict _ordering_events = {}
# The most other streams a buffer remembers (DeviceBuffer.note_use).
cdef int _MAX_USES_REMEMBERED = 8


cdef void _wait_for_uses(DeviceBuffer buffer) noexcept:
    """Queues, on the stream that will free `buffer` (its device current),
    a wait for the work queued so far on each other stream that used it.
    It cannot fail: where no event can be had, those streams are waited for
    on the host instead."""
    cdef gpuvec_event event = <gpuvec_event><uintptr_t>_ordering_events.get(buffer.device, 0)
    cdef uintptr_t handle
    if event == NULL and abi.cuda_event_create(&event) == GPUVEC_SUCCESS:
        _ordering_events[buffer.device] = <uintptr_t>event
    for handle in buffer.used_on:
        if (event == NULL
                or abi.cuda_event_record(event, <gpuvec_stream>handle) != GPUVEC_SUCCESS
                or abi.cuda_stream_wait_event(<gpuvec_stream>buffer.stream, event)
                != GPUVEC_SUCCESS):
            abi.cuda_stream_synchronize(<gpuvec_stream>handle)


cdef int upload(uintptr_t dst, const void* src, size_t n, uintptr_t stream) except -1:
    """Copies n host bytes to a device address (ordered on the stream, then waited for)."""
    global _bytes_to_device
    cdef gpuvec_status status
    if n == 0:
        return 0
    with nogil:
        status = abi.cuda_copy_to_device(<void*>dst, src, n, <gpuvec_stream>stream)
        if status == GPUVEC_SUCCESS:
            status = abi.cuda_stream_synchronize(<gpuvec_stream>stream)
    check(status)
    _bytes_to_device += n
    return 0


cdef int download(void* dst, uintptr_t src, size_t n, uintptr_t stream) except -1:
    """Copies n device bytes to host memory, and waits for them."""
    global _bytes_to_host
    cdef gpuvec_status status
    if n == 0:
        return 0
    with nogil:
        status = abi.cuda_copy_to_host(dst, <const void*>src, n, <gpuvec_stream>stream)
        if status == GPUVEC_SUCCESS:
            status = abi.cuda_stream_synchronize(<gpuvec_stream>stream)
    check(status)
    _bytes_to_host += n
    return 0


def copy_to_device(uintptr_t dst, const unsigned char[::1] src, uintptr_t stream):
    """Copies host bytes to a device address (ordered on the stream, then waited for)."""
    if src.shape[0]:
        upload(dst, &src[0], src.shape[0], stream)


def copy_to_host(unsigned char[::1] dst, uintptr_t src, uintptr_t stream):
    """Copies device bytes into a writable host buffer, and waits for them."""
    if dst.shape[0]:
        download(&dst[0], src, dst.shape[0], stream)


def pool_usage():
    """(bytes in use, bytes held) by the current device's caching pool."""
    cdef size_t used = 0, reserved = 0
    check(abi.cuda_pool_usage(&used, &reserved))
    return used, reserved


cdef class PinnedHostMemory:
    """Pinned host memory that a download's result lives in (see
    csrc/cuda/pinned_results.hpp): NumPy arrays view it through the buffer
    protocol, and it goes back to gpuvec's pool, for the next result of its
    size, when the last of them is collected."""

    @staticmethod
    cdef PinnedHostMemory take(size_t nbytes):
        """Pinned memory of `nbytes`, or None where pageable memory should
        serve (a small size, one downloaded fewer than twice before, or the
        pool is full)."""
        cdef void* ptr = NULL
        check(abi.cuda_pinned_result_alloc(nbytes, &ptr))
        if ptr == NULL:
            return None
        cdef PinnedHostMemory memory = PinnedHostMemory.__new__(PinnedHostMemory)
        memory.ptr = ptr
        memory.length[0] = nbytes
        return memory

    def __getbuffer__(self, Py_buffer* view, int flags):
        view.buf = self.ptr
        view.obj = self
        view.len = self.length[0]
        view.readonly = 0
        view.itemsize = 1
        view.format = NULL  # unsigned bytes
        if flags & PyBUF_FORMAT:
            view.format = "B"
        view.ndim = 1
        view.shape = self.length
        view.strides = NULL
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer* view):
        pass

    def __dealloc__(self):
        if self.ptr != NULL:
            abi.cuda_pinned_result_free(self.ptr)  # cannot fail: a lookup and a list


def set_memory_limit(size_t nbytes):
    """Caps the bytes gpuvec hands out on each device (0: no cap)."""
    check(abi.cuda_set_memory_limit(nbytes))


def pool_release_cached():
    """Gives the pool's cached (unused) blocks back to the driver."""
    cdef gpuvec_status status
    with nogil:
        status = abi.cuda_pool_release_cached()
    check(status)


cdef class ResultSlot:
    """Where a reduction on the device writes its one value: mapped pinned host
    memory, so that reading it after a synchronize needs no copy. It belongs
    to the device current when it is made, whose streams write it."""

    def __cinit__(self, uintptr_t stream=0, stream_owner=None):
        self.ptr = NULL
        self.stream = stream
        self.stream_owner = stream_owner
        self.device = 0
        check(abi.cuda_get_device(&self.device))
        check(abi.cuda_result_slot_alloc(&self.ptr))

    def __dealloc__(self):
        cdef int previous = -1
        if self.ptr != NULL:
            switch_to(self.device, &previous)
            abi.cuda_result_slot_free(self.ptr, <gpuvec_stream>self.stream)
            switch_back(previous)

    def read(self, object dtype, uintptr_t stream):
        """The value, of `dtype`, once the work queued on `stream` (of the
        slot's device) is done: a NumPy scalar."""
        cdef gpuvec_status status
        cdef int previous = -1
        with nogil:
            status = switch_to(self.device, &previous)
            if status == GPUVEC_SUCCESS:
                status = abi.cuda_stream_synchronize(<gpuvec_stream>stream)
            switch_back(previous)
        check(status)
        return np.frombuffer((<char*>self.ptr)[:dtype.itemsize], dtype)[0]


def read_scalar(uintptr_t address, object dtype, uintptr_t stream, int device=-1):
    """The value of `dtype` at a device address of `device` (by default the
    current one), as a NumPy scalar, once the work queued on `stream` (of
    that device) is done."""
    cdef unsigned char value[16]
    cdef size_t itemsize = dtype.itemsize
    cdef gpuvec_status status
    cdef int previous = -1
    if itemsize > sizeof(value):
        raise ValueError(f"no scalar of {itemsize} bytes")
    with nogil:
        status = switch_to(device, &previous)
        if status == GPUVEC_SUCCESS:
            status = abi.cuda_read_scalar(<const void*>address, itemsize,
                                          <gpuvec_stream>stream, value)
        switch_back(previous)
    check(status)
    return np.frombuffer((<char*>value)[:itemsize], dtype)[0]
