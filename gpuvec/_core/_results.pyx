# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._results: the scaffold of a call, and the arrays it makes.

Serves the modules of the core that run ops (_copy, _elementwise, _reduce,
_select, _kernels) and gpuvec's creation functions (new_array). A call
describes its operands (_operands), decides its dtype and shape, and then
hands the rest to run_call: the result (out= or a new array, on the data's
device or in NumPy), its descriptor, the device made current and restored,
the one ABI call without the GIL, and the note of which stream used which
memory. The checks of a user's out= and the new arrays themselves are here
too.
"""

cimport numpy as cnp
from libc.stdint cimport int64_t, uintptr_t
from libc.string cimport memset

from gpuvec._core._abi cimport *
from gpuvec._core._launch cimport active_backend, current_device, make_current, restore_device
from gpuvec._core._memory cimport DeviceBuffer, ResultSlot, count_transfer, download
from gpuvec._core._operands cimport *
from gpuvec._core._streams cimport resolve_stream, stream_handle

import numpy as np

from gpuvec._core._abi import OutOfMemoryError

cnp.import_array()

__all__ = ["new_array"]


# -- new arrays ----------------------------------------------------------------------------------


cdef tuple c_strides_of(tuple shape, Py_ssize_t itemsize):
    cdef list strides = []
    cdef Py_ssize_t step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    strides.reverse()
    return tuple(strides)


cdef object new_device_array(tuple shape, object dtype, int device, object stream,
                             bint host_backed, bint result_slot=False, tuple strides=None):
    """A new C-contiguous DeviceArray. `result_slot`: a 0-d reduction result,
    which the GPU writes straight into mapped host memory. `strides`: its
    C-order byte strides, when the caller has them at hand."""
    cdef ArrayFields r = new_fields()
    cdef Py_ssize_t size = 1
    cdef uintptr_t handle = stream_handle(stream)
    for n in shape:
        size *= n
    if host_backed:
        try:
            r._host = np.empty(shape, dtype)
        except MemoryError:
            raise OutOfMemoryError(f"out of host memory allocating {size * dtype.itemsize} "
                                   f"bytes") from None
        r._owner = None
        r._address = 0
        r._device = 0
    elif result_slot:
        slot = ResultSlot(handle, stream)
        r._host = None
        r._owner = slot
        r._address = <uintptr_t>(<ResultSlot>slot).ptr
        r._device = device
    else:
        buffer = DeviceBuffer(size * dtype.itemsize, handle, stream, device)
        r._host = None
        r._owner = buffer
        r._address = <uintptr_t>(<DeviceBuffer>buffer).ptr
        r._device = device
    r._shape = shape
    r._strides = strides if strides is not None else c_strides_of(shape, dtype.itemsize)
    r._dtype = dtype
    r._stream = stream
    r._readonly = False
    r._contiguous = True
    r._size = size
    return r


cdef object host_device_array(cnp.ndarray array):
    """A host-backend DeviceArray holding `array` (not copied)."""
    cdef ArrayFields r = new_fields()
    r._host = array
    r._owner = None
    r._address = 0
    r._shape = (<object>array).shape
    r._strides = (<object>array).strides
    r._dtype = <object>cnp.PyArray_DESCR(array)
    r._device = 0
    r._stream = None
    r._readonly = not cnp.PyArray_ISWRITEABLE(array)
    r._contiguous = cnp.PyArray_IS_C_CONTIGUOUS(array)
    r._size = cnp.PyArray_SIZE(array)
    return r


cdef object device_view(ArrayFields base, tuple shape, Py_ssize_t offset):
    """A C-contiguous view of `shape` into base's device memory, `offset`
    bytes on."""
    cdef ArrayFields r = new_fields()
    cdef Py_ssize_t size = 1
    for n in shape:
        size *= n
    r._host = None
    r._owner = base
    r._address = base._address + offset
    r._shape = shape
    r._strides = c_strides_of(shape, base._dtype.itemsize)
    r._dtype = base._dtype
    r._device = base._device
    r._stream = base._stream
    r._readonly = base._readonly
    r._contiguous = True
    r._size = size
    return r


def new_array(shape, dtype, stream=None, device=None):
    """A new C-contiguous DeviceArray on the active backend, on `device` (by
    default the current one)."""
    stream = resolve_stream(stream)
    if active_backend() == GPUVEC_BACKEND_HOST:
        return new_device_array(shape, dtype, 0, stream, True)
    return new_device_array(shape, dtype, current_device() if device is None else device,
                            stream, False)

# -- out= --------------------------------------------------------------------------------------


cdef int check_out(object out, Operands ops, int ndim, const int64_t* shape,
                   object result) except -1:
    """A user's out= must be writable, of the result's shape, and on the same
    side (host or device) as the inputs. Returns 1 when its dtype is another
    one that NumPy's same_kind casting allows (the other float dtype, a float
    for a bool result; for a NumPy out also float16, or an int for a bool
    result): the result is then cast into it (``d32 += d64`` stays float32).
    Whether that cast is allowed was checked before the shapes were
    broadcast, as NumPy checks it (check_out_dtype)."""
    cdef ArrayFields f
    cdef cnp.ndarray array
    cdef int d
    if isinstance(out, ArrayFields):
        f = <ArrayFields>out
        if not ops.device_mode:
            raise TypeError("out is a DeviceArray, but the inputs are in host memory: copy "
                            "them with gpuvec.to_device first, or pass a NumPy out")
        expected = shape_tuple(ndim, shape)
        if f._shape != expected:
            raise ValueError(f"out has shape {f._shape}, but the result has shape {expected}")
        if f._readonly:
            raise ValueError("out is read-only")
        if f._host is None:
            if ops.device >= 0 and f._device != ops.device:
                raise ValueError(f"the arrays are on different devices: "
                                 f"{sorted({ops.device, f._device})}")
            ops.device = f._device
        return f._dtype is not result
    if ops.device_mode:
        raise TypeError(f"out must be a DeviceArray when the inputs are on the device, "
                        f"got {type(out).__name__}")
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    # Read through NumPy's C API: a tiny call's out costs no Python attribute.
    array = <cnp.ndarray>out
    same_shape = cnp.PyArray_NDIM(array) == ndim
    for d in range(ndim if same_shape else 0):
        same_shape = same_shape and cnp.PyArray_DIMS(array)[d] == shape[d]
    if not same_shape:
        raise ValueError(f"out has shape {out.shape}, but the result has shape "
                         f"{shape_tuple(ndim, shape)}")
    if <object>cnp.PyArray_DESCR(array) is not result and out.dtype != result:
        return 1  # NumPy copies the result into it
    if not cnp.PyArray_ISWRITEABLE(array):
        raise ValueError("out is read-only")
    if not whole_elements(array):
        raise ValueError("out has byte strides that are not whole elements")
    return 0


cdef int broadcast_to_out(Operands ops, object out, int ndim, int64_t* shape) except -1:
    """The result's ndim and `shape` once broadcast to out's, as NumPy
    broadcasts the inputs to a larger out (np.add(row, 1.0, out=matrix) fills
    every row); the operands' descriptors are rewritten to it. An out the
    result does not broadcast to leaves both as they are, for _check_out's
    ValueError."""
    cdef int d, k, off, out_ndim
    cdef int64_t out_shape[GPUVEC_MAX_NDIM]
    if type(out) is np.ndarray:  # read through NumPy's C API, as in _check_out
        out_ndim = cnp.PyArray_NDIM(<cnp.ndarray>out)
        if out_ndim > GPUVEC_MAX_NDIM:
            return ndim
        for d in range(out_ndim):
            out_shape[d] = cnp.PyArray_DIMS(<cnp.ndarray>out)[d]
    elif isinstance(out, (np.ndarray, ArrayFields)):
        extents = tuple(out.shape)
        out_ndim = len(extents)
        if out_ndim > GPUVEC_MAX_NDIM:
            return ndim
        for d in range(out_ndim):
            out_shape[d] = extents[d]
    else:
        return ndim
    off = out_ndim - ndim
    if off < 0:
        return ndim
    cdef bint same = off == 0
    for d in range(ndim):
        if shape[d] != 1 and shape[d] != out_shape[off + d]:
            return ndim
        same = same and shape[d] == out_shape[d]
    if same:  # the result's own shape: nothing to broadcast
        return ndim
    for d in range(out_ndim):
        shape[d] = out_shape[d]
    for k in range(ops.count):
        broadcast_to(&ops.arrays[k], out_ndim, shape)
    return out_ndim


cdef int check_out_dtype(object out, object result) except -1:
    """NumPy's same_kind rule for out's dtype, checked before the shapes are
    (np.multiply(a, b, out=bool_out) is a TypeError whatever the shapes)."""
    if isinstance(out, ArrayFields):
        if (<ArrayFields>out)._dtype is not result:
            _check_out_cast(result, (<ArrayFields>out)._dtype)
    elif isinstance(out, np.ndarray) and out.dtype != result:
        _check_out_cast(result, out.dtype)
    return 0


cdef int _check_out_cast(object result, object out_dtype) except -1:
    """NumPy's same_kind rule for an out of another dtype: a float result
    does not go into a bool out (NumPy's UFuncTypeError, a TypeError)."""
    if not np.can_cast(result, out_dtype, casting="same_kind"):
        raise TypeError(f"cannot cast the result from dtype('{result}') to out's "
                        f"dtype('{out_dtype}') with casting rule 'same_kind'")
    return 0


# -- streams and counts --------------------------------------------------------------------------


cdef int mark_stream_use(Operands ops, object result, object stream) except -1:
    """mark_used for an op's device operands and its result."""
    cdef int k
    if stream is not None:
        mark_used(stream, [ops.objects[k] for k in range(ops.count) if ops.kinds[k] == DEVICE_DATA]
                  + [result])
    return 0


cdef int mark_used(object stream, arrays) except -1:
    """Tells the memory that gpuvec allocated for `arrays` that a call on
    `stream` (a gpuvec.Stream, or None: the default stream) read or wrote
    it, so that its free waits for the call (DeviceBuffer.note_use); other
    objects are skipped."""
    cdef DeviceBuffer buffer
    if stream is None:
        return 0
    for array in arrays:
        if isinstance(array, ArrayFields):
            buffer = buffer_of(array)
            if buffer is not None:
                # the Stream keeps its stream alive: gpuvec's own, or another library's
                buffer.note_use(stream.handle, stream)
    return 0


cdef object buffer_of(object array):
    """The DeviceBuffer that owns a DeviceArray's memory, if gpuvec allocated it."""
    owner = (<ArrayFields>array)._owner
    while isinstance(owner, ArrayFields):
        owner = (<ArrayFields>owner)._owner
    return owner if type(owner) is DeviceBuffer else None


cdef int count_staged(Operands ops, int first, Py_ssize_t size, gpuvec_dtype compute,
                      Py_ssize_t out_bytes) except -1:
    """Counts the bytes a staged call moves: each host input in the compute
    dtype (the gather converts it before the copy), and the result back."""
    cdef int k
    cdef size_t to_device = 0
    cdef gpuvec_dtype dtype
    for k in range(first, ops.count):
        if ops.kinds[k] == HOST_DATA:
            # A bool condition crosses as bytes; any other input in the compute dtype.
            dtype = ops.arrays[k].dtype
            to_device += size * itemsize_of(dtype if dtype == GPUVEC_BOOL else compute)
    count_transfer(to_device, out_bytes)
    return 0

cdef object new_result(Operands ops, int ndim, const int64_t* shape, object dtype,
                       object stream):
    """The result of an elementwise op on device data. An operand that is
    C-contiguous, of the result's shape and dtype lends its shape and strides
    tuples (the usual case: no tuple is built)."""
    cdef int k
    cdef ArrayFields f
    for k in range(ops.count):
        if ops.kinds[k] == DEVICE_DATA and isinstance(ops.objects[k], ArrayFields):
            f = <ArrayFields>ops.objects[k]
            if (f._contiguous and f._dtype is dtype and len(f._shape) == ndim
                    and _same_extents(ops, k, ndim, shape)):
                return new_device_array(f._shape, dtype, ops.device, stream,
                                        ops.host_backed, False, f._strides)
    return new_device_array(shape_tuple(ndim, shape), dtype, ops.device, stream,
                            ops.host_backed)


cdef bint _same_extents(Operands ops, int k, int ndim, const int64_t* shape) except -1:
    """Operand k had the result's shape before broadcasting (no stride 0 added)."""
    cdef int d
    cdef ArrayFields f = <ArrayFields>ops.objects[k]
    for d in range(ndim):
        if <int64_t>f._shape[d] != shape[d]:
            return False
    return True


# -- the scaffold of a call ----------------------------------------------------------------------


cdef object run_call(Operands ops, object out, int ndim, const int64_t* shape,
                     object result_dtype, gpuvec_dtype result_code, object stream,
                     gpuvec_launch* launch, AbiCall call, void* context, int form,
                     tuple result_shape=None):
    """What every call that makes an array does around its ABI call.

    The result, described at `shape`, is `out` when given, else a new
    array: on device data (ops.device_mode) a DeviceArray on the data's
    device (of `result_shape` where that is given: the same elements in
    another shape), made current for the call and restored after it, whose
    stream use is noted; otherwise a NumPy array. `form` is a set of
    ResultForm bits. call(context, result, ops.arrays, ops.count, launch)
    runs once, without the GIL, unless the result is empty.
    """
    cdef gpuvec_array result_desc
    cdef gpuvec_status status
    cdef int k, previous
    cdef Py_ssize_t size = 1
    for k in range(ndim):
        size *= shape[k]
    if ops.device_mode and form & HOST_VALUES:
        return _run_into_host(ops, ndim, shape, result_code, stream, launch, call, context,
                              size)
    if ops.device_mode:
        if ops.device < 0 and not ops.host_backed:
            ops.device = current_device()
        previous = make_current(ops.device if not ops.host_backed else -1)
        try:
            if out is not None:
                result = out
            elif form & LIKE_OPERANDS:
                result = new_result(ops, ndim, shape, result_dtype, stream)
            else:
                result = new_device_array(
                    shape_tuple(ndim, shape) if result_shape is None else result_shape,
                    result_dtype, ops.device, stream, ops.host_backed,
                    ndim == 0 and form & RESULT_SLOT and not ops.host_backed)
            if size:
                if out is not None:
                    describe_result(&result_desc, result, ndim, shape, result_code)
                else:
                    _describe_new(&result_desc, <ArrayFields>result, result_code, ndim, shape)
                with nogil:
                    status = call(context, &result_desc, ops.arrays, ops.count, launch)
                check_call(status, launch)
                mark_stream_use(ops, result, stream)
                (<ArrayFields>result)._stream = stream  # the stream that last wrote it
        finally:
            restore_device(previous)
        return result
    result = out
    if out is None:
        result = cnp.PyArray_EMPTY(ndim, <cnp.npy_intp*>shape, npy_type(result_code),
                                   form & LIKE_OPERANDS and _fortran_result(ops, ndim, shape))
    if size:
        describe_result(&result_desc, result, ndim, shape, result_code)
        with nogil:
            status = call(context, &result_desc, ops.arrays, ops.count, launch)
        check_call(status, launch)
    if out is None and ndim == 0 and form & NUMPY_SCALAR:
        return result[()]
    return result


cdef int check_call(gpuvec_status status, const gpuvec_launch* launch) except -1:
    """check(status) for a call on launch's backend: a fault with a CUDA name on
    the host backend is its emulation's (a user's kernel), which breaks no
    CUDA context."""
    if status != GPUVEC_SUCCESS:
        raise error_from_status(status, launch.backend == GPUVEC_BACKEND_HOST)
    return 0


cdef object _run_into_host(Operands ops, int ndim, const int64_t* shape,
                           gpuvec_dtype result_code, object stream, gpuvec_launch* launch,
                           AbiCall call, void* context, Py_ssize_t size):
    """run_call's HOST_VALUES on device data: a new NumPy result, which a call
    on the device fills through device memory of its own."""
    cdef gpuvec_array result_desc
    cdef gpuvec_status status
    cdef int previous
    cdef DeviceBuffer target
    cdef Py_ssize_t nbytes = size * itemsize_of(result_code)
    result = cnp.PyArray_EMPTY(ndim, <cnp.npy_intp*>shape, npy_type(result_code), 0)
    if not size:
        return result
    if ops.host_backed:  # host memory already: written where it is
        describe_result(&result_desc, result, ndim, shape, result_code)
        with nogil:
            status = call(context, &result_desc, ops.arrays, ops.count, launch)
        check_call(status, launch)
        return result
    previous = make_current(ops.device)
    try:
        target = DeviceBuffer(nbytes, stream_handle(stream), stream)
        describe_fresh(&result_desc, <uintptr_t>target.ptr, result_code, ndim, shape)
        with nogil:
            status = call(context, &result_desc, ops.arrays, ops.count, launch)
        check_call(status, launch)
        download(cnp.PyArray_DATA(<cnp.ndarray>result), <uintptr_t>target.ptr, nbytes,
                 stream_handle(stream))
    finally:
        restore_device(previous)
    return result


cdef int _describe_new(gpuvec_array* a, ArrayFields result, gpuvec_dtype dtype, int ndim,
                       const int64_t* shape) except -1:
    """The descriptor of a new, C-ordered result, at `shape` (its elements in
    order, whatever the shape it is returned in)."""
    if result._host is None:
        return describe_fresh(a, result._address, dtype, ndim, shape)
    describe_fresh(a, <uintptr_t>cnp.PyArray_DATA(<cnp.ndarray>result._host), dtype, ndim, shape)
    a.memory = GPUVEC_MEMORY_HOST
    return 0


cdef bint _fortran_result(Operands ops, int ndim, const int64_t* shape) noexcept:
    """Whether a new NumPy result is laid out in Fortran order, as NumPy's
    order='K' does: when the array operands walk their memory in Fortran
    order (strides growing with the dimension) and none in C order. Writing
    in the inputs' order keeps every walk sequential."""
    cdef int k, order
    cdef bint fortran = False
    if ndim < 2:
        return False
    for k in range(ops.count):
        if ops.kinds[k] == SCALAR:
            continue
        order = _stride_order(&ops.arrays[k], ndim, shape)
        if order == _C_ORDER:
            return False
        if order == _FORTRAN_ORDER:
            fortran = True
    return fortran


cdef enum:
    _NO_ORDER = 0  # broadcast, or strides in no order
    _C_ORDER = 1
    _FORTRAN_ORDER = 2


cdef int _stride_order(const gpuvec_array* a, int ndim, const int64_t* shape) noexcept:
    """The order in which `a` (broadcast to `shape`) walks its memory."""
    cdef int d, last = -1
    cdef bint growing = True, shrinking = True
    cdef int64_t previous = 0, step
    for d in range(ndim):
        if shape[d] == 1:
            continue
        step = a.strides[d] if a.strides[d] >= 0 else -a.strides[d]
        if step == 0:
            return _NO_ORDER
        if last >= 0:
            growing = growing and step > previous
            shrinking = shrinking and step < previous
        previous = step
        last = d
    if growing and not shrinking:
        return _FORTRAN_ORDER
    if shrinking and not growing:
        return _C_ORDER
    return _NO_ORDER  # one dimension of more than one element: either order is the same


cdef int npy_type(gpuvec_dtype dtype) except -1:
    """NumPy's type number of an ABI dtype (the commonest answered in C)."""
    if dtype == GPUVEC_FLOAT32:
        return cnp.NPY_FLOAT32
    if dtype == GPUVEC_FLOAT64:
        return cnp.NPY_FLOAT64
    return dtype_of_code(dtype).num


cdef object numpy_dtype(gpuvec_dtype dtype):
    """NumPy's dtype of an ABI dtype."""
    return cnp.PyArray_DescrFromType(npy_type(dtype))


cdef int describe_fresh(gpuvec_array* a, uintptr_t address, gpuvec_dtype dtype, int ndim,
                        const int64_t* shape) except -1:
    """The descriptor of fresh, C-ordered device memory of `shape`."""
    cdef int64_t step = 1
    cdef int d
    memset(a, 0, sizeof(gpuvec_array))
    a.data = <void*>address
    a.dtype = dtype
    a.memory = GPUVEC_MEMORY_DEVICE
    a.ndim = ndim
    for d in range(ndim - 1, -1, -1):
        a.shape[d] = shape[d]
        a.strides[d] = step
        step *= shape[d] if shape[d] > 1 else 1
    return 0
