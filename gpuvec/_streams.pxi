# CUDA streams and events, owned by Python objects.

from libc.stdint cimport uintptr_t


cdef class CudaStream:
    """A non-blocking cudaStream_t, destroyed when collected."""

    cdef gpuvec_stream handle

    def __cinit__(self):
        self.handle = NULL
        check(gpuvec_cuda_stream_create(&self.handle))

    def __dealloc__(self):
        if self.handle != NULL:
            gpuvec_cuda_stream_destroy(self.handle)

    @property
    def address(self):
        return <uintptr_t>self.handle

    def synchronize(self):
        cdef gpuvec_status status
        with nogil:
            status = gpuvec_cuda_stream_synchronize(self.handle)
        check(status)


def stream_synchronize(uintptr_t stream):
    """Waits for the work queued on a stream (0: the default stream)."""
    cdef gpuvec_status status
    with nogil:
        status = gpuvec_cuda_stream_synchronize(<gpuvec_stream>stream)
    check(status)


cdef class CudaEvent:
    """A cudaEvent_t with timing, destroyed when collected."""

    cdef gpuvec_event handle

    def __cinit__(self):
        self.handle = NULL
        check(gpuvec_cuda_event_create(&self.handle))

    def __dealloc__(self):
        if self.handle != NULL:
            gpuvec_cuda_event_destroy(self.handle)

    def record(self, uintptr_t stream):
        check(gpuvec_cuda_event_record(self.handle, <gpuvec_stream>stream))

    def synchronize(self):
        cdef gpuvec_status status
        with nogil:
            status = gpuvec_cuda_event_synchronize(self.handle)
        check(status)

    def elapsed_ms(self, CudaEvent end):
        cdef float ms = 0
        check(gpuvec_cuda_event_elapsed_ms(self.handle, end.handle, &ms))
        return ms

    def wait_on(self, uintptr_t stream):
        """Makes work queued on `stream` from now on wait for this event."""
        check(gpuvec_cuda_stream_wait_event(<gpuvec_stream>stream, self.handle))
