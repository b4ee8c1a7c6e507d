# Operands: what a user passes, described for the C ABI.
#
# Every op argument becomes one gpuvec_array descriptor (gpuvec/gpuvec.h):
#   - a DeviceArray: its device memory (or, on the host backend, its NumPy
#     array), read from its C struct fields (ArrayFields);
#   - a NumPy array: its own memory, whatever its strides; float32 and
#     float64 are read as they are (the C++ side converts them as it reads),
#     other real dtypes are converted by NumPy first, and so is data in the
#     other byte order (_dtypes.native_byte_order: the kernels read native
#     numbers);
#   - a Python or NumPy number: a scalar, which has no memory at all;
#   - anything else: another library's GPU array (shared, not copied), or
#     whatever NumPy makes of it (a list, say).
# The descriptors are then broadcast to the op's shape (stride 0 where an
# operand is repeated), with the dtype policy and NumPy's error messages.
#
# Uses: ArrayFields (_array_fields.pxi), DeviceBuffer and ResultSlot
# (_memory.pxi), check (_check.pxi); the dtype policy's state (gpuvec._dtypes).

cimport cython
cimport numpy as cnp
from cpython.contextvars cimport get_value
from libc.stdint cimport int64_t, uintptr_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

from gpuvec import _dtypes

cnp.import_array()

cdef object _DeviceArray = None  # gpuvec.DeviceArray, registered by its module
cdef object _to_device_array = None  # gpuvec.asarray, for other libraries' GPU arrays
cdef object _FLOAT32 = np.dtype(np.float32)
cdef object _FLOAT64 = np.dtype(np.float64)
cdef object _INT64 = np.dtype(np.int64)
cdef object _BOOL = np.dtype(np.bool_)
cdef object _scoped_precision = _dtypes._scoped_precision
cdef object _default_precision = _dtypes._default_precision
cdef object _UNSET = _dtypes._UNSET
# The active backend: the one source of truth. -1 until a call first needs it:
# choosing asks the CUDA driver, which fixes the devices this process sees
# (CUDA_VISIBLE_DEVICES) for good, and a Dask-CUDA worker imports gpuvec
# before it is given its GPU. So `import gpuvec` asks nothing of CUDA.
cdef int _backend_code = -1
cdef object _choose_backend = None  # gpuvec._backend's chooser, registered by it


cdef inline int _active_backend() except -1:
    """The active backend's code, chosen first where no call has needed it yet."""
    if _backend_code < 0:
        _choose_backend()
    return _backend_code


def register_device_array(cls, to_device_array):
    """Tells the core which class DeviceArray is, and how another library's
    GPU array becomes one (layers above the core register themselves, so the
    core imports none of them)."""
    global _DeviceArray, _to_device_array
    _DeviceArray = cls
    _to_device_array = to_device_array


def set_backend_code(int code):
    """Makes `code` (BACKEND_HOST or BACKEND_CUDA) the backend new calls use."""
    global _backend_code
    _backend_code = code


def defer_backend_choice(chooser):
    """Leaves the backend unchosen until a call needs it; then `chooser()` must
    choose it (with set_backend_code) or raise."""
    global _backend_code, _choose_backend
    _choose_backend = chooser
    _backend_code = -1


def backend_is_chosen():
    return _backend_code >= 0


def backend_code():
    return _active_backend()


# Where an operand is, as one call sees it.
cdef enum:
    _SCALAR = 0  # a number
    _HOST = 1  # a NumPy array (host mode)
    _DEVICE = 2  # a DeviceArray or another library's GPU array (device mode)


@cython.freelist(8)  # one per call: reuse the memory rather than allocate it each time
cdef class Operands:
    """The operands of one call: the objects, kept alive while the ABI reads
    them, and their descriptors. Private: made and used by _calls.pxi."""

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

    def __cinit__(self):
        self.objects = []
        self.names = []
        self.count = 0
        self.kinds = self._kinds
        self.weak = self._weak
        self.arrays = self._arrays
        self.device_mode = False
        self.host_backed = False
        self.device = -1

    def __dealloc__(self):
        self._release()

    cdef void _release(self) noexcept:
        if self.arrays != self._arrays:
            free(self.kinds)
            free(self.weak)
            free(self.arrays)
        self.kinds = self._kinds
        self.weak = self._weak
        self.arrays = self._arrays

    cdef int reserve(self, int n) except -1:
        """Room for n operands (before any is added)."""
        if n <= GPUVEC_MAX_INPUTS:
            return 0
        self._release()
        self.kinds = <int*>malloc(n * sizeof(int))
        self.weak = <bint*>malloc(n * sizeof(bint))
        self.arrays = <gpuvec_array*>malloc(n * sizeof(gpuvec_array))
        if self.kinds == NULL or self.weak == NULL or self.arrays == NULL:
            self._release()  # free(NULL) is harmless
            raise MemoryError()
        return 0


cdef inline bint _is_python_number(object v):
    t = type(v)
    return t is float or t is int or t is bool


cdef int _fill_strides(gpuvec_array* a, int ndim, const cnp.npy_intp* shape,
                       const cnp.npy_intp* strides, Py_ssize_t itemsize) except -1:
    """Shape and element strides of an array whose byte strides are whole elements."""
    cdef int d
    a.ndim = ndim
    for d in range(ndim):
        a.shape[d] = shape[d]
        a.strides[d] = strides[d] // itemsize
    return 0


cdef inline gpuvec_dtype _code_of(object dtype):
    # A DeviceArray holds float32, float64 or bool; NumPy's dtypes are
    # singletons, so identity almost always answers.
    if dtype is _FLOAT32:
        return GPUVEC_FLOAT32
    if dtype is _FLOAT64:
        return GPUVEC_FLOAT64
    if dtype == _FLOAT32:
        return GPUVEC_FLOAT32
    if dtype == _BOOL:
        return GPUVEC_BOOL
    return GPUVEC_FLOAT64


cdef inline object _dtype_of_code(gpuvec_dtype code):
    """The NumPy dtype of an ABI dtype."""
    if code == GPUVEC_FLOAT32:
        return _FLOAT32
    if code == GPUVEC_BOOL:
        return _BOOL
    return _INT64 if code == GPUVEC_INT64 else _FLOAT64


cdef int _describe_device_array(Operands ops, int k, ArrayFields f) except -1:
    """Operand k is a DeviceArray."""
    cdef gpuvec_array* a = &ops.arrays[k]
    cdef Py_ssize_t itemsize
    cdef int d = 0
    if f._host is not None:
        _describe_host_array(ops, k, f._host)
        ops.host_backed = True
    else:
        a.dtype = _code_of(f._dtype)
        itemsize = _itemsize(a.dtype)
        a.data = <void*>f._address
        a.memory = GPUVEC_MEMORY_DEVICE
        a.ndim = len(f._shape)
        if a.ndim > GPUVEC_MAX_NDIM:
            raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not "
                             f"supported: {ops.names[k]} has {a.ndim}")
        for d in range(a.ndim):
            a.shape[d] = f._shape[d]
            a.strides[d] = <Py_ssize_t>f._strides[d] // itemsize
        if ops.device >= 0 and ops.device != f._device:
            raise ValueError(f"the arrays are on different devices: "
                             f"{sorted({ops.device, f._device})}")
        ops.device = f._device
    ops.kinds[k] = _DEVICE
    ops.device_mode = True
    return 0


cdef int _describe_host_array(Operands ops, int k, cnp.ndarray array) except -1:
    """Operand k is a float32, float64 or bool NumPy array with whole-element
    strides."""
    cdef gpuvec_array* a = &ops.arrays[k]
    cdef int npy_type = cnp.PyArray_TYPE(array)
    a.data = cnp.PyArray_DATA(array)
    a.memory = GPUVEC_MEMORY_HOST
    if npy_type == cnp.NPY_BOOL:
        a.dtype = GPUVEC_BOOL
    else:
        a.dtype = GPUVEC_FLOAT32 if npy_type == cnp.NPY_FLOAT32 else GPUVEC_FLOAT64
    if cnp.PyArray_NDIM(array) > GPUVEC_MAX_NDIM:
        raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not supported: "
                         f"{ops.names[k]} has {cnp.PyArray_NDIM(array)}")
    _fill_strides(a, cnp.PyArray_NDIM(array), cnp.PyArray_DIMS(array),
                  cnp.PyArray_STRIDES(array), cnp.PyArray_ITEMSIZE(array))
    if cnp.PyArray_SIZE(array) == 0:
        a.data = NULL
    ops.kinds[k] = _HOST
    return 0


cdef bint _whole_elements(cnp.ndarray array):
    """True when every byte stride is a whole number of elements (and aligned)."""
    cdef int d
    cdef Py_ssize_t itemsize = cnp.PyArray_ITEMSIZE(array)
    if not cnp.PyArray_ISALIGNED(array):
        return False
    for d in range(cnp.PyArray_NDIM(array)):
        if cnp.PyArray_STRIDES(array)[d] % itemsize:
            return False
    return True


cdef int _add(Operands ops, object value, str name) except -1:
    """Describes `value` as the next operand. Non-float host data is kept as
    it is for now: _convert_host_inputs converts it once the dtype is known."""
    cdef int k = ops.count
    cdef gpuvec_array* a = &ops.arrays[k]
    memset(a, 0, sizeof(gpuvec_array))
    ops.names.append(name)
    ops.weak[k] = False
    ops.count += 1
    if type(value) is _DeviceArray:
        ops.objects.append(value)
        return _describe_device_array(ops, k, <ArrayFields>value)
    if type(value) is np.ndarray:  # the commonest host operand, read through NumPy's C API
        return _add_host_array(ops, k, <cnp.ndarray>value, name)
    if _is_python_number(value):
        ops.objects.append(value)
        ops.weak[k] = True
        ops.kinds[k] = _SCALAR
        a.memory = GPUVEC_MEMORY_SCALAR
        a.scalar = value
        a.dtype = GPUVEC_FLOAT64
        return 0
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        ops.objects.append(value)
        ops.kinds[k] = _SCALAR
        a.memory = GPUVEC_MEMORY_SCALAR
        a.scalar = float(value)
        if value.dtype.kind == "b":
            a.dtype = GPUVEC_BOOL
        else:
            a.dtype = GPUVEC_FLOAT32 if value.dtype == _FLOAT32 else GPUVEC_FLOAT64
        return 0
    if isinstance(value, _DeviceArray):  # a subclass
        ops.objects.append(value)
        return _describe_device_array(ops, k, <ArrayFields>value)
    if not isinstance(value, np.ndarray):
        if _to_device_array is not None and _on_gpu(value):
            value = _to_device_array(value)
            ops.objects.append(value)
            return _describe_device_array(ops, k, <ArrayFields>value)
        value = _dtypes.as_real_array(value, name)
    elif not isinstance(value, np.matrix):
        value = _dtypes.as_real_array(value, name)
    return _add_host_array(ops, k, <cnp.ndarray>value, name)


cdef int _add_host_array(Operands ops, int k, cnp.ndarray array, str name) except -1:
    """Operand k is a NumPy array (of type ndarray or matrix). Float32,
    float64 and bool data in native byte order is read where it is; ints and
    float16 are kept for NumPy to convert once the compute dtype is known."""
    if not (cnp.PyArray_ISBOOL(array) or cnp.PyArray_ISINTEGER(array)
            or cnp.PyArray_ISFLOAT(array)):
        _dtypes.as_real_array(array, name)  # the TypeError naming the argument
    cdef int npy_type = cnp.PyArray_TYPE(array)
    cdef bint direct = (npy_type == cnp.NPY_FLOAT32 or npy_type == cnp.NPY_FLOAT64
                        or npy_type == cnp.NPY_BOOL)
    # The type number ignores byte order: '>f8' is NPY_FLOAT64 too, and its
    # bytes read as native numbers are garbage. (The others' astype converts.)
    if direct and not cnp.PyArray_ISNOTSWAPPED(array):
        array = _dtypes.native_byte_order(array)
    if direct and not _whole_elements(array):
        array = np.array(array, order="C")  # rare: a view with byte strides between elements
    ops.objects.append(array)
    if direct:  # read as it is: the C++ side converts a bool as it reads it
        return _describe_host_array(ops, k, array)
    # Ints and float16, converted by NumPy once the dtype is known.
    ops.kinds[k] = _HOST
    ops.arrays[k].memory = GPUVEC_MEMORY_HOST
    ops.arrays[k].dtype = GPUVEC_INT64
    return 0


cdef bint _on_gpu(object value) except -1:
    """True for another library's GPU array (CUDA array interface or CUDA DLPack)."""
    if hasattr(value, "__cuda_array_interface__"):
        try:
            value.__cuda_array_interface__  # noqa: B018 - PyTorch raises for CPU tensors
        except (AttributeError, RuntimeError, TypeError):
            return False
        return True
    if hasattr(value, "__dlpack_device__"):
        return value.__dlpack_device__()[0] == DLPACK_CUDA
    return False


cdef object _precision():
    """The dtype set with set_precision or precision(), or None."""
    scoped = get_value(_scoped_precision, _UNSET)
    return _default_precision["dtype"] if scoped is _UNSET else scoped


cdef object _compute_dtype(Operands ops, object dtype, int first=0):
    """The dtype the op computes in: the policy of gpuvec._dtypes, decided in
    C for float32 and float64 operands, by NumPy for any other dtype."""
    cdef int k
    cdef bint any_float64 = False, any_strong = False
    if dtype is not None:
        return _dtypes.check_dtype(dtype)
    chosen = _precision()
    if chosen is not None:
        return chosen
    for k in range(first, ops.count):
        if ops.weak[k] or ops.arrays[k].dtype == GPUVEC_BOOL:
            continue  # bools never widen a float dtype: bool with float32 is float32
        if ops.arrays[k].dtype == GPUVEC_FLOAT64:
            any_float64 = any_strong = True
        elif ops.arrays[k].dtype == GPUVEC_FLOAT32:
            any_strong = True
        else:  # ints: NumPy's promotion rules decide
            return _dtypes.result_dtype(*ops.objects[first:])
    return _FLOAT64 if any_float64 or not any_strong else _FLOAT32


cdef object _truth_compute_dtype(Operands ops, object dtype, int first=0,
                                 bint logical=False):
    """The dtype a truth-value op (a comparison, a logical op) or where
    computes in: bool for a `logical` op, which reads each operand's truth,
    and when every operand is a bool (arrays, and numbers that are True or
    False), as in NumPy; else the float dtype of the policy."""
    cdef int k
    if dtype is None and logical:
        return _BOOL
    if dtype is None:
        for k in range(first, ops.count):
            if ops.kinds[k] == _SCALAR:
                if not isinstance(ops.objects[k], (bool, np.bool_)):
                    break
            elif ops.arrays[k].dtype != GPUVEC_BOOL:
                break
        else:
            return _BOOL
    return _compute_dtype(ops, dtype, first)


cdef int _convert_host_inputs(Operands ops, object compute, int first=0,
                              bint keep_bool=True) except -1:
    """Host arrays of dtypes other than float32, float64 and bool (ints,
    float16) become arrays of the compute dtype; NumPy converts them. Bools
    stay as they are (the C++ side converts them as it reads them) when
    `keep_bool`."""
    cdef int k
    for k in range(first, ops.count):
        if ops.kinds[k] == _HOST and ops.arrays[k].dtype not in (GPUVEC_FLOAT32, GPUVEC_FLOAT64) \
                and not (keep_bool and ops.arrays[k].dtype == GPUVEC_BOOL):
            converted = ops.objects[k].astype(compute)
            ops.objects[k] = converted
            _describe_host_array(ops, k, converted)
    return 0


cdef int _check_placement(Operands ops, int first=0) except -1:
    """In device mode every array is device data: host arrays are refused, so
    that nothing is copied across the bus behind the user's back."""
    cdef int k
    if not ops.device_mode:
        return 0
    for k in range(first, ops.count):
        if ops.kinds[k] == _HOST:
            name = ops.names[k]
            raise TypeError(
                f"{name} ({type(ops.objects[k]).__name__}) is in host memory, but the other "
                f"arguments are on the device: copy it there with gpuvec.to_device({name}) first")
    return 0


cdef int _broadcast(Operands ops, int first, int64_t* shape) except -1:
    """The operands' common shape into `shape` (returns its ndim), and each
    operand's descriptor rewritten to that shape with stride 0 where it repeats."""
    cdef int k, d, ndim = 0, off
    cdef int64_t n
    cdef gpuvec_array* a
    for k in range(first, ops.count):
        if ops.kinds[k] != _SCALAR and ops.arrays[k].ndim > ndim:
            ndim = ops.arrays[k].ndim
    for d in range(ndim):
        shape[d] = 1
    for k in range(first, ops.count):
        a = &ops.arrays[k]
        if ops.kinds[k] == _SCALAR:
            continue
        off = ndim - a.ndim
        for d in range(a.ndim):
            n = a.shape[d]
            if n != 1:
                if shape[off + d] == 1:
                    shape[off + d] = n
                elif shape[off + d] != n:
                    _raise_shape_mismatch(ops, first)
    for k in range(first, ops.count):
        _broadcast_to(&ops.arrays[k], ndim, shape)
    return ndim


cdef int _broadcast_to(gpuvec_array* a, int ndim, const int64_t* shape) except -1:
    """Rewrites a descriptor to `shape`, right-aligned, stride 0 where it repeats."""
    cdef int d, off = ndim - a.ndim
    if a.memory == GPUVEC_MEMORY_SCALAR:
        a.ndim = ndim
        for d in range(ndim):
            a.shape[d] = shape[d]
            a.strides[d] = 0
        return 0
    for d in range(a.ndim - 1, -1, -1):
        a.strides[off + d] = 0 if a.shape[d] == 1 else a.strides[d]
        a.shape[off + d] = shape[off + d]
    for d in range(off):
        a.strides[d] = 0
        a.shape[d] = shape[d]
    a.ndim = ndim
    return 0


cdef int _raise_shape_mismatch(Operands ops, int first) except -1:
    # The shapes from the descriptors: an operand's object may be a staged
    # copy (where's condition, uploaded) that has no shape of its own.
    described = " and ".join(
        f"{ops.names[k]} {_operand_shape(ops, k)}" for k in range(first, ops.count))
    raise ValueError(f"shapes do not match: {described} cannot be broadcast together")


cdef tuple _operand_shape(Operands ops, int k):
    """Operand k's shape as given (before broadcasting), from its descriptor."""
    if ops.kinds[k] == _SCALAR:
        return ()
    return _shape_tuple(ops.arrays[k].ndim, ops.arrays[k].shape)


cdef tuple _shape_of(object value):
    return tuple(value.shape)


cdef tuple _shape_tuple(int ndim, const int64_t* shape):
    return tuple([shape[d] for d in range(ndim)])


cdef inline Py_ssize_t _itemsize(gpuvec_dtype dtype) noexcept:
    return 4 if dtype == GPUVEC_FLOAT32 else (1 if dtype == GPUVEC_BOOL else 8)
