# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._streams: CUDA streams and events, and the stream a call runs on.

Serves gpuvec.streams (whose Stream and Event own a CudaStream and a
CudaEvent) and every module of the core that launches work: they ask
resolve_stream which gpuvec.Stream a call runs on and stream_handle for its
cudaStream_t. The current stream (``with gpuvec.Stream():``) is kept in the
context variable CURRENT_STREAM, which this module owns and gpuvec.streams
sets; the one thing gpuvec.streams registers here is its Stream class, with
which another library's stream given as stream= is wrapped.
"""

from contextvars import ContextVar

from cpython.contextvars cimport get_value
from libc.stdint cimport uintptr_t

from gpuvec._core._abi cimport *

__all__ = [
    "CURRENT_STREAM",
    "CudaEvent",
    "CudaStream",
    "register_stream_class",
    "stream_synchronize",
]

# The gpuvec.Stream that `with gpuvec.Stream():` made current in this thread
# (or asyncio task), or None: the default stream.
CURRENT_STREAM = ContextVar("gpuvec_current_stream", default=None)
cdef object _current_stream = CURRENT_STREAM
cdef object _Stream = None  # gpuvec.Stream, registered by gpuvec.streams


def register_stream_class(cls):
    """Tells the core which class gpuvec.Stream is: resolve_stream wraps
    another library's stream in one."""
    global _Stream
    _Stream = cls


cdef object resolve_stream(object stream):
    """The gpuvec.Stream a call runs on: the given one (another library's as a
    gpuvec.Stream, which raises TypeError for anything else), else the current
    one, else None."""
    if stream is None:
        return get_value(_current_stream)
    return stream if isinstance(stream, _Stream) else _Stream(stream)


cdef uintptr_t stream_handle(object stream) except? 0:
    return 0 if stream is None else stream.handle


cdef class CudaStream:
    """A non-blocking cudaStream_t, destroyed when collected."""

    def __cinit__(self):
        self.handle = NULL
        check(abi.cuda_stream_create(&self.handle))

    def __dealloc__(self):
        if self.handle != NULL:
            abi.cuda_stream_destroy(self.handle)

    @property
    def address(self):
        return <uintptr_t>self.handle

    def synchronize(self):
        cdef gpuvec_status status
        with nogil:
            status = abi.cuda_stream_synchronize(self.handle)
        check(status)


def stream_synchronize(uintptr_t stream):
    """Waits for the work queued on a stream (0: the default stream)."""
    cdef gpuvec_status status
    with nogil:
        status = abi.cuda_stream_synchronize(<gpuvec_stream>stream)
    check(status)


cdef class CudaEvent:
    """A cudaEvent_t with timing, destroyed when collected."""

    def __cinit__(self):
        self.handle = NULL
        check(abi.cuda_event_create(&self.handle))

    def __dealloc__(self):
        if self.handle != NULL:
            abi.cuda_event_destroy(self.handle)

    def record(self, uintptr_t stream):
        check(abi.cuda_event_record(self.handle, <gpuvec_stream>stream))

    def synchronize(self):
        cdef gpuvec_status status
        with nogil:
            status = abi.cuda_event_synchronize(self.handle)
        check(status)

    def elapsed_ms(self, CudaEvent end):
        cdef float ms = 0
        check(abi.cuda_event_elapsed_ms(self.handle, end.handle, &ms))
        return ms

    def wait_on(self, uintptr_t stream):
        """Makes work queued on `stream` from now on wait for this event."""
        check(abi.cuda_stream_wait_event(<gpuvec_stream>stream, self.handle))
