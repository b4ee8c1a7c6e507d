# gpuvec._core._copy's interface: copies between arrays, and the data a
# call moves to the device before it runs (see _copy.pyx).
cimport numpy as cnp

from gpuvec._core._operands cimport Operands


# target[...] = source, broadcast, the dtype converted, across host and device.
cdef int copy(object target, object source) except -1
# A float32 result rounded to float16: a new array (or NumPy scalar).
cdef object as_float16(object result, object stream)
# Complex scalar operands given memory of the compute dtype (see _copy.pyx).
cdef int complex_scalars(Operands ops, object compute, object stream, int first=*) except -1
# ResultSlot operands of device data, copied into device memory.
cdef int device_scalars(Operands ops, object stream) except -1
# A new bool DeviceArray on `device` holding a C-ordered host bool array.
cdef object upload_bools(cnp.ndarray host, int device, object stream)
