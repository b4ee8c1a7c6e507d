# The one call path: every public op crosses from Python into here once.
#
#   elementwise(op, args, out, dtype, ...)  every elementwise op of the table
#   reduce(op, x, y, axis, keepdims, ...)    every reduction, with or without an axis
#   copy_into, to_device, to_host, new_array  moving and converting data
#
# Each describes its operands (_operands.pxi), decides the dtype and the
# shape, makes the result, and makes one ABI call without the GIL. What the
# call needs besides (staging host data through pinned memory, converting an
# input's dtype, a temporary for an out that overlaps an input) the C++
# boundary decides.
#
# Uses: Operands and the describing helpers (_operands.pxi), ArrayFields
# (_array_fields.pxi), DeviceBuffer (and its note_use), ResultSlot, PinnedHostMemory and the
# transfer counters (_memory.pxi), check (_check.pxi).

cimport numpy as cnp
from libc.stdint cimport int64_t, uintptr_t
from libc.string cimport memset

import operator
import warnings

from numpy.exceptions import AxisError

cdef object _current_stream_var = None  # gpuvec.streams' ContextVar, registered by it
cdef object _Stream = None  # gpuvec.Stream


def register_stream_context(var, cls):
    """Tells the core where the current gpuvec.Stream is kept (a ContextVar),
    and which class a stream is."""
    global _current_stream_var, _Stream
    _current_stream_var = var
    _Stream = cls


# -- the op table --------------------------------------------------------------------------------


def elementwise_ops():
    """The elementwise rows of the op table, each a tuple of gpuvec_op_info's
    fields in order: (code, name, arity, params, summary, result, reads_truth,
    numpy, functor, exact, host_ulps, cuda_ulps, ufunc, traits, warning),
    result being the name of the result's dtype ("bool" for the truth-value
    ops), or None for the compute dtype. gpuvec._table names the fields."""
    cdef int count = 0
    cdef const gpuvec_op_info* rows = gpuvec_elementwise_ops(&count)  # sets count first
    return _rows(rows, count)


def reduce_ops():
    """The reduction rows of the op table, as elementwise_ops() gives its
    rows; result is "int64" (positions, counts), "bool" (truth values) or
    None (the compute dtype)."""
    cdef int count = 0
    cdef const gpuvec_op_info* rows = gpuvec_reduce_ops(&count)  # sets count first
    return _rows(rows, count)


cdef list _rows(const gpuvec_op_info* rows, int count):
    return [(rows[i].code, rows[i].name.decode(), rows[i].arity, rows[i].params,
             rows[i].summary.decode(),
             None if rows[i].result < 0 else _npy_name(<gpuvec_dtype>rows[i].result),
             bool(rows[i].reads_truth), rows[i].numpy.decode(), rows[i].functor.decode(),
             bool(rows[i].exact), rows[i].host_ulps, rows[i].cuda_ulps,
             rows[i].ufunc.decode(), rows[i].traits.decode(), rows[i].warning.decode())
            for i in range(count)]


cdef int _fill_truth_results() except -1:
    """_truth_result and _reads_truth from the elementwise rows' result column."""
    cdef int count = 0, i
    cdef const gpuvec_op_info* rows = gpuvec_elementwise_ops(&count)
    for i in range(count):
        if not 0 <= rows[i].code < _MAX_OPS:
            raise RuntimeError("the op table outgrew _MAX_OPS")
        _truth_result[rows[i].code] = rows[i].result == GPUVEC_BOOL
        _reads_truth[rows[i].code] = rows[i].reads_truth
    return 0


cdef dict _result_codes():
    """Each reduction's result dtype code, -1 for the compute dtype."""
    cdef int count = 0
    cdef const gpuvec_op_info* rows = gpuvec_reduce_ops(&count)
    return {rows[i].code: rows[i].result for i in range(count)}


cdef str _npy_name(gpuvec_dtype dtype):
    return {GPUVEC_BOOL: "bool", GPUVEC_INT64: "int64", GPUVEC_FLOAT32: "float32"}.get(
        dtype, "float64")


# -- launch settings -----------------------------------------------------------------------------


cdef int _threads_per_block(object value) except -1:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"threads_per_block must be an int, got {value!r}")
    n = operator.index(value)
    if n < 0:
        raise ValueError(f"threads_per_block must be positive, got {n}")
    if n > 2**31 - 1:  # beyond a C int; smaller excesses fail as CUDA's launch does
        raise ValueError(f"threads_per_block={n} exceeds the limit of "
                         f"{GPUVEC_MAX_THREADS_PER_BLOCK} threads per block")
    return n


cdef object _resolve_stream(object stream):
    """The gpuvec.Stream a call runs on: the given one (another library's as a
    gpuvec.Stream, which raises TypeError for anything else), else the current
    one, else None."""
    if stream is None:
        return get_value(_current_stream_var) if _current_stream_var is not None else None
    return stream if isinstance(stream, _Stream) else _Stream(stream)


cdef uintptr_t _stream_handle(object stream) except? 0:
    return 0 if stream is None else stream.handle


cdef int _current_device() except -1:
    cdef int device = 0
    check(gpuvec_cuda_get_device(&device))
    return device


cdef int _make_current(int device) except -2:
    """Makes `device` current for one call; returns the device to restore
    afterwards with _restore_device, or -1 when it already was current
    (_switch_to, _memory.pxi, raising its failures)."""
    cdef int previous = -1
    if _active_backend() == GPUVEC_BACKEND_CUDA:
        check(_switch_to(device, &previous))
    return previous


cdef int _restore_device(int previous) except -1:
    if previous >= 0:
        check(gpuvec_cuda_set_device(previous))
    return 0


# -- results -------------------------------------------------------------------------------------


cdef tuple _c_strides_of(tuple shape, Py_ssize_t itemsize):
    cdef list strides = []
    cdef Py_ssize_t step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    strides.reverse()
    return tuple(strides)


cdef object _new_device_array(tuple shape, object dtype, int device, object stream,
                              bint host_backed, bint result_slot=False, tuple strides=None):
    """A new C-contiguous DeviceArray. `result_slot`: a 0-d reduction result,
    which the GPU writes straight into mapped host memory. `strides`: its
    C-order byte strides, when the caller has them at hand."""
    cdef ArrayFields r = ArrayFields.__new__(_DeviceArray)
    cdef Py_ssize_t size = 1
    cdef uintptr_t handle = _stream_handle(stream)
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
    r._strides = strides if strides is not None else _c_strides_of(shape, dtype.itemsize)
    r._dtype = dtype
    r._stream = stream
    r._readonly = False
    r._contiguous = True
    r._size = size
    return r


def new_array(shape, dtype, stream=None, device=None):
    """A new C-contiguous DeviceArray on the active backend, on `device` (by
    default the current one)."""
    stream = _resolve_stream(stream)
    if _active_backend() == GPUVEC_BACKEND_HOST:
        return _new_device_array(shape, dtype, 0, stream, True)
    return _new_device_array(shape, dtype, _current_device() if device is None else device,
                             stream, False)


cdef int _describe_result(gpuvec_array* a, object result, int ndim, const int64_t* shape,
                          gpuvec_dtype dtype) except -1:
    """The descriptor of a result array (a NumPy array or a DeviceArray) of `shape`."""
    cdef ArrayFields f
    cdef Py_ssize_t itemsize = _itemsize(dtype)
    cdef int d = 0
    memset(a, 0, sizeof(gpuvec_array))
    a.dtype = dtype
    a.ndim = ndim
    for d in range(ndim):
        a.shape[d] = shape[d]
    if isinstance(result, _DeviceArray):
        f = <ArrayFields>result
        if f._host is not None:
            result = f._host
        else:
            a.memory = GPUVEC_MEMORY_DEVICE
            a.data = <void*>f._address
            d = 0
            for s in f._strides:
                a.strides[d] = s // itemsize
                d += 1
            return 0
    a.memory = GPUVEC_MEMORY_HOST
    a.data = cnp.PyArray_DATA(<cnp.ndarray>result)
    for d in range(ndim):
        a.strides[d] = cnp.PyArray_STRIDES(<cnp.ndarray>result)[d] // itemsize
    if cnp.PyArray_SIZE(<cnp.ndarray>result) == 0:
        a.data = NULL
    return 0


cdef int _check_out(object out, Operands ops, int ndim, const int64_t* shape,
                    object result) except -1:
    """A user's out= must be writable, of the result's shape, and on the same
    side (host or device) as the inputs. Returns 1 when its dtype is another
    one that NumPy's same_kind casting allows (the other float dtype, a float
    for a bool result; for a NumPy out also float16, or an int for a bool
    result): the result is then cast into it (``d32 += d64`` stays float32).
    Whether that cast is allowed was checked before the shapes were
    broadcast, as NumPy checks it (_check_out_dtype)."""
    cdef ArrayFields f
    cdef cnp.ndarray array
    cdef int d
    if isinstance(out, _DeviceArray):
        f = <ArrayFields>out
        if not ops.device_mode:
            raise TypeError("out is a DeviceArray, but the inputs are in host memory: copy "
                            "them with gpuvec.to_device first, or pass a NumPy out")
        expected = _shape_tuple(ndim, shape)
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
                         f"{_shape_tuple(ndim, shape)}")
    if <object>cnp.PyArray_DESCR(array) is not result and out.dtype != result:
        return 1  # NumPy copies the result into it
    if not cnp.PyArray_ISWRITEABLE(array):
        raise ValueError("out is read-only")
    if not _whole_elements(array):
        raise ValueError("out has byte strides that are not whole elements")
    return 0


cdef int _broadcast_to_out(Operands ops, object out, int ndim, int64_t* shape) except -1:
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
    elif isinstance(out, (np.ndarray, _DeviceArray)):
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
        _broadcast_to(&ops.arrays[k], out_ndim, shape)
    return out_ndim


cdef int _check_out_dtype(object out, object result) except -1:
    """NumPy's same_kind rule for out's dtype, checked before the shapes are
    (np.multiply(a, b, out=bool_out) is a TypeError whatever the shapes)."""
    if isinstance(out, _DeviceArray):
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


cdef int _mark_stream_use(Operands ops, object result, object stream) except -1:
    """_mark_used for an op's device operands and its result."""
    cdef int k
    if stream is not None:
        _mark_used(stream, [ops.objects[k] for k in range(ops.count) if ops.kinds[k] == _DEVICE]
                   + [result])
    return 0


cdef int _mark_used(object stream, arrays) except -1:
    """Tells the memory that gpuvec allocated for `arrays` that a call on
    `stream` (a gpuvec.Stream, or None: the default stream) read or wrote
    it, so that its free waits for the call (DeviceBuffer.note_use); other
    objects are skipped."""
    cdef DeviceBuffer buffer
    if stream is None:
        return 0
    for array in arrays:
        if isinstance(array, _DeviceArray):
            buffer = _buffer_of(array)
            if buffer is not None:
                # the Stream keeps its stream alive: gpuvec's own, or another library's
                buffer.note_use(stream.handle, stream)
    return 0


cdef object _buffer_of(object array):
    """The DeviceBuffer that owns a DeviceArray's memory, if gpuvec allocated it."""
    owner = (<ArrayFields>array)._owner
    while isinstance(owner, _DeviceArray):
        owner = (<ArrayFields>owner)._owner
    return owner if type(owner) is DeviceBuffer else None


cdef int _count_staged(Operands ops, int first, Py_ssize_t size, gpuvec_dtype compute,
                       Py_ssize_t out_bytes) except -1:
    """Counts the bytes a staged call moves: each host input in the compute
    dtype (the gather converts it before the copy), and the result back."""
    global _bytes_to_device, _bytes_to_host
    cdef int k
    for k in range(first, ops.count):
        if ops.kinds[k] == _HOST:
            # A bool condition crosses as bytes; any other input in the compute dtype.
            dtype = ops.arrays[k].dtype
            _bytes_to_device += size * _itemsize(dtype if dtype == GPUVEC_BOOL else compute)
    _bytes_to_host += out_bytes
    return 0


cdef int _device_scalars(Operands ops, object stream) except -1:
    """A reduction result of one element still in mapped host memory (a
    ResultSlot: 0-d, or of shape (1, ...) with keepdims) is copied into device
    memory, in its shape, before it is read as an operand: every thread
    reading it would otherwise cross the bus."""
    cdef int k
    cdef ArrayFields f
    for k in range(ops.count):
        if ops.kinds[k] == _DEVICE and isinstance(ops.objects[k], _DeviceArray):
            f = <ArrayFields>ops.objects[k]
            if type(f._owner) is ResultSlot:
                copied = _new_device_array(f._shape, f._dtype, f._device, stream, False)
                _copy(copied, f)
                ops.objects[k] = copied
                _describe_device_array(ops, k, <ArrayFields>copied)
    return 0


cdef object _new_result(Operands ops, int ndim, const int64_t* shape, object dtype,
                        object stream):
    """The result of an elementwise op on device data. An operand that is
    C-contiguous, of the result's shape and dtype lends its shape and strides
    tuples (the usual case: no tuple is built)."""
    cdef int k
    cdef ArrayFields f
    for k in range(ops.count):
        if ops.kinds[k] == _DEVICE and type(ops.objects[k]) is _DeviceArray:
            f = <ArrayFields>ops.objects[k]
            if (f._contiguous and f._dtype is dtype and len(f._shape) == ndim
                    and _same_extents(ops, k, ndim, shape)):
                return _new_device_array(f._shape, dtype, ops.device, stream,
                                         ops.host_backed, False, f._strides)
    return _new_device_array(_shape_tuple(ndim, shape), dtype, ops.device, stream,
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

# One ABI call on described operands into a described result, without the GIL.
ctypedef gpuvec_status (*_AbiCall)(void* context, const gpuvec_array* result,
                                   const gpuvec_array* arrays, int count,
                                   const gpuvec_launch* launch) noexcept nogil


cdef struct _ElementwiseCall:
    int op
    const double* values
    gpuvec_dtype compute


cdef gpuvec_status _call_elementwise(void* context, const gpuvec_array* result,
                                     const gpuvec_array* arrays, int count,
                                     const gpuvec_launch* launch) noexcept nogil:
    cdef _ElementwiseCall* c = <_ElementwiseCall*>context
    return gpuvec_elementwise(c.op, result, arrays, count, c.values, c.compute, launch)


cdef object _run_call(Operands ops, object out, int ndim, const int64_t* shape,
                      object result_dtype, gpuvec_dtype result_code, object stream,
                      gpuvec_launch* launch, _AbiCall call, void* context,
                      bint like_operands):
    """What every call that makes an array of `shape` does around its ABI call.

    The result is `out` when given, else a new array: on device data
    (ops.device_mode) a DeviceArray on the data's device, made current for
    the call and restored after it, whose stream use is noted; otherwise a
    NumPy array, returned as a NumPy scalar when it is 0-d. `like_operands`:
    the new result takes an operand's shape tuples (device) or their memory
    order (NumPy), as an elementwise result does; else it is C-ordered.
    call(context, result, ops.arrays, ops.count, launch) runs once, without
    the GIL, unless the result is empty.
    """
    cdef gpuvec_array result_desc
    cdef gpuvec_status status
    cdef int k, previous
    cdef Py_ssize_t size = 1
    for k in range(ndim):
        size *= shape[k]
    if ops.device_mode:
        if ops.device < 0 and not ops.host_backed:
            ops.device = _current_device()
        previous = _make_current(ops.device if not ops.host_backed else -1)
        try:
            if out is not None:
                result = out
            elif like_operands:
                result = _new_result(ops, ndim, shape, result_dtype, stream)
            else:
                result = _new_device_array(_shape_tuple(ndim, shape), result_dtype, ops.device,
                                           stream, ops.host_backed)
            if size:
                _describe_result(&result_desc, result, ndim, shape, result_code)
                with nogil:
                    status = call(context, &result_desc, ops.arrays, ops.count, launch)
                check(status)
                _mark_stream_use(ops, result, stream)
                (<ArrayFields>result)._stream = stream  # the stream that last wrote it
        finally:
            _restore_device(previous)
        return result
    result = out
    if out is None:
        result = cnp.PyArray_EMPTY(ndim, <cnp.npy_intp*>shape, _npy_type(result_code),
                                   like_operands and _fortran_result(ops, ndim, shape))
    if size:
        _describe_result(&result_desc, result, ndim, shape, result_code)
        with nogil:
            status = call(context, &result_desc, ops.arrays, ops.count, launch)
        check(status)
    if out is None and ndim == 0:
        return result[()]
    return result


# -- elementwise ---------------------------------------------------------------------------------


def elementwise(int op, tuple args, tuple names, out=None, dtype=None, threads_per_block=None,
                stream=None, tuple params=(), extra_dtypes=()):
    """Runs the elementwise op `op` of the table on `args` (named `names`).

    The result is a DeviceArray when an argument (or out) is device data, a
    NumPy array otherwise; a NumPy scalar when every argument is a scalar, as
    from NumPy's ufuncs. `params` are the op's numbers (alpha, beta);
    `extra_dtypes` take part in the dtype policy without being operands.
    `where`'s condition (its first argument) is a bool array. The
    truth-value ops (comparisons, logical ops, tests) return bool arrays.
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef double values[2]
    cdef gpuvec_launch launch
    cdef int k, ndim, first = 0
    cdef Py_ssize_t size = 1
    cdef bint truth = 0 <= op < _MAX_OPS and _truth_result[op]
    for k in range(len(args)):
        if op == _WHERE and k == 0:
            _add_condition(ops, args[0], names[0])
            first = 1
        else:
            _add(ops, args[k], names[k])
    for k in range(len(params)):
        values[k] = params[k]
    if out is not None and isinstance(out, _DeviceArray):
        ops.device_mode = True
        if (<ArrayFields>out)._host is not None:
            ops.host_backed = True
    _check_placement(ops, first)
    if extra_dtypes:
        compute = _dtypes.result_dtype(*ops.objects[first:], *extra_dtypes, dtype=dtype)
    elif truth or op == _WHERE:
        compute = _truth_compute_dtype(ops, dtype, first, truth and _reads_truth[op])
    else:
        compute = _compute_dtype(ops, dtype, first)
    result_dtype = _BOOL if truth else compute
    _convert_host_inputs(ops, compute, first)
    if first and ops.device_mode and ops.kinds[0] == _HOST:
        _upload_condition(ops)
    launch.threads_per_block = _threads_per_block(threads_per_block)
    stream = _resolve_stream(stream)
    launch.stream = <gpuvec_stream>_stream_handle(stream)
    if ops.device_mode and not ops.host_backed:
        _device_scalars(ops, stream)
    if out is not None:
        _check_out_dtype(out, result_dtype)
    ndim = _broadcast(ops, 0, shape)
    if out is not None:
        ndim = _broadcast_to_out(ops, out, ndim, shape)
    target = None  # an out of another dtype: the result is cast into it
    if out is not None and _check_out(out, ops, ndim, shape, result_dtype):
        target, out = out, None
    for k in range(ndim):
        size *= shape[k]
    cdef _ElementwiseCall call
    call.op = op
    call.values = values
    call.compute = _code_of(compute)
    cdef gpuvec_dtype result_code = GPUVEC_BOOL if truth else call.compute
    if ops.device_mode:
        launch.backend = GPUVEC_BACKEND_HOST if ops.host_backed else GPUVEC_BACKEND_CUDA
    else:
        launch.backend = <gpuvec_backend>_active_backend()
    result = _run_call(ops, out, ndim, shape, result_dtype, result_code, stream, &launch,
                       _call_elementwise, &call, True)
    if not ops.device_mode and size and launch.backend == GPUVEC_BACKEND_CUDA:
        _count_staged(ops, 0, size, call.compute, size * _itemsize(result_code))
    if target is not None:
        if ops.device_mode:
            _copy(target, result)
        else:
            np.copyto(target, result, casting="same_kind")
        return target
    return result


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
        if ops.kinds[k] == _SCALAR:
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


cdef inline int _npy_type(gpuvec_dtype dtype) noexcept:
    """NumPy's type number of an ABI dtype."""
    if dtype == GPUVEC_FLOAT32:
        return cnp.NPY_FLOAT32
    if dtype == GPUVEC_BOOL:
        return cnp.NPY_BOOL
    return cnp.NPY_INT64 if dtype == GPUVEC_INT64 else cnp.NPY_FLOAT64


cdef int _WHERE = -1  # where's op code, read from the table at import
# Whether op code k's result is a bool (a truth-value op), and whether it
# reads each operand as a truth value in its own precision (NumPy's logical
# ufuncs: logical_and(x32, 1e-300) is x32 != 0, so they compute in bool):
# the table's result column, looked up per call.
cdef enum:
    _MAX_OPS = 128
cdef bint _truth_result[_MAX_OPS]
cdef bint _reads_truth[_MAX_OPS]


cdef int _add_condition(Operands ops, object cond, str name) except -1:
    """where's condition: a bool array (a DeviceArray, NumPy's, or a list of
    bools)."""
    cdef int k = ops.count
    cdef gpuvec_array* a = &ops.arrays[k]
    if isinstance(cond, _DeviceArray) or (not isinstance(cond, np.ndarray) and _on_gpu(cond)):
        _add(ops, cond, name)
        if ops.arrays[k].dtype != GPUVEC_BOOL:
            raise TypeError(f"{name} has dtype {ops.objects[k].dtype}, but it must be a bool "
                            f"array: compare the data ({name} > 0) or convert it "
                            f"({name}.astype(bool))")
        return 0
    try:
        mask = np.asarray(cond)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} cannot be turned into a bool array: {exc}") from None
    if mask.dtype != np.bool_:
        raise TypeError(f"{name} has dtype {mask.dtype}, but it must be a bool array: compare "
                        f"the data (x > 0) or convert it ({name}.astype(bool))")
    memset(a, 0, sizeof(gpuvec_array))
    ops.names.append(name)
    ops.objects.append(mask)
    ops.weak[k] = False
    ops.count += 1
    return _describe_host_array(ops, k, mask)


cdef int _upload_condition(Operands ops) except -1:
    """where's host condition, for device data: its bytes go to the device,
    in C order (a 0-d condition stays 0-d, as np.ascontiguousarray's would not)."""
    cdef gpuvec_array* a = &ops.arrays[0]
    cdef cnp.ndarray mask = np.asarray(ops.objects[0], order="C")
    if ops.host_backed:
        ops.objects[0] = mask
        _fill_strides(a, mask.ndim, cnp.PyArray_DIMS(mask), cnp.PyArray_STRIDES(mask), 1)
        a.data = cnp.PyArray_DATA(mask) if mask.size else NULL
        ops.kinds[0] = _DEVICE
        return 0
    uploaded = _upload_bools(mask, ops.device, None)  # where the data is
    ops.objects[0] = uploaded
    _fill_strides(a, mask.ndim, cnp.PyArray_DIMS(mask), cnp.PyArray_STRIDES(mask), 1)
    a.data = <void*>(<ArrayFields>uploaded)._address
    a.memory = GPUVEC_MEMORY_DEVICE
    ops.kinds[0] = _DEVICE
    return 0


cdef object _upload_bools(cnp.ndarray host, int device, object stream):
    """A new bool DeviceArray on `device` holding a C-ordered host bool array:
    where's condition or a mask for device data. Its bytes are copied once,
    and a 0-d array stays 0-d."""
    uploaded = _new_device_array((<object>host).shape, _BOOL, device, stream, False)
    if host.size:
        copy_to_device((<ArrayFields>uploaded)._address, host.reshape(-1).view(np.uint8),
                       _stream_handle(stream))
    return uploaded


# -- reductions ----------------------------------------------------------------------------------


cdef tuple _normalize_axes(object axis, int ndim, bint single, bint ufunc_like):
    """axis= as a sorted tuple of axes in range(ndim), with NumPy's errors.

    `ufunc_like`: the op is one of NumPy's ufunc reductions (sum, max, ...),
    which take an int axis of 0 or -1 on a 0-d array; mean, var and std refuse it."""
    if axis is None:
        return tuple(range(ndim))
    if ndim == 0 and ufunc_like and not isinstance(axis, tuple) \
            and operator.index(axis) in (0, -1):
        return ()  # the 0-d array's one value
    if single or not isinstance(axis, tuple):
        axis = (operator.index(axis),)
    axes = tuple([operator.index(a) for a in axis])
    for a in axes:
        if not -ndim <= a < ndim:
            raise AxisError(a, ndim)
    normalized = tuple(sorted([a % ndim for a in axes]))
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return normalized


def reduce(int op, x, y=None, axis=None, bint keepdims=False, dtype=None,
           threads_per_block=None, stream=None, double ddof=0.0, bint index=False,
           bint own_dtype=False, str empty_error=None, tuple warn_if_at_most=()):
    """Runs the reduction `op` of the table over `axis` of x (and y, for dot).

    The result's dtype is the row's result column: the compute dtype, int64
    (positions, counts) or bool (truth values). Returns, as NumPy does: for
    host input a Python number for axis=None (without keepdims; a NumPy bool
    for a truth value), else a NumPy array (a NumPy scalar where no dimension
    is left); for device input a DeviceArray (0-d for axis=None), except
    int64 results (argmin's and argmax's positions, count_nonzero's counts),
    which come back as NumPy values. `index`: the op takes one axis (argmin,
    argmax). `own_dtype`: x is read in its own dtype where that is float32,
    float64 or bool (any, all, count_nonzero: a conversion to float32 would
    turn 1e-50 into 0). `empty_error` is the ValueError for rows of no
    elements; each (at_most, text) of `warn_if_at_most` is a RuntimeWarning
    for rows of at most `at_most` elements.

    The rows of two results (mean_var, mean_std) return a tuple of two results
    of the form above, from one result array of a leading dimension 2 (the
    planes are its views).
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef int64_t out_shape[GPUVEC_MAX_NDIM]
    cdef int64_t pair_shape[GPUVEC_MAX_NDIM]  # a paired result's: 2, then out_shape
    cdef int64_t* result_shape = out_shape  # the shape of the result array
    cdef int64_t strides[GPUVEC_MAX_NDIM]
    cdef gpuvec_array result_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef gpuvec_array* a
    cdef int k, d, ndim, out_ndim = 0, red_ndim
    cdef int64_t n = 1
    cdef Py_ssize_t out_size = 1
    cdef int previous
    cdef gpuvec_dtype code
    cdef bint paired = op in _PAIRED_REDUCTIONS
    # A number is reduced as a 0-d array.
    _add(ops, np.asarray(x) if _is_python_number(x) or isinstance(x, np.generic) else x, "x")
    if y is not None:
        _add(ops, np.asarray(y) if _is_python_number(y) or isinstance(y, np.generic) else y, "y")
    _check_placement(ops)
    if own_dtype and ops.arrays[0].dtype in (GPUVEC_FLOAT32, GPUVEC_FLOAT64, GPUVEC_BOOL):
        code = ops.arrays[0].dtype
    else:
        code = _code_of(_compute_dtype(ops, dtype))
    _convert_host_inputs(ops, _numpy_dtype(code))  # bools stay bools: the C++ side reads them
    if y is not None:
        xs, ys = _shape_of(ops.objects[0]), _shape_of(ops.objects[1])
        if xs != ys:
            raise ValueError(f"shapes do not match: x {xs} and y {ys} must have the same shape")
    ndim = ops.arrays[0].ndim
    axes = _normalize_axes(axis, ndim, index, op in _UFUNC_REDUCTIONS)
    red_ndim = len(axes)
    # The reduced axes go last (a transposed view of the descriptors: no copy).
    order = [d for d in range(ndim) if d not in axes] + list(axes)
    for k in range(ops.count):
        a = &ops.arrays[k]
        for d in range(ndim):
            shape[d] = a.shape[order[d]]
            strides[d] = a.strides[order[d]]
        for d in range(ndim):
            a.shape[d] = shape[d]
            a.strides[d] = strides[d]
    for d in range(ndim - red_ndim):
        out_shape[d] = shape[d]
        out_size *= shape[d]
    out_ndim = ndim - red_ndim
    for d in range(out_ndim, ndim):
        n *= shape[d]
    if n == 0 and empty_error is not None:
        raise ValueError(empty_error)
    for at_most, text in warn_if_at_most:
        if n <= at_most:
            warnings.warn(text, RuntimeWarning, stacklevel=2)
    if paired:
        if out_ndim >= GPUVEC_MAX_NDIM:
            raise ValueError(f"{_REDUCE_NAMES[op]} keeps at most {GPUVEC_MAX_NDIM - 1} "
                             f"dimensions of x, but {out_ndim} are left")
        pair_shape[0] = 2
        for d in range(out_ndim):
            pair_shape[d + 1] = out_shape[d]
        result_shape = pair_shape
    launch.threads_per_block = _threads_per_block(threads_per_block)
    stream = _resolve_stream(stream)
    launch.stream = <gpuvec_stream>_stream_handle(stream)
    cdef int result_kind = _REDUCE_RESULTS[op]
    cdef gpuvec_dtype out_code = code if result_kind < 0 else <gpuvec_dtype>result_kind
    # int64 results (positions, counts) come back as NumPy values, also from device data.
    cdef bint host_values = out_code == GPUVEC_INT64
    out_tuple = _shape_tuple(out_ndim, out_shape)
    if ops.device_mode and not ops.host_backed:
        launch.backend = GPUVEC_BACKEND_CUDA
        previous = _make_current(ops.device)
        try:
            _device_scalars(ops, stream)
            if host_values:
                result = np.empty(out_tuple, np.int64)
                target = DeviceBuffer(out_size * 8, _stream_handle(stream), stream)
                _describe_fresh(&result_desc, <uintptr_t>(<DeviceBuffer>target).ptr,
                                GPUVEC_INT64, out_ndim, out_shape)
            else:
                # Made in its final shape: with keepdims, the reduced axes are
                # there with length 1, which a fresh C-ordered array lays out
                # as without them (a reshape afterwards cost more than the call).
                plane_shape = _keep_shape(ops, axes) if keepdims else out_tuple
                result = _new_device_array((2,) + plane_shape if paired else plane_shape,
                                           _numpy_dtype(out_code), ops.device, stream, False,
                                           result_slot=out_ndim == 0 and not paired)
                _describe_fresh(&result_desc, (<ArrayFields>result)._address, out_code,
                                out_ndim + paired, result_shape)
            if out_size:
                with nogil:
                    status = gpuvec_reduce(op, &result_desc, &ops.arrays[0],
                                           &ops.arrays[1] if ops.count > 1 else NULL, red_ndim,
                                           code, ddof, &launch)
                check(status)
                if host_values:
                    copy_to_host(result.reshape(-1).view(np.uint8),
                                 <uintptr_t>(<DeviceBuffer>target).ptr, _stream_handle(stream))
                else:
                    _mark_stream_use(ops, result, stream)
        finally:
            _restore_device(previous)
        if host_values:
            return _shape_reduction(result, ops, axes, keepdims, axis, out_code, True)
        if paired:
            return _device_planes(result, plane_shape)
        return result
    launch.backend = GPUVEC_BACKEND_HOST if ops.host_backed else <gpuvec_backend>_active_backend()
    result = cnp.PyArray_EMPTY(out_ndim + paired, <cnp.npy_intp*>result_shape,
                               _npy_type(out_code), 0)
    if out_size:
        _describe_result(&result_desc, result, out_ndim + paired, result_shape, out_code)
        with nogil:
            status = gpuvec_reduce(op, &result_desc, &ops.arrays[0],
                                   &ops.arrays[1] if ops.count > 1 else NULL, red_ndim, code,
                                   ddof, &launch)
        check(status)
        if launch.backend == GPUVEC_BACKEND_CUDA:
            _count_staged_reduction(ops, out_size * n, code,
                                    (1 + paired) * out_size * _itemsize(out_code))
    if paired:
        # Each plane as a reduction of its own gives it: 0-d views, not scalars.
        return tuple([_host_plane(result[k, ...], ops, axes, keepdims, axis, out_code)
                      for k in range(2)])
    return _host_plane(result, ops, axes, keepdims, axis, out_code)


cdef object _host_plane(cnp.ndarray result, Operands ops, tuple axes, bint keepdims,
                        object axis, gpuvec_dtype out_code):
    """A reduction's host result as `reduce` returns it."""
    if ops.host_backed:
        if out_code == GPUVEC_INT64:
            return _shape_reduction(result, ops, axes, keepdims, axis, out_code, True)
        # Reshaped while a NumPy array: DeviceArray.reshape checks much more.
        return _DeviceArray._from_host_array(
            result.reshape(_keep_shape(ops, axes)) if keepdims else result)
    return _shape_reduction(result, ops, axes, keepdims, axis, out_code, False)


cdef tuple _device_planes(object result, tuple shape):
    """The two planes of a paired reduction's fresh device result, as views."""
    cdef ArrayFields r = <ArrayFields>result
    strides = _c_strides_of(shape, r._dtype.itemsize)
    plane = r._strides[0]
    return (result._view(shape, strides, 0), result._view(shape, strides, plane))


cdef inline object _numpy_dtype(gpuvec_dtype dtype):
    """NumPy's dtype of an ABI dtype."""
    return cnp.PyArray_DescrFromType(_npy_type(dtype))


cdef int _count_staged_reduction(Operands ops, Py_ssize_t size, gpuvec_dtype compute,
                                 Py_ssize_t out_bytes) except -1:
    """Counts the bytes a staged reduction moves: each input in the compute
    dtype (the gather converts it before the copy, bool too), and the result back."""
    global _bytes_to_device, _bytes_to_host
    _bytes_to_device += ops.count * size * _itemsize(compute)
    _bytes_to_host += out_bytes
    return 0


cdef int _describe_fresh(gpuvec_array* a, uintptr_t address, gpuvec_dtype dtype, int ndim,
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


cdef tuple _keep_shape(Operands ops, tuple axes):
    """The shape of a keepdims result: x's, with the reduced axes of length 1."""
    in_shape = _shape_of(ops.objects[0]) if ops.kinds[0] != _SCALAR else ()
    return tuple([1 if d in axes else in_shape[d] for d in range(len(in_shape))])


cdef object _shape_reduction(object result, Operands ops, tuple axes, bint keepdims,
                             object axis, gpuvec_dtype dtype, bint device):
    """The reduction's result, of `dtype`, in the form NumPy gives it (see reduce)."""
    if keepdims:
        return result.reshape(_keep_shape(ops, axes))
    if device and dtype != GPUVEC_INT64:
        return result
    if axis is None:
        value = result.reshape(())[()] if isinstance(result, np.ndarray) else result
        if dtype == GPUVEC_BOOL:
            return value  # numpy.bool_, as from numpy.any: ~ negates it as a truth value
        return int(value) if dtype == GPUVEC_INT64 else float(value)
    return result[()] if result.ndim == 0 else result


# -- copies --------------------------------------------------------------------------------------


cdef int _copy(object target, object source) except -1:
    """target[...] = source for DeviceArrays (or NumPy arrays) of one shape, any dtypes."""
    cdef Operands ops = Operands()
    cdef gpuvec_array result_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef int ndim, d, device = -1, previous
    cdef Py_ssize_t size = 1
    _add(ops, source, "source")
    # The copy runs on the device that holds the device data (one device: the
    # kernels of a strided or converting copy cannot read another's memory).
    for array in (target, source):
        if isinstance(array, _DeviceArray) and (<ArrayFields>array)._host is None:
            if device >= 0 and (<ArrayFields>array)._device != device:
                raise ValueError(f"the arrays are on different devices: "
                                 f"{sorted({device, (<ArrayFields>array)._device})}: copy "
                                 f"through the host (x.to_host()) or compute on one device")
            device = (<ArrayFields>array)._device
    target_shape = tuple(target.shape)
    ndim = len(target_shape)
    for d in range(ndim):
        shape[d] = target_shape[d]
        size *= shape[d]
    if size == 0:
        return 0
    # Broadcast the source to the target's shape.
    a = &ops.arrays[0]
    if ops.kinds[0] != _SCALAR:
        np.broadcast_shapes(_shape_of(ops.objects[0]), target_shape)
    _broadcast_to(a, ndim, shape)
    out_code = _code_of(target.dtype)
    _describe_result(&result_desc, target, ndim, shape, out_code)
    # The copy queues behind the work that wrote the device data: on the
    # target's stream, or for a download on the source's (a reduction on a
    # gpuvec.Stream writes its result there, which the default stream does
    # not wait for).
    if isinstance(target, _DeviceArray):
        stream = target._stream
    elif isinstance(source, _DeviceArray):
        stream = source._stream
    else:
        stream = None
    launch.stream = <gpuvec_stream>_stream_handle(stream)
    launch.threads_per_block = 0
    backend_device = (result_desc.memory == GPUVEC_MEMORY_DEVICE
                      or a.memory == GPUVEC_MEMORY_DEVICE)
    launch.backend = GPUVEC_BACKEND_CUDA if backend_device else GPUVEC_BACKEND_HOST
    previous = _make_current(device)
    try:
        with nogil:  # a scalar source fills the target
            status = gpuvec_copy(&result_desc, a, &launch)
        check(status)
    finally:
        _restore_device(previous)
    _count_copy(a.memory, result_desc.memory, size * _itemsize(out_code))
    return 0


cdef int _count_copy(gpuvec_memory source, gpuvec_memory target, Py_ssize_t nbytes) except -1:
    global _bytes_to_device, _bytes_to_host
    if source == GPUVEC_MEMORY_HOST and target == GPUVEC_MEMORY_DEVICE:
        _bytes_to_device += nbytes
    elif source == GPUVEC_MEMORY_DEVICE and target == GPUVEC_MEMORY_HOST:
        _bytes_to_host += nbytes
    return 0


def copy_into(target, source):
    """target[...] = source: a DeviceArray (or NumPy array) from a DeviceArray, a
    NumPy array or a number, broadcast, with the dtype converted. Host data
    reaches the device through the pinned staging buffers, and comes back
    through them."""
    _copy(target, source)


def to_device(array, dtype=None, stream=None):
    """A new DeviceArray holding a copy of host data (anything NumPy takes)."""
    array = _dtypes.as_real_array(array, "x")
    if array.dtype == _BOOL and dtype is None:
        compute = _BOOL  # bool data stays bool, as NumPy's does
    else:
        compute = _dtypes.result_dtype(array, dtype=dtype)
    if array.dtype != compute and (array.dtype.kind not in "f"
                                   or array.dtype.itemsize not in (4, 8)):
        array = array.astype(compute)
    result = new_array(array.shape, compute, stream)
    if (<ArrayFields>result)._host is not None:
        (<ArrayFields>result)._host[...] = array
    else:
        _copy(result, array)
    return result


def to_host(array):
    """A new NumPy array holding a copy of a DeviceArray's data."""
    cdef ArrayFields f = <ArrayFields>array
    if f._host is not None:
        return np.array(f._host, copy=True)
    result = _host_result(f._shape, f._dtype, f._size * f._dtype.itemsize)
    _copy(result, array)
    return result


cdef object _host_result(tuple shape, object dtype, Py_ssize_t nbytes):
    """An empty C-ordered NumPy array of `nbytes` for a download: in pinned
    memory where gpuvec's pool gives some (the copy then lands at the bus's
    full speed), else NumPy's own."""
    memory = PinnedHostMemory.take(nbytes) if nbytes > 0 else None
    if memory is None:
        return np.empty(shape, dtype)
    return np.frombuffer(memory, dtype).reshape(shape)


# The codes of the ops this file treats apart: where's condition is a bool
# array; the truth-value ops return bool arrays.
_WHERE = [row[0] for row in elementwise_ops() if row[1] == "where"][0]
_fill_truth_results()
# By the reductions' traits column: those that take axis 0 or -1 of a 0-d
# array (NumPy's ufunc reductions and the like), and those of two results per
# row. And the names of the rows.
_UFUNC_REDUCTIONS = frozenset([row[0] for row in reduce_ops() if "axis0" in row[13].split()])
_REDUCE_NAMES = {row[0]: row[1] for row in reduce_ops()}
_PAIRED_REDUCTIONS = frozenset([row[0] for row in reduce_ops() if "paired" in row[13].split()])
# Each reduction's result dtype (the table's result column): -1 for the compute dtype.
_REDUCE_RESULTS = _result_codes()
