# gpuvec._core._streams's interface: CUDA streams and events, and the
# stream a call runs on (see _streams.pyx).
from libc.stdint cimport uintptr_t

from gpuvec._core._abi cimport gpuvec_event, gpuvec_stream


cdef class CudaStream:
    cdef gpuvec_stream handle


cdef class CudaEvent:
    cdef gpuvec_event handle


# The gpuvec.Stream a call runs on: `stream` (another library's wrapped in a
# gpuvec.Stream), else the current one, else None (the default stream).
cdef object resolve_stream(object stream)
# A gpuvec.Stream's cudaStream_t; 0 for None.
cdef uintptr_t stream_handle(object stream) except? 0
