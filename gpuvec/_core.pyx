# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec's compiled core: the Cython wrappers around the C ABI.

One extension module, written in a few files that are included here, so that
the C ABI's state (the CUDA runtime, the last-error message) exists once.
Each part says what it uses from the others; in order:

    _check.pxi         ABI status -> Python exception
    _array_fields.pxi  DeviceArray's fields as a C struct (ArrayFields)
    _runtime.pxi       devices and versions
    _memory.pxi        DeviceBuffer, ResultSlot, raw copies, transfer counters
    _streams.pxi       CudaStream, CudaEvent
    _dlpack.pxi        DLPack capsules in and out
    _operands.pxi      what a user passes -> gpuvec_array descriptors
    _calls.pxi         the one call path: elementwise, reduce, copies
    _select.pxi        boolean masks: x[mask] and x[mask] = values
    _kernels.pxi       users' kernels: loaded modules and launches
    _map.pxi           users' ElementwiseKernels: a call of the compiled kernel
    _capi.pxi          the C API for other extensions: a capsule of function pointers

Everything here is private: the public, documented API is in gpuvec/*.py.
"""

from gpuvec._abi cimport *

include "_check.pxi"
include "_array_fields.pxi"
include "_runtime.pxi"
include "_memory.pxi"
include "_streams.pxi"
include "_dlpack.pxi"
include "_operands.pxi"
include "_calls.pxi"
include "_select.pxi"
include "_kernels.pxi"
include "_map.pxi"
include "_capi.pxi"
