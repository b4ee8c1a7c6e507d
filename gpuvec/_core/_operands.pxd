# gpuvec._core._operands's interface: ArrayFields, the dtype policy, and the
# operands of one call as gpuvec_array descriptors (see _operands.pyx).
cimport numpy as cnp
from libc.stdint cimport int64_t, uintptr_t

from gpuvec._core._abi cimport (
    GPUVEC_BOOL,
    GPUVEC_COMPLEX64,
    GPUVEC_COMPLEX128,
    GPUVEC_FLOAT16,
    GPUVEC_FLOAT32,
    GPUVEC_INT8,
    GPUVEC_INT16,
    GPUVEC_INT32,
    GPUVEC_MAX_INPUTS,
    GPUVEC_UINT8,
    GPUVEC_UINT16,
    GPUVEC_UINT32,
    gpuvec_array,
)
from gpuvec._core._abi cimport gpuvec_dtype
from gpuvec._core._launch cimport Placement


cdef class ArrayFields:
    cdef public object _host  # the NumPy array holding the data (host backend), else None
    cdef public object _owner  # what keeps the device memory alive (a DeviceBuffer, ...)
    cdef public uintptr_t _address  # device address of element (0, ..., 0); 0 on the host
    cdef public tuple _shape
    cdef public tuple _strides  # in bytes, as in NumPy
    cdef public object _dtype  # numpy.dtype: one of ARRAY_DTYPES
    cdef public int _device
    cdef public object _stream  # the gpuvec.Stream that last wrote the data, or None
    cdef public bint _readonly
    cdef public bint _contiguous  # C-contiguous
    cdef public Py_ssize_t _size


# NumPy's dtypes of the ABI's.
cdef object FLOAT16, FLOAT32, FLOAT64, INT64, BOOL, COMPLEX64, COMPLEX128


# Where an operand is, as one call sees it.
cdef enum:
    SCALAR = 0  # a number
    HOST_DATA = 1  # a NumPy array (host mode)
    DEVICE_DATA = 2  # a DeviceArray or another library's GPU array (device mode)


cdef class Operands:
    cdef list objects  # the operands as described (converted where needed)
    cdef list names
    cdef int count
    # Room for GPUVEC_MAX_INPUTS operands (gpuvec's own ops) in the object
    # itself; reserve() makes room for more (an ElementwiseKernel's).
    cdef int* kinds
    cdef bint* weak  # a Python number: does not decide the dtype
    cdef gpuvec_array* arrays
    cdef int _kinds[GPUVEC_MAX_INPUTS]
    cdef bint _weak[GPUVEC_MAX_INPUTS]
    cdef gpuvec_array _arrays[GPUVEC_MAX_INPUTS]
    cdef bint device_mode  # an operand is device data: the result is a DeviceArray
    cdef bint host_backed  # ... and that data is a host-backend DeviceArray
    cdef int device  # the CUDA device of device data

    cdef void _release(self) noexcept
    cdef int reserve(self, int n) except -1


# DeviceArrays: a new one to fill in, and another library's GPU array as one.
cdef ArrayFields new_fields()
cdef object to_device_array(object value)

# The dtype policy.
cdef object precision()
cpdef object as_real_array(object value, str name)
cpdef object check_dtype(object dtype)
cpdef object check_array_dtype(object dtype)
cpdef object native_byte_order(object array)
cpdef object native_dtype(object dt)
cdef object compute_dtype(Operands ops, object dtype, int first=*, object ufunc=*,
                          str kinds=*)
cdef object computed_in(object dtype)
cdef object truth_compute_dtype(Operands ops, object dtype, int first=*, bint logical=*,
                                object ufunc=*, str kinds=*)
cdef int convert_host_inputs(Operands ops, object compute, int first=*,
                             bint keep_bool=*) except -1

# Describing operands: the next one (add), and each kind.
cdef int add(Operands ops, object value, str name) except -1
cdef int describe_device_array(Operands ops, int k, ArrayFields f) except -1
cdef int describe_host_array(Operands ops, int k, cnp.ndarray array) except -1
cdef int fill_strides(gpuvec_array* a, int ndim, const cnp.npy_intp* shape,
                      const cnp.npy_intp* strides, Py_ssize_t itemsize) except -1
cdef int describe_result(gpuvec_array* a, object result, int ndim, const int64_t* shape,
                         gpuvec_dtype dtype) except -1
cdef int check_placement(Operands ops, int first=*) except -1
cdef Placement placement(Operands ops) noexcept

# Broadcasting the descriptors.
cdef int broadcast(Operands ops, int first, int64_t* shape) except -1
cdef int broadcast_to(gpuvec_array* a, int ndim, const int64_t* shape) except -1

# Small answers.
cdef bint whole_elements(cnp.ndarray array)
cpdef bint on_gpu(object value) except -1
cdef gpuvec_dtype code_of(object dtype) noexcept
cdef object dtype_of_code(gpuvec_dtype code)
cdef tuple shape_of(object value)
cdef tuple shape_tuple(int ndim, const int64_t* shape)


cdef inline bint is_python_number(object v):
    t = type(v)
    return t is float or t is int or t is bool


# A Python complex or a NumPy complex scalar: a scalar whose value the ABI's
# one double cannot hold (_copy.complex_scalars gives it memory).
cdef bint is_complex_number(object v)


cdef inline Py_ssize_t itemsize_of(gpuvec_dtype dtype) noexcept:
    if dtype == GPUVEC_FLOAT32 or dtype == GPUVEC_INT32 or dtype == GPUVEC_UINT32:
        return 4
    if dtype == GPUVEC_BOOL or dtype == GPUVEC_INT8 or dtype == GPUVEC_UINT8:
        return 1
    if dtype == GPUVEC_INT16 or dtype == GPUVEC_UINT16 or dtype == GPUVEC_FLOAT16:
        return 2
    if dtype == GPUVEC_COMPLEX128:
        return 16
    return 8
