# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._operands: what a user passes, described for the C ABI.

Serves every module of the core that calls an op (_results, _copy,
_elementwise, _reduce, _select, _kernels), and gpuvec.device_array and
gpuvec._dtypes above it. It holds

- ArrayFields, the C struct of a DeviceArray's fields (gpuvec.DeviceArray
  derives from it; folded in from what was _array_fields.pxi);
- the dtype policy (result_dtype, check_dtype, as_real_array) and the
  precision state it reads (gpuvec._dtypes documents the policy and
  re-exports these);
- Operands: the operands of one call and their gpuvec_array descriptors.

Every op argument becomes one gpuvec_array descriptor (gpuvec/gpuvec.h):
  - a DeviceArray: its device memory (or, on the host backend, its NumPy
    array), read from its C struct fields (ArrayFields);
  - a NumPy array: its own memory, whatever its strides; float16, float32
    and float64 are read as they are (the C++ side converts them as it
    reads), ints are converted by NumPy first, and so is data in the other
    byte order (native_byte_order: the kernels read native numbers);
  - a Python or NumPy number: a scalar, which has no memory at all;
  - anything else: another library's GPU array (shared, not copied), or
    whatever NumPy makes of it (a list, say).
The descriptors are then broadcast to the op's shape (stride 0 where an
operand is repeated), with the dtype policy and NumPy's error messages.
"""

import numbers
from contextvars import ContextVar

cimport cython
cimport numpy as cnp
from cpython.contextvars cimport get_value
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from gpuvec._core._abi cimport *
from gpuvec._core._dlpack cimport kDLCUDA
from gpuvec._core._launch cimport IN_HOST_MEMORY, NUMPY_DATA, ON_DEVICE, Placement

import numpy as np

cnp.import_array()

__all__ = [
    "ARRAY_DTYPES",
    "ARRAY_DTYPE_NAMES",
    "ArrayFields",
    "MAX_NDIM",
    "SUPPORTED_DTYPES",
    "as_real_array",
    "check_array_dtype",
    "check_dtype",
    "native_byte_order",
    "native_dtype",
    "precision_dtype",
    "pop_precision",
    "push_precision",
    "register_device_array",
    "result_dtype",
    "set_default_precision",
]

MAX_NDIM = GPUVEC_MAX_NDIM
FLOAT16 = np.dtype(np.float16)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
INT64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
COMPLEX64 = np.dtype(np.complex64)
COMPLEX128 = np.dtype(np.complex128)
SUPPORTED_DTYPES = (FLOAT32, FLOAT64)
# Each ABI dtype's NumPy dtype, by its code (gpuvec/gpuvec.h).
_DTYPE_OF_CODE = {
    GPUVEC_FLOAT32: FLOAT32,
    GPUVEC_FLOAT64: FLOAT64,
    GPUVEC_BOOL: BOOL,
    GPUVEC_INT8: np.dtype(np.int8),
    GPUVEC_INT16: np.dtype(np.int16),
    GPUVEC_INT32: np.dtype(np.int32),
    GPUVEC_INT64: INT64,
    GPUVEC_UINT8: np.dtype(np.uint8),
    GPUVEC_UINT16: np.dtype(np.uint16),
    GPUVEC_UINT32: np.dtype(np.uint32),
    GPUVEC_UINT64: np.dtype(np.uint64),
    GPUVEC_FLOAT16: FLOAT16,
    GPUVEC_COMPLEX64: COMPLEX64,
    GPUVEC_COMPLEX128: COMPLEX128,
}
_CODE_OF_DTYPE = {dtype: code for code, dtype in _DTYPE_OF_CODE.items()}
# What a DeviceArray holds: every real dtype, complex64 and complex128. The
# float ops compute in SUPPORTED_DTYPES (float16 in float32, as NumPy's
# float16 loops do: the result, rounded to float16, is NumPy's), converting
# the others; the ops NumPy defines for complex numbers compute in them.
ARRAY_DTYPES = tuple(_DTYPE_OF_CODE.values())
# ... as messages name them.
ARRAY_DTYPE_NAMES = ", ".join(str(dtype) for dtype in ARRAY_DTYPES)


# -- DeviceArray's fields ------------------------------------------------------------------------


cdef class ArrayFields:
    """The data of a DeviceArray: the base class that holds its fields.

    Python code reads and writes the fields as plain attributes (self._shape,
    self._address, ...); the core reads them as C struct members, which
    costs a few nanoseconds where an attribute lookup costs tens. A tiny op
    reads about thirty of them per call, so this matters next to a launch
    of a few microseconds. Not meant to be used alone; see
    :class:`gpuvec.DeviceArray`.
    """


cdef object _DeviceArray = None  # gpuvec.DeviceArray, registered by its module
cdef object _to_device_array = None  # gpuvec.asarray, for other libraries' GPU arrays


def register_device_array(cls, to_device_array):
    """Tells the core which class DeviceArray is (the core makes its results
    as instances of it), and how another library's GPU array becomes one.
    Layers above the core register themselves, so the core imports none of
    them."""
    global _DeviceArray, _to_device_array
    _DeviceArray = cls
    _to_device_array = to_device_array


cdef ArrayFields new_fields():
    """A new, empty gpuvec.DeviceArray, for the caller to fill in."""
    return ArrayFields.__new__(_DeviceArray)


cdef object to_device_array(object value):
    """Another library's GPU array as a DeviceArray (gpuvec.asarray)."""
    return _to_device_array(value)


# -- the precision -------------------------------------------------------------------------------
#
# set_precision changes the default, for every thread; ``with precision(...)``
# overrides it in the current thread (or asyncio task) only, which is what a
# context variable holds. _UNSET: no override. (gpuvec._dtypes has the public
# functions; they keep their state here, where every call reads it.)

cdef object _UNSET = object()
cdef object _default_precision = None
cdef object _scoped_precision = ContextVar("gpuvec_precision", default=_UNSET)


def precision_dtype():
    """The precision in force here (a float dtype), or None for the policy."""
    return precision()


def set_default_precision(dtype):
    """Makes `dtype` (float32, float64 or None) every thread's default
    precision; returns the previous default."""
    global _default_precision
    previous = _default_precision
    _default_precision = dtype
    return previous


def push_precision(dtype):
    """Sets the precision of the current thread (or task); returns the token
    for pop_precision. `dtype` None: the policy, whatever the default."""
    return _scoped_precision.set(dtype)


def pop_precision(token):
    """Restores the precision that push_precision's `token` replaced."""
    _scoped_precision.reset(token)


# -- the dtype policy ----------------------------------------------------------------------------


cpdef object as_real_array(object value, str name):
    """``value`` as a NumPy array of numbers (real or complex: the name is older
    than gpuvec's complex dtypes).

    Raises
    ------
    TypeError
        A masked array (its mask would be dropped), or data that is not real
        numbers; the message names ``name``.
    ValueError
        A ragged nested sequence, as NumPy raises.
    """
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array: gpuvec does not support masks and would drop it; "
            f"pass {name}.filled(fill_value) to compute on every element, or "
            f"{name}.compressed() for the unmasked ones only"
        )
    try:
        array = np.asarray(value)
    except ValueError as exc:  # a ragged list: NumPy's ValueError, naming the argument
        raise ValueError(f"{name} cannot be turned into an array: {exc}") from None
    except TypeError as exc:
        raise TypeError(f"{name} cannot be turned into a numeric array: {exc}") from None
    if array.dtype.kind not in "biufc":
        raise TypeError(
            f"{name} has dtype {array.dtype}, which gpuvec does not support: "
            "gpuvec computes on numbers (bool, int, float16, float32, float64, complex64 "
            "or complex128)"
        )
    return array


cpdef object native_byte_order(object array):
    """``array`` itself, or a copy in the machine's byte order where its dtype
    is byte-swapped (big-endian data on a little-endian machine, say).

    gpuvec's kernels read numbers in the machine's byte order, so every
    NumPy array gpuvec reads passes here first: a byte-swapped one is read
    through a converted copy, with the same values, as NumPy's own ufuncs
    read it. Bools and other 1-byte dtypes have no byte order and are never
    copied.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(3, dtype=">f8")
    >>> y = native_byte_order(x)
    >>> y.dtype == np.float64, np.array_equal(x, y)
    (True, True)
    >>> native_byte_order(y) is y
    True
    """
    if array.dtype.isnative:
        return array
    return array.astype(array.dtype.newbyteorder("="))


cpdef object native_dtype(object dt):
    """``dt`` in the machine's byte order: a ``dtype=`` of ``">f8"`` names the
    same numbers as ``float64``, which is what gpuvec holds and returns."""
    return dt if dt.isnative else dt.newbyteorder("=")


cpdef object check_dtype(object dtype):
    """The ``dtype=`` argument as a NumPy dtype (float32 or float64), or None.

    Either byte order is taken (``">f4"`` is float32): results are always in
    the machine's.

    Examples
    --------
    >>> check_dtype(">f4")
    dtype('float32')
    """
    if dtype is None:
        return None
    try:
        dt = native_dtype(np.dtype(dtype))
    except TypeError:
        raise TypeError(f"dtype must be float32 or float64, got {dtype!r}") from None
    if dt not in SUPPORTED_DTYPES:
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    return dt


cpdef object check_array_dtype(object dtype):
    """The dtype of a new DeviceArray: one of ARRAY_DTYPES, every real dtype,
    complex64 and complex128 (``">f8"`` is float64: device data is in the
    machine's byte order).

    Examples
    --------
    >>> check_array_dtype("bool"), check_array_dtype(np.uint8)
    (dtype('bool'), dtype('uint8'))
    >>> check_array_dtype(np.complex64)
    dtype('complex64')
    >>> check_array_dtype("U3")
    Traceback (most recent call last):
        ...
    TypeError: dtype must be one of float32, float64, bool, int8, int16, int32, int64, uint8, \
uint16, uint32, uint64, float16, complex64, complex128; got <U3
    """
    try:
        dt = native_dtype(np.dtype(dtype))
    except TypeError:
        raise TypeError(f"dtype must be one of {ARRAY_DTYPE_NAMES}; got {dtype!r}") from None
    if dt not in ARRAY_DTYPES:
        raise TypeError(f"dtype must be one of {ARRAY_DTYPE_NAMES}; got {dt}")
    return dt


def result_dtype(*inputs, dtype=None):
    """The dtype an op returns in: the dtype it computes in, or float16,
    which it computes in float32 (as NumPy's float16 loops do) and rounds to.

    Parameters
    ----------
    *inputs : array_like, scalar or numpy.dtype
        The op's inputs (or their dtypes). Python scalars are "weak", as in
        NumPy 2: they do not turn a float32 computation into a float64 one.
    dtype : dtype, optional
        An explicit float32 or float64 result dtype; it wins over the
        precision set with :func:`set_precision` or :func:`precision`.

    Examples
    --------
    >>> import numpy as np
    >>> result_dtype(np.ones(3, np.float32), 2.0)
    dtype('float32')
    >>> result_dtype(np.arange(3))
    dtype('float64')
    >>> result_dtype(np.ones(3), dtype=np.float32)
    dtype('float32')
    >>> result_dtype(np.ones(3, np.float16), 2.0)
    dtype('float16')
    """
    explicit = check_dtype(dtype)
    if explicit is not None:
        return explicit
    kinds = []
    for value in inputs:
        if isinstance(value, (bool, numbers.Integral, float, complex)) and not isinstance(
            value, np.generic
        ):
            kinds.append(value)  # a weak Python scalar
        elif isinstance(value, np.dtype):
            kinds.append(value)
        elif isinstance(value, (np.ndarray, np.generic, ArrayFields)):
            kinds.append(value.dtype)  # a DeviceArray's, without a copy to the host
        else:
            kinds.append(np.asarray(value).dtype)
    common = np.result_type(*kinds)
    if common.kind == "c":
        return _complex_result(common)  # the precision is of float results only
    if common.kind not in "biuf":
        raise TypeError(f"gpuvec computes on numbers; the inputs have dtype {common}")
    chosen = precision()
    if chosen is not None:
        return chosen
    if common.kind in "biu":
        return FLOAT64
    return _float_result(common)


cdef object _complex_result(object common):
    """complex64, or complex128 for NumPy's complex128 and longer complex."""
    return COMPLEX64 if common.itemsize <= 8 else COMPLEX128


cdef bint is_complex_number(object v):
    """A Python complex or a NumPy complex scalar."""
    return type(v) is complex or (isinstance(v, np.generic) and v.dtype.kind == "c")


cdef object _float_result(object common):
    """The result dtype of a float loop: float16 (computed in float32),
    float32 or float64."""
    if common.itemsize <= 2:
        return FLOAT16
    return FLOAT32 if common.itemsize <= 4 else FLOAT64


# -- operands ------------------------------------------------------------------------------------


@cython.freelist(8)  # one per call: reuse the memory rather than allocate it each time
cdef class Operands:
    """The operands of one call: the objects, kept alive while the ABI reads
    them, and their descriptors. Made by each call, described here."""

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


cdef int fill_strides(gpuvec_array* a, int ndim, const cnp.npy_intp* shape,
                      const cnp.npy_intp* strides, Py_ssize_t itemsize) except -1:
    """Shape and element strides of an array whose byte strides are whole elements."""
    cdef int d
    a.ndim = ndim
    for d in range(ndim):
        a.shape[d] = shape[d]
        a.strides[d] = strides[d] // itemsize
    return 0


cdef gpuvec_dtype code_of(object dtype) noexcept:
    """The ABI dtype of a NumPy dtype of ARRAY_DTYPES (float64 for any other)."""
    # NumPy's dtypes are singletons, so identity answers the commonest.
    if dtype is FLOAT32:
        return GPUVEC_FLOAT32
    if dtype is FLOAT64:
        return GPUVEC_FLOAT64
    return _CODE_OF_DTYPE.get(dtype, GPUVEC_FLOAT64)


cdef object dtype_of_code(gpuvec_dtype code):
    """The NumPy dtype of an ABI dtype."""
    return _DTYPE_OF_CODE[code]


cdef int describe_device_array(Operands ops, int k, ArrayFields f) except -1:
    """Operand k is a DeviceArray."""
    cdef gpuvec_array* a = &ops.arrays[k]
    cdef Py_ssize_t itemsize
    cdef int d = 0
    if f._host is not None:
        describe_host_array(ops, k, f._host)
        ops.host_backed = True
    else:
        a.dtype = code_of(f._dtype)
        itemsize = itemsize_of(a.dtype)
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
    ops.kinds[k] = DEVICE_DATA
    ops.device_mode = True
    return 0


cdef int describe_host_array(Operands ops, int k, cnp.ndarray array) except -1:
    """Operand k is a NumPy array of ARRAY_DTYPES, in native byte order, with
    whole-element strides."""
    cdef gpuvec_array* a = &ops.arrays[k]
    cdef int npy_type = cnp.PyArray_TYPE(array)
    a.data = cnp.PyArray_DATA(array)
    a.memory = GPUVEC_MEMORY_HOST
    if npy_type == cnp.NPY_FLOAT64:
        a.dtype = GPUVEC_FLOAT64
    elif npy_type == cnp.NPY_FLOAT32:
        a.dtype = GPUVEC_FLOAT32
    elif npy_type == cnp.NPY_BOOL:
        a.dtype = GPUVEC_BOOL
    else:
        a.dtype = code_of(array.dtype)
    if cnp.PyArray_NDIM(array) > GPUVEC_MAX_NDIM:
        raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not supported: "
                         f"{ops.names[k]} has {cnp.PyArray_NDIM(array)}")
    fill_strides(a, cnp.PyArray_NDIM(array), cnp.PyArray_DIMS(array),
                 cnp.PyArray_STRIDES(array), cnp.PyArray_ITEMSIZE(array))
    if cnp.PyArray_SIZE(array) == 0:
        a.data = NULL
    ops.kinds[k] = HOST_DATA
    return 0


cdef bint whole_elements(cnp.ndarray array):
    """True when every byte stride is a whole number of elements (and aligned)."""
    cdef int d
    cdef Py_ssize_t itemsize = cnp.PyArray_ITEMSIZE(array)
    if not cnp.PyArray_ISALIGNED(array):
        return False
    for d in range(cnp.PyArray_NDIM(array)):
        if cnp.PyArray_STRIDES(array)[d] % itemsize:
            return False
    return True


cdef int add(Operands ops, object value, str name) except -1:
    """Describes `value` as the next operand. Non-float host data is kept as
    it is for now: convert_host_inputs converts it once the dtype is known."""
    cdef int k = ops.count
    cdef gpuvec_array* a = &ops.arrays[k]
    memset(a, 0, sizeof(gpuvec_array))
    ops.names.append(name)
    ops.weak[k] = False
    ops.count += 1
    if type(value) is _DeviceArray:
        ops.objects.append(value)
        return describe_device_array(ops, k, <ArrayFields>value)
    if type(value) is np.ndarray:  # the commonest host operand, read through NumPy's C API
        return _add_host_array(ops, k, <cnp.ndarray>value, name)
    if is_python_number(value):
        ops.objects.append(value)
        ops.weak[k] = True
        ops.kinds[k] = SCALAR
        a.memory = GPUVEC_MEMORY_SCALAR
        a.scalar = value
        a.dtype = GPUVEC_FLOAT64
        return 0
    if is_complex_number(value):
        # Its value is no double: complex_scalars (_copy) gives it memory once
        # the compute dtype is known. Until then it is a scalar of its dtype,
        # a Python complex a weak one (NEP 50: complex64 data + 1j is complex64).
        ops.objects.append(value)
        ops.weak[k] = type(value) is complex
        ops.kinds[k] = SCALAR
        a.memory = GPUVEC_MEMORY_SCALAR
        a.scalar = value.real
        a.dtype = GPUVEC_COMPLEX128 if type(value) is complex else code_of(value.dtype)
        return 0
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        ops.objects.append(value)
        ops.kinds[k] = SCALAR
        a.memory = GPUVEC_MEMORY_SCALAR
        if value.dtype.kind in "iu":  # exact, in its own dtype
            a.integer = (int(value) + 2**63) % 2**64 - 2**63
            a.dtype = code_of(value.dtype)
            return 0
        a.scalar = float(value)
        if value.dtype.kind == "b":
            a.dtype = GPUVEC_BOOL
        else:  # float16, float32 or float64 (a longer float as float64)
            a.dtype = code_of(value.dtype)
        return 0
    if isinstance(value, ArrayFields):  # a subclass
        ops.objects.append(value)
        return describe_device_array(ops, k, <ArrayFields>value)
    if not isinstance(value, np.ndarray):
        if _to_device_array is not None and on_gpu(value):
            value = _to_device_array(value)
            ops.objects.append(value)
            return describe_device_array(ops, k, <ArrayFields>value)
        value = as_real_array(value, name)
    elif not isinstance(value, np.matrix):
        value = as_real_array(value, name)
    return _add_host_array(ops, k, <cnp.ndarray>value, name)


cdef int _add_host_array(Operands ops, int k, cnp.ndarray array, str name) except -1:
    """Operand k is a NumPy array (of type ndarray or matrix). Float16,
    float32, float64 and bool data in native byte order is read where it is;
    ints are kept for NumPy to convert once the compute dtype is known."""
    if not (cnp.PyArray_ISBOOL(array) or cnp.PyArray_ISINTEGER(array)
            or cnp.PyArray_ISFLOAT(array) or cnp.PyArray_ISCOMPLEX(array)):
        as_real_array(array, name)  # the TypeError naming the argument
    cdef int npy_type = cnp.PyArray_TYPE(array)
    cdef bint direct = (npy_type == cnp.NPY_FLOAT32 or npy_type == cnp.NPY_FLOAT64
                        or npy_type == cnp.NPY_BOOL or npy_type == cnp.NPY_FLOAT16
                        or npy_type == cnp.NPY_COMPLEX64 or npy_type == cnp.NPY_COMPLEX128)
    # The type number ignores byte order: '>f8' is NPY_FLOAT64 too, and its
    # bytes read as native numbers are garbage. (The others' astype converts.)
    if direct and not cnp.PyArray_ISNOTSWAPPED(array):
        array = native_byte_order(array)
    if direct and not whole_elements(array):
        array = np.array(array, order="C")  # rare: a view with byte strides between elements
    ops.objects.append(array)
    if direct:  # read as it is: the C++ side converts a bool or float16 as it reads it
        return describe_host_array(ops, k, array)
    # Ints (and long doubles), converted by NumPy once the dtype is known.
    ops.kinds[k] = HOST_DATA
    ops.arrays[k].memory = GPUVEC_MEMORY_HOST
    ops.arrays[k].dtype = GPUVEC_INT64
    return 0


cpdef bint on_gpu(object value) except -1:
    """True for another library's GPU array (CUDA array interface or CUDA DLPack)."""
    if hasattr(value, "__cuda_array_interface__"):
        try:
            value.__cuda_array_interface__  # noqa: B018 - PyTorch raises for CPU tensors
        except (AttributeError, RuntimeError, TypeError):
            return False
        return True
    if hasattr(value, "__dlpack_device__"):
        return value.__dlpack_device__()[0] == kDLCUDA
    return False


cdef object precision():
    """The dtype set with set_precision or precision(), or None."""
    scoped = get_value(_scoped_precision, _UNSET)
    return _default_precision if scoped is _UNSET else scoped


cdef object compute_dtype(Operands ops, object dtype, int first=0, object ufunc=None,
                          str kinds=None):
    """The dtype the op computes in, or FLOAT16: computed in float32, the
    result rounded to float16 (the caller maps it: as_computed).

    Float32 and float64 operands (with bools and Python numbers beside them)
    are decided here, in C: the policy (result_dtype). An op of the table
    passes its NumPy ufunc and its kinds column: any other operands (ints,
    float16, bools alone, Python numbers alone) go to loop_dtype, NumPy's own
    resolution. Without `kinds` (the reductions), ints and float16 take
    result_dtype."""
    cdef int k
    cdef bint any_float64 = False, any_strong = False
    if dtype is not None:
        return check_dtype(dtype)
    for k in range(first, ops.count):
        if ops.arrays[k].dtype == GPUVEC_COMPLEX64 or ops.arrays[k].dtype == GPUVEC_COMPLEX128:
            if kinds is None:  # complex operands: NumPy's promotion (a weak 1j too)
                return result_dtype(*ops.objects[first:])
            return loop_dtype(ufunc, kinds, ops.objects[first:])
        if ops.weak[k] or ops.arrays[k].dtype == GPUVEC_BOOL:
            continue  # bools never widen a float dtype: bool with float32 is float32
        if ops.arrays[k].dtype == GPUVEC_FLOAT64:
            any_float64 = any_strong = True
        elif ops.arrays[k].dtype == GPUVEC_FLOAT32:
            any_strong = True
        elif kinds is None:  # ints: NumPy's promotion rules decide
            return result_dtype(*ops.objects[first:])
        else:
            return loop_dtype(ufunc, kinds, ops.objects[first:])
    if kinds is not None and (not any_strong or "f" not in kinds):
        return loop_dtype(ufunc, kinds, ops.objects[first:])  # or NumPy's TypeError
    chosen = precision()
    if chosen is not None:
        return chosen
    return FLOAT64 if any_float64 or not any_strong else FLOAT32


def loop_dtype(ufunc, str kinds, values, bint truth=False):
    """The dtype an op of the table computes in, as NumPy's ufunc resolves its
    loop for these values (NEP 50: Python numbers are weak), mapped into the
    dtypes the op has kernels of (its kinds column, op_table.h).

    An integer or bool loop that the op has no kernel of computes in the
    float dtype NumPy's float-only ufuncs take for it. A float16 loop gives
    FLOAT16: the op computes in float32 and its result is rounded to
    float16, as NumPy computes its float16 loops (as_computed maps it). A
    float result follows the precision. An op without a ufunc (`ufunc`
    None) takes ``numpy.result_type``.

    Raises
    ------
    TypeError
        NumPy has no loop for these dtypes (``~`` of a float, ``-`` of bools).
    OverflowError
        A Python int out of the integer dtype's range, as NumPy raises; for
        a comparison (`truth`) the dtype widens to hold it instead, as
        NumPy 2 compares such a number.

    Examples
    --------
    >>> import numpy as np
    >>> loop_dtype(np.add, "fub", (np.arange(3, dtype=np.uint8), 7))
    dtype('uint8')
    >>> loop_dtype(np.sqrt, "f", (np.arange(3, dtype=np.int16),))
    dtype('float32')
    >>> loop_dtype(np.sqrt, "f", (np.arange(3, dtype=np.int8),))
    dtype('float16')
    """
    signature = []
    for value in values:
        if type(value) is int:
            signature.append(int)  # weak
        elif type(value) is float:
            signature.append(float)
        elif type(value) is complex:
            signature.append(complex)
        elif type(value) is bool:
            signature.append(BOOL)
        elif isinstance(value, (np.ndarray, np.generic, ArrayFields)):
            signature.append(value.dtype)
        else:
            signature.append(np.asarray(value).dtype)
    key = (ufunc, kinds, tuple(signature))
    common = _loops.get(key)
    if common is None:
        common = _kernel_loop(ufunc, kinds, values, signature)
        _loops[key] = common
    if common.kind == "f":
        chosen = precision()
        if chosen is not None:
            return chosen
        return _float_result(common)
    if common.kind == "c":
        if "c" not in kinds:
            name = "this op" if ufunc is None else ufunc.__name__
            raise TypeError(f"gpuvec does not compute {name} on complex numbers yet "
                            f"(the inputs resolve to {common})")
        return _complex_result(common)
    if common.kind not in "biu":
        raise TypeError(f"gpuvec computes on numbers; the inputs have dtype {common}")
    if common.kind in "iu":
        limits = _limits.get(common)
        if limits is None:
            limits = _limits[common] = np.iinfo(common)
        for value in values:
            if type(value) is int and not limits.min <= value <= limits.max:
                if not truth:
                    raise OverflowError(f"Python integer {value} out of bounds for {common}")
                common = np.result_type(common, np.min_scalar_type(value))
                if common.kind == "f":
                    return FLOAT64
    return common


# NumPy's loop for each (ufunc, kinds, operand dtypes), Python numbers as
# their weak types: resolving it takes microseconds, and a notebook calls one
# op on the same dtypes over and over. Few entries: one per combination seen.
cdef dict _loops = {}
cdef dict _limits = {}  # np.iinfo of each integer dtype


cdef object _kernel_loop(object ufunc, str kinds, object values, list signature):
    """NumPy's loop dtype for these operands, moved to a float loop where the
    op has no kernel of NumPy's integer or bool loop (its kinds column)."""
    if ufunc is not None:
        try:
            loop = ufunc.resolve_dtypes(tuple(signature) + (None,) * ufunc.nout)
        except TypeError as exc:  # NumPy's UFuncTypeError, also a TypeError
            raise TypeError(str(exc)) from None
        inputs = loop[:ufunc.nin]
        common = inputs[0] if all(d == inputs[0] for d in inputs) else np.result_type(*inputs)
    else:
        common = np.result_type(*[v if type(v) in (int, float) else d
                                  for v, d in zip(values, signature)])
    if common.kind in "iu" and "i" not in kinds and "u" not in kinds \
            or common.kind == "b" and "b" not in kinds:
        common = np.promote_types(common, np.float16)  # a float-only op's loop
    return common


cdef object computed_in(object dtype):
    """The dtype an op computes in for the result dtype that compute_dtype,
    truth_compute_dtype or loop_dtype chose: float32 for float16 (NumPy's
    float16 loops compute in float32 too), else that dtype itself."""
    return FLOAT32 if dtype == FLOAT16 else dtype


cdef object truth_compute_dtype(Operands ops, object dtype, int first=0,
                                bint logical=False, object ufunc=None, str kinds=None):
    """The dtype a truth-value op (a comparison, a logical op) or where
    computes in: bool for a `logical` op, which reads each operand's truth,
    and when every operand is a bool (arrays, and numbers that are True or
    False), as in NumPy; else the float dtype of the policy."""
    cdef int k
    if dtype is None and logical:
        return BOOL
    if dtype is None:
        for k in range(first, ops.count):
            if ops.kinds[k] == SCALAR:
                if not isinstance(ops.objects[k], (bool, np.bool_)):
                    break
            elif ops.arrays[k].dtype != GPUVEC_BOOL:
                break
        else:
            return BOOL
        for k in range(first, ops.count):  # ints: NumPy's loop, which compares exactly
            if not ops.weak[k] and ops.arrays[k].dtype not in (
                    GPUVEC_FLOAT32, GPUVEC_FLOAT64, GPUVEC_BOOL) and kinds is not None:
                return loop_dtype(ufunc, kinds, ops.objects[first:], True)
    return compute_dtype(ops, dtype, first)


cdef int convert_host_inputs(Operands ops, object compute, int first=0,
                             bint keep_bool=True) except -1:
    """Host arrays of dtypes other than float16, float32, float64 and bool
    (ints) become arrays of the compute dtype; NumPy converts them (an array
    of that dtype already is read where it is). Floats are converted by the
    C++ side as it reads them, and so are bools when `keep_bool`. For an
    integer compute dtype, integer scalars are given as exact integers."""
    cdef int k
    cdef gpuvec_array* a
    integer = compute.kind in "iu"
    for k in range(first, ops.count):
        a = &ops.arrays[k]
        if ops.kinds[k] == HOST_DATA \
                and a.dtype not in (GPUVEC_FLOAT32, GPUVEC_FLOAT64, GPUVEC_FLOAT16,
                                    GPUVEC_COMPLEX64, GPUVEC_COMPLEX128) \
                and not (keep_bool and a.dtype == GPUVEC_BOOL):
            converted = native_byte_order(ops.objects[k]).astype(compute, copy=False)
            if not whole_elements(converted):
                converted = np.array(converted, order="C")
            ops.objects[k] = converted
            describe_host_array(ops, k, converted)
        elif integer and ops.kinds[k] == SCALAR and a.dtype != GPUVEC_BOOL:
            value = ops.objects[k]
            if type(value) is int or (isinstance(value, np.generic) and value.dtype.kind in "iu"):
                # the exact value (its bits for a uint64 of 2^63 up), in the compute dtype
                a.integer = (int(value) + 2**63) % 2**64 - 2**63
                a.dtype = code_of(compute)
    return 0


cdef int check_placement(Operands ops, int first=0) except -1:
    """In device mode every array is device data: host arrays are refused, so
    that nothing is copied across the bus behind the user's back."""
    cdef int k
    if not ops.device_mode:
        return 0
    for k in range(first, ops.count):
        if ops.kinds[k] == HOST_DATA:
            name = ops.names[k]
            raise TypeError(
                f"{name} ({type(ops.objects[k]).__name__}) is in host memory, but the other "
                f"arguments are on the device: copy it there with gpuvec.to_device({name}) first")
    return 0


cdef int broadcast(Operands ops, int first, int64_t* shape) except -1:
    """The operands' common shape into `shape` (returns its ndim), and each
    operand's descriptor rewritten to that shape with stride 0 where it repeats."""
    cdef int k, d, ndim = 0, off
    cdef int64_t n
    cdef gpuvec_array* a
    for k in range(first, ops.count):
        if ops.kinds[k] != SCALAR and ops.arrays[k].ndim > ndim:
            ndim = ops.arrays[k].ndim
    for d in range(ndim):
        shape[d] = 1
    for k in range(first, ops.count):
        a = &ops.arrays[k]
        if ops.kinds[k] == SCALAR:
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
        broadcast_to(&ops.arrays[k], ndim, shape)
    return ndim


cdef int broadcast_to(gpuvec_array* a, int ndim, const int64_t* shape) except -1:
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
    if ops.kinds[k] == SCALAR:
        return ()
    return shape_tuple(ops.arrays[k].ndim, ops.arrays[k].shape)


cdef tuple shape_of(object value):
    return tuple(value.shape)


cdef tuple shape_tuple(int ndim, const int64_t* shape):
    return tuple([shape[d] for d in range(ndim)])


cdef Placement placement(Operands ops) noexcept:
    """Where the call's data is (_launch.backend_for turns it into the backend)."""
    if not ops.device_mode:
        return NUMPY_DATA
    return IN_HOST_MEMORY if ops.host_backed else ON_DEVICE


cdef int describe_result(gpuvec_array* a, object result, int ndim, const int64_t* shape,
                         gpuvec_dtype dtype) except -1:
    """The descriptor of a result array (a NumPy array or a DeviceArray) of `shape`."""
    cdef ArrayFields f
    cdef Py_ssize_t size = itemsize_of(dtype)
    cdef int d = 0
    memset(a, 0, sizeof(gpuvec_array))
    a.dtype = dtype
    a.ndim = ndim
    for d in range(ndim):
        a.shape[d] = shape[d]
    if isinstance(result, ArrayFields):
        f = <ArrayFields>result
        if f._host is not None:
            result = f._host
        else:
            a.memory = GPUVEC_MEMORY_DEVICE
            a.data = <void*>f._address
            d = 0
            for s in f._strides:
                a.strides[d] = s // size
                d += 1
            return 0
    a.memory = GPUVEC_MEMORY_HOST
    a.data = cnp.PyArray_DATA(<cnp.ndarray>result)
    for d in range(ndim):
        a.strides[d] = cnp.PyArray_STRIDES(<cnp.ndarray>result)[d] // size
    if cnp.PyArray_SIZE(<cnp.ndarray>result) == 0:
        a.data = NULL
    return 0
