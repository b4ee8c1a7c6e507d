# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._elementwise: every elementwise op of the op table.

Serves gpuvec's elementwise functions and ufuncs (gpuvec/elementwise.py,
ufuncs.py, blas.py, device_array.py's operators, fusion): elementwise()
describes the arguments (_operands), decides the compute dtype and the
result's, and runs the op through the call scaffold (_results.run_call),
one ABI call without the GIL. where's condition is a bool array; the
truth-value ops (comparisons, logical ops, tests) return bool arrays.
"""

cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.string cimport memset

from gpuvec._core._abi cimport *
from gpuvec._core._copy cimport as_float16, complex_scalars, copy, device_scalars, upload_bools
from gpuvec._core._launch cimport fill_launch, parse_threads_per_block
from gpuvec._core._operands cimport *
from gpuvec._core._results cimport *
from gpuvec._core._streams cimport resolve_stream

import warnings

import numpy as np
from numpy import equal, less

from gpuvec._core._copy import to_device
from gpuvec._core._operands import result_dtype

cnp.import_array()

__all__ = ["complex_parts", "elementwise", "elementwise_ops"]


def elementwise_ops():
    """The elementwise rows of the op table, each a tuple of gpuvec_op_info's
    fields in order: (code, name, arity, params, summary, result, reads_truth,
    numpy, functor, exact, host_ulps, cuda_ulps, ufunc, traits, warning),
    result being the name of the result's dtype ("bool" for the truth-value
    ops), or None for the compute dtype. gpuvec._table names the fields."""
    cdef int count = 0
    cdef const gpuvec_op_info* rows = abi.elementwise_ops(&count)  # sets count first
    return table_rows(rows, count)


cdef int _WHERE = -1  # where's op code, read from the table at import
# Whether op code k's result is a bool (a truth-value op), and whether it
# reads each operand as a truth value in its own precision (NumPy's logical
# ufuncs: logical_and(x32, 1e-300) is x32 != 0, so they compute in bool):
# the table's result column, looked up per call.
cdef enum:
    _MAX_OPS = 128
cdef bint _truth_result[_MAX_OPS]
cdef bint _reads_truth[_MAX_OPS]


cdef int _fill_truth_results() except -1:
    """_truth_result and _reads_truth from the elementwise rows' result column."""
    cdef int count = 0, i
    cdef const gpuvec_op_info* rows = abi.elementwise_ops(&count)
    for i in range(count):
        if not 0 <= rows[i].code < _MAX_OPS:
            raise RuntimeError("the op table outgrew _MAX_OPS")
        _truth_result[rows[i].code] = rows[i].result == GPUVEC_BOOL
        _reads_truth[rows[i].code] = rows[i].reads_truth
    return 0


cdef struct _ElementwiseCall:
    int op
    const double* values
    gpuvec_dtype compute


cdef gpuvec_status _call_elementwise(void* context, const gpuvec_array* result,
                                     const gpuvec_array* arrays, int count,
                                     const gpuvec_launch* launch) noexcept nogil:
    cdef _ElementwiseCall* c = <_ElementwiseCall*>context
    return abi.elementwise(c.op, result, arrays, count, c.values, c.compute, launch)


def elementwise(int op, tuple args, tuple names, out=None, dtype=None, threads_per_block=None,
                stream=None, tuple params=(), extra_dtypes=()):
    """Runs the elementwise op `op` of the table on `args` (named `names`).

    The result is a DeviceArray when an argument (or out) is device data, a
    NumPy array otherwise; a NumPy scalar when every argument is a scalar, as
    from NumPy's ufuncs. `params` are the op's numbers (alpha, beta);
    `extra_dtypes` take part in the dtype policy without being operands.
    `where`'s condition (its first argument) is a bool array. The
    truth-value ops (comparisons, logical ops, tests) return bool arrays.
    Where NumPy's result is float16, the op computes in float32 (as NumPy's
    float16 loops do) and its result is rounded to float16, through the
    path of an out of another dtype.
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef double values[2]
    cdef gpuvec_launch launch
    cdef int k, ndim, first = 0
    cdef Py_ssize_t size = 1
    cdef bint truth = 0 <= op < _MAX_OPS and _truth_result[op]
    if op == _ABSOLUTE and dtype is None and _is_complex_data(args[0]):
        # |z| = hypot(re, im) over views of the parts, as NumPy's npy_cabs
        # computes it: a float result, the same function on the same numbers.
        re, im = complex_parts(args[0])
        return elementwise(_HYPOT, (re, im), (f"{names[0]}.real", f"{names[0]}.imag"), out,
                           None, threads_per_block, stream)
    for k in range(len(args)):
        if op == _WHERE and k == 0:
            _add_condition(ops, args[0], names[0])
            first = 1
        else:
            add(ops, args[k], names[k])
    for k in range(len(params)):
        values[k] = params[k]
    if out is not None and isinstance(out, ArrayFields):
        ops.device_mode = True
        if (<ArrayFields>out)._host is not None:
            ops.host_backed = True
    check_placement(ops, first)
    if extra_dtypes:
        compute = result_dtype(*ops.objects[first:], *extra_dtypes, dtype=dtype)
    elif truth or op == _WHERE:
        compute = truth_compute_dtype(ops, dtype, first, truth and _reads_truth[op],
                                      _UFUNCS.get(op), _KINDS.get(op))
    else:
        compute = compute_dtype(ops, dtype, first, _UFUNCS.get(op), _KINDS.get(op))
    if compute.kind == "c" and "c" not in _KINDS.get(op, ""):
        raise TypeError(f"gpuvec does not compute {_OP_NAMES.get(op, 'this op')} on complex "
                        f"numbers yet (the inputs resolve to {compute})")
    out_dtype = _RESULTS.get(op) or compute
    # A float16 result: computed in float32, into a float32 result that is
    # then rounded to float16 (cast into out, or into a new array).
    cdef bint half = out_dtype == FLOAT16
    compute = computed_in(compute)
    if compute.kind in "iu" and op in _INTEGER_CHECKED:
        _check_integer_operands(op, ops, compute)
    convert_host_inputs(ops, compute, first)
    if first and ops.device_mode and ops.kinds[0] == HOST_DATA:
        _upload_condition(ops)
    stream = resolve_stream(stream)
    fill_launch(&launch, placement(ops), parse_threads_per_block(threads_per_block), stream)
    if compute.kind == "c" and not ops.device_mode and launch.backend == GPUVEC_BACKEND_CUDA:
        # NumPy data on the GPU: the staging pipeline converts to real dtypes
        # alone, so the data goes to the device first and the result comes back.
        return _through_device(op, args, names, out, dtype, threads_per_block, stream, params)
    complex_scalars(ops, compute, stream, first)
    if ops.device_mode and not ops.host_backed:
        device_scalars(ops, stream)
    # The inputs' shapes first, then out's dtype and shape: NumPy's order of errors.
    ndim = broadcast(ops, 0, shape)
    if out is not None:
        check_out_dtype(out, out_dtype)
    if half:
        out_dtype = FLOAT32
    if out is not None:
        ndim = broadcast_to_out(ops, out, ndim, shape)
    target = None  # an out of another dtype: the result is cast into it
    # (a float16 result is rounded to float16 first, whatever out's dtype, as NumPy's)
    if out is not None and (check_out(out, ops, ndim, shape, out_dtype) or half):
        target, out = out, None
    for k in range(ndim):
        size *= shape[k]
    cdef _ElementwiseCall call
    call.op = op
    call.values = values
    call.compute = code_of(compute)
    cdef gpuvec_dtype result_code = code_of(out_dtype)
    result = run_call(ops, out, ndim, shape, out_dtype, result_code, stream, &launch,
                      _call_elementwise, &call, LIKE_OPERANDS | NUMPY_SCALAR)
    if not ops.device_mode and size and launch.backend == GPUVEC_BACKEND_CUDA:
        count_staged(ops, 0, size, call.compute, size * itemsize_of(result_code))
    if half and (target is None or target.dtype != FLOAT16):
        result = as_float16(result, stream)  # a float16 out rounds it as it takes it
    if target is not None:
        if ops.device_mode:
            copy(target, result)
        else:
            np.copyto(target, result, casting="same_kind")
        return target
    return result


cdef bint _is_complex_data(object x):
    """Whether x is complex data: an array (DeviceArray or NumPy's) of a
    complex dtype, a complex number, or what NumPy makes a complex array of."""
    if isinstance(x, (ArrayFields, np.ndarray, np.generic)):
        return x.dtype.kind == "c"
    if type(x) is complex:
        return True
    if isinstance(x, (list, tuple)):
        return np.asarray(x).dtype.kind == "c"
    return False


def complex_parts(x):
    """The real and imaginary parts of complex data, as views of its floats:
    DeviceArrays of a DeviceArray (its memory, every other float), NumPy
    arrays of anything else (NumPy's own .real and .imag views)."""
    cdef ArrayFields f
    if not isinstance(x, ArrayFields):
        array = np.asarray(x)
        return array.real, array.imag
    f = <ArrayFields>x
    cls = type(x)
    if f._host is not None:
        return (cls._from_host_array(f._host.real, f._readonly),
                cls._from_host_array(f._host.imag, f._readonly))
    part = np.dtype(f"f{f._dtype.itemsize // 2}")
    return tuple(cls._from_device_memory(x, f._address + offset, f._shape, f._strides, part,
                                         f._device, f._stream, f._readonly)
                 for offset in (0, part.itemsize))


def _through_device(int op, tuple args, tuple names, out, dtype, threads_per_block, stream,
                    tuple params):
    """A complex op on NumPy data with the CUDA backend: the arrays copied to
    the device, the op run there, and its result copied back (into out, a
    NumPy array, where one is given)."""
    numbers = not any(isinstance(a, (np.ndarray, list, tuple)) for a in args)
    # Numbers stay numbers (weak, as NEP 50 has them) beside arrays.
    moved = tuple(to_device(a, None, stream) if numbers or isinstance(a, (np.ndarray, list, tuple))
                  else a for a in args)
    host = elementwise(op, moved, names, None, dtype, threads_per_block, stream,
                       params).to_host()
    if out is not None:
        np.copyto(out, host, casting="same_kind")
        return out
    return host[()] if numbers else host  # numbers in, a NumPy scalar out, as NumPy's


cdef int _add_condition(Operands ops, object cond, str name) except -1:
    """where's condition: a bool array (a DeviceArray, NumPy's, or a list of
    bools)."""
    cdef int k = ops.count
    cdef gpuvec_array* a = &ops.arrays[k]
    if isinstance(cond, ArrayFields) or (not isinstance(cond, np.ndarray) and on_gpu(cond)):
        add(ops, cond, name)
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
    return describe_host_array(ops, k, mask)


cdef int _upload_condition(Operands ops) except -1:
    """where's host condition, for device data: its bytes go to the device,
    in C order (a 0-d condition stays 0-d, as np.ascontiguousarray's would not)."""
    cdef gpuvec_array* a = &ops.arrays[0]
    cdef cnp.ndarray mask = np.asarray(ops.objects[0], order="C")
    if ops.host_backed:
        ops.objects[0] = mask
        fill_strides(a, mask.ndim, cnp.PyArray_DIMS(mask), cnp.PyArray_STRIDES(mask), 1)
        a.data = cnp.PyArray_DATA(mask) if mask.size else NULL
        ops.kinds[0] = DEVICE_DATA
        return 0
    uploaded = upload_bools(mask, ops.device, None)  # where the data is
    ops.objects[0] = uploaded
    fill_strides(a, mask.ndim, cnp.PyArray_DIMS(mask), cnp.PyArray_STRIDES(mask), 1)
    a.data = <void*>(<ArrayFields>uploaded)._address
    a.memory = GPUVEC_MEMORY_DEVICE
    ops.kinds[0] = DEVICE_DATA
    return 0


cdef int _check_integer_operands(int op, Operands ops, object compute) except -1:
    """What NumPy checks of integer operands: a negative exponent of a signed
    integer power is a ValueError, and an integer division by zero (whose
    result is 0) warns as np.errstate's divide setting says."""
    divisor = ops.objects[1]
    if op == _INTEGER_CHECKS["power"]:
        if compute.kind == "i" and _has(divisor, less, 0):
            raise ValueError("Integers to negative integer powers are not allowed.")
    elif _has(divisor, equal, 0):
        name = "floor_divide" if op == _INTEGER_CHECKS["floor_divide"] else "remainder"
        message = f"divide by zero encountered in {name}"
        setting = np.geterr()["divide"]
        if setting == "raise":
            raise FloatingPointError(message)
        if setting != "ignore":
            warnings.warn(message, RuntimeWarning, stacklevel=2)
    return 0


cdef bint _has(object value, object compare, int number) except -1:
    """Whether some element of an operand compares true with `number`: a
    number itself, a NumPy array, or device data (by gpuvec's own ops)."""
    if isinstance(value, ArrayFields):
        return bool(elementwise(ELEMENTWISE_CODES[compare.__name__], (value, number),
                                ("x", "y")).any())
    return bool(np.any(compare(value, number)))


# where's code, and the truth-value ops' (read from the op table at import).
_WHERE = [row[0] for row in elementwise_ops() if row[1] == "where"][0]
_fill_truth_results()
ELEMENTWISE_CODES = {row[1]: row[0] for row in elementwise_ops()}
_OP_NAMES = {code: name for name, code in ELEMENTWISE_CODES.items()}
_ABSOLUTE = ELEMENTWISE_CODES["absolute"]
_HYPOT = ELEMENTWISE_CODES["hypot"]
# Each op's NumPy ufunc (its dtype resolution is gpuvec's), kinds column, and
# result dtype where it is not the compute dtype (bool, uint8).
_UFUNCS = {row[0]: getattr(np, row[7]) for row in elementwise_ops()
           if isinstance(getattr(np, row[7], None), np.ufunc)}
_KINDS = {row[0]: row[15] for row in elementwise_ops()}
_RESULTS = {row[0]: np.dtype(row[5]) for row in elementwise_ops() if row[5] is not None}
# The integer ops whose operands NumPy checks (_check_integer_operands).
_INTEGER_CHECKS = {name: ELEMENTWISE_CODES[name]
                   for name in ("power", "floor_divide", "remainder")}
_INTEGER_CHECKED = frozenset(_INTEGER_CHECKS.values())
