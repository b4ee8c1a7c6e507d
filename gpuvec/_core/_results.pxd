# gpuvec._core._results's interface: the scaffold of a call (run_call), the
# arrays it makes, and out= (see _results.pyx).
cimport numpy as cnp
from libc.stdint cimport int64_t, uintptr_t

from gpuvec._core._abi cimport gpuvec_array, gpuvec_dtype, gpuvec_launch, gpuvec_status
from gpuvec._core._operands cimport ArrayFields, Operands


# One ABI call on described operands into a described result, without the GIL.
ctypedef gpuvec_status (*AbiCall)(void* context, const gpuvec_array* result,
                                  const gpuvec_array* arrays, int count,
                                  const gpuvec_launch* launch) noexcept nogil


# run_call's `form`: how the result is made and returned.
cdef enum ResultForm:
    # A new result takes an operand's shape tuples (device) or their memory
    # order (NumPy), as an elementwise result does; else it is C-ordered.
    LIKE_OPERANDS = 1
    # A new 0-d NumPy result is returned as a NumPy scalar, as from a ufunc.
    NUMPY_SCALAR = 2
    # A new 0-d device result is a ResultSlot: mapped host memory that the
    # GPU writes a reduction's one value into.
    RESULT_SLOT = 4
    # The result is a NumPy array also for device data (int64 positions and
    # counts), written through device memory of the call's own.
    HOST_VALUES = 8


cdef object run_call(Operands ops, object out, int ndim, const int64_t* shape,
                     object result_dtype, gpuvec_dtype result_code, object stream,
                     gpuvec_launch* launch, AbiCall call, void* context, int form,
                     tuple result_shape=*)

# New arrays.
cdef tuple c_strides_of(tuple shape, Py_ssize_t itemsize)
cdef object new_device_array(tuple shape, object dtype, int device, object stream,
                             bint host_backed, bint result_slot=*, tuple strides=*)
cdef object host_device_array(cnp.ndarray array)
cdef object device_view(ArrayFields base, tuple shape, Py_ssize_t offset)
cdef int describe_fresh(gpuvec_array* a, uintptr_t address, gpuvec_dtype dtype, int ndim,
                        const int64_t* shape) except -1
cdef int npy_type(gpuvec_dtype dtype) except -1
cdef object numpy_dtype(gpuvec_dtype dtype)

# A user's out=.
cdef int check_out_dtype(object out, object result) except -1
cdef int broadcast_to_out(Operands ops, object out, int ndim, int64_t* shape) except -1
cdef int check_out(object out, Operands ops, int ndim, const int64_t* shape,
                   object result) except -1

# Which stream used which memory, and the bytes a staged call moved.
cdef int mark_stream_use(Operands ops, object result, object stream) except -1
cdef int mark_used(object stream, arrays) except -1
cdef int count_staged(Operands ops, int first, Py_ssize_t size, gpuvec_dtype compute,
                      Py_ssize_t out_bytes) except -1
