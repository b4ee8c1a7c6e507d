# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._reduce: every reduction of the op table, with or without an axis.

Serves gpuvec/reductions.py, blas.py (dot, norm), device_array.py and
numpy's protocols; _kernels uses its axis rules for users' ReductionKernels.
reduce() describes x (and y), moves the reduced axes last (a transposed view
of the descriptors), and runs the reduction through the call scaffold
(_results.run_call); the result takes the form NumPy gives it.
"""

cimport numpy as cnp
from libc.stdint cimport int64_t

import operator
import warnings

from numpy.exceptions import AxisError

from gpuvec._core._abi cimport *
from gpuvec._core._copy cimport as_float16, device_scalars
from gpuvec._core._launch cimport fill_launch, parse_threads_per_block
from gpuvec._core._memory cimport count_transfer
from gpuvec._core._operands cimport *
from gpuvec._core._results cimport *
from gpuvec._core._streams cimport resolve_stream

import numpy as np

cnp.import_array()

__all__ = ["reduce", "reduce_ops"]


def reduce_ops():
    """The reduction rows of the op table, as elementwise_ops() gives its
    rows; result is "int64" (positions, counts), "bool" (truth values) or
    None (the compute dtype)."""
    cdef int count = 0
    cdef const gpuvec_op_info* rows = abi.reduce_ops(&count)  # sets count first
    return table_rows(rows, count)


cdef dict _result_codes():
    """Each reduction's result dtype code, -1 for the compute dtype."""
    cdef int count = 0
    cdef const gpuvec_op_info* rows = abi.reduce_ops(&count)
    return {rows[i].code: rows[i].result for i in range(count)}


cdef tuple normalize_axes(object axis, int ndim, bint single, bint ufunc_like):
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

    Where NumPy's result is float16 (sum, mean, max, std, ... of float16
    data), x is read as float32 and reduced in it, as NumPy reduces float16,
    and the float32 result is rounded to float16 before it takes its form.
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef int64_t out_shape[GPUVEC_MAX_NDIM]
    cdef int64_t pair_shape[GPUVEC_MAX_NDIM]  # a paired result's: 2, then out_shape
    cdef int64_t* result_shape = out_shape  # the shape of the result array
    cdef int64_t strides[GPUVEC_MAX_NDIM]
    cdef gpuvec_launch launch
    cdef gpuvec_array* a
    cdef _ReduceCall call
    cdef int k, d, ndim, out_ndim = 0, red_ndim
    cdef int64_t n = 1
    cdef Py_ssize_t out_size = 1
    cdef gpuvec_dtype code
    cdef bint paired = op in _PAIRED_REDUCTIONS
    cdef bint half = False  # NumPy's result is float16: reduced in float32, then rounded
    # A number is reduced as a 0-d array.
    add(ops, np.asarray(x) if is_python_number(x) or isinstance(x, np.generic) else x, "x")
    if y is not None:
        add(ops, np.asarray(y) if is_python_number(y) or isinstance(y, np.generic) else y, "y")
    check_placement(ops)
    whole = dtype is None and (own_dtype or op in _INTEGER_REDUCTIONS)
    if dtype is not None and op in _ACCUMULATING_REDUCTIONS and np.dtype(dtype).kind in "iu":
        code = code_of(check_array_dtype(dtype))  # whole numbers: x is cast to it, as NumPy's
    elif own_dtype and ops.arrays[0].dtype in (GPUVEC_FLOAT32, GPUVEC_FLOAT64, GPUVEC_BOOL):
        code = ops.arrays[0].dtype
    elif whole and ops.objects[0].dtype.kind in "iu":
        code = code_of(_integer_compute(op, ops.objects[0].dtype, own_dtype))
    elif whole and ops.objects[0].dtype.kind == "b" and op in _ACCUMULATING_REDUCTIONS:
        code = GPUVEC_INT64  # NumPy's sum of bools counts them in int64
    else:
        compute = compute_dtype(ops, dtype)
        if compute.kind == "c":  # sum and mean reduce the parts (gpuvec.reductions)
            raise TypeError(f"gpuvec does not compute {_REDUCE_NAMES.get(op, 'this reduction')} "
                            f"on complex numbers yet (the input is {compute})")
        half = compute == FLOAT16
        code = code_of(computed_in(compute))
    convert_host_inputs(ops, numpy_dtype(code))  # bools stay bools: the C++ side reads them
    if y is not None:
        xs, ys = shape_of(ops.objects[0]), shape_of(ops.objects[1])
        if xs != ys:
            raise ValueError(f"shapes do not match: x {xs} and y {ys} must have the same shape")
    ndim = ops.arrays[0].ndim
    axes = normalize_axes(axis, ndim, index, op in _UFUNC_REDUCTIONS)
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
    stream = resolve_stream(stream)
    fill_launch(&launch, placement(ops), parse_threads_per_block(threads_per_block), stream)
    cdef int result_kind = _REDUCE_RESULTS[op]
    cdef gpuvec_dtype out_code = code if result_kind < 0 else <gpuvec_dtype>result_kind
    # int64 results (positions, counts) come back as NumPy values, also from device data.
    cdef bint host_values = result_kind == GPUVEC_INT64
    if ops.device_mode and not ops.host_backed:
        device_scalars(ops, stream)
    call.op = op
    call.reduced_ndim = red_ndim
    call.compute = code
    call.ddof = ddof
    # A result of device data (or of a host-backend DeviceArray) is made in
    # its final shape: with keepdims, the reduced axes are there with length
    # 1, which a fresh C-ordered array lays out as without them (a reshape
    # afterwards cost more than the call).
    plane_shape = _keep_shape(ops, axes) if keepdims else shape_tuple(out_ndim, out_shape)
    result = run_call(ops, None, out_ndim + paired, result_shape, numpy_dtype(out_code),
                      out_code, stream, &launch, _call_reduce, &call,
                      HOST_VALUES if host_values else RESULT_SLOT,
                      (2,) + plane_shape if paired else plane_shape)
    if host_values:
        return _shape_reduction(result, ops, axes, keepdims, axis, out_code, True)
    if half and result_kind < 0:
        result = as_float16(result, stream)
    if ops.device_mode:
        return _planes(result, plane_shape) if paired else result
    if out_size and launch.backend == GPUVEC_BACKEND_CUDA:
        _count_staged_reduction(ops, out_size * n, code,
                                (1 + paired) * out_size * itemsize_of(out_code))
    if paired:
        # Each plane as a reduction of its own gives it: 0-d views, not scalars.
        return tuple([_shape_reduction(result[k, ...], ops, axes, keepdims, axis, out_code,
                                       False) for k in range(2)])
    return _shape_reduction(result, ops, axes, keepdims, axis, out_code, False)


cdef object _integer_compute(int op, object dtype, bint own_dtype):
    """The dtype an integer x reduces in, as NumPy's: sum and prod (the rows
    that accumulate, sums of the `whole` trait) in int64 or uint64 for the
    narrower integers, the extremes and the counting rows in x's own."""
    if own_dtype or op not in _ACCUMULATING_REDUCTIONS or dtype.itemsize == 8:
        return dtype
    return np.dtype(np.int64 if dtype.kind == "i" else np.uint64)


cdef struct _ReduceCall:
    int op
    int reduced_ndim
    gpuvec_dtype compute
    double ddof


cdef gpuvec_status _call_reduce(void* context, const gpuvec_array* result,
                                const gpuvec_array* arrays, int count,
                                const gpuvec_launch* launch) noexcept nogil:
    cdef _ReduceCall* c = <_ReduceCall*>context
    return abi.reduce(c.op, result, &arrays[0], &arrays[1] if count > 1 else NULL,
                      c.reduced_ndim, c.compute, c.ddof, launch)


cdef tuple _planes(object result, tuple shape):
    """The two planes of a paired reduction's new result, as arrays of their own."""
    cdef ArrayFields r = <ArrayFields>result
    if r._host is not None:
        return tuple([host_device_array(r._host[k, ...]) for k in range(2)])
    plane = r._strides[0]
    return (device_view(r, shape, 0), device_view(r, shape, plane))


cdef int _count_staged_reduction(Operands ops, Py_ssize_t size, gpuvec_dtype compute,
                                 Py_ssize_t out_bytes) except -1:
    """Counts the bytes a staged reduction moves: each input in the compute
    dtype (the gather converts it before the copy, bool too), and the result back."""
    count_transfer(ops.count * size * itemsize_of(compute), out_bytes)
    return 0


cdef tuple _keep_shape(Operands ops, tuple axes):
    """The shape of a keepdims result: x's, with the reduced axes of length 1."""
    in_shape = shape_of(ops.objects[0]) if ops.kinds[0] != SCALAR else ()
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
        return value.item()  # a Python int or float, exact for every integer dtype
    return result[()] if result.ndim == 0 else result


# By the reductions' traits column: those that take axis 0 or -1 of a 0-d
# array (NumPy's ufunc reductions and the like), and those of two results per
# row. And the names of the rows.
_UFUNC_REDUCTIONS = frozenset([row[0] for row in reduce_ops() if "axis0" in row[13].split()])
_REDUCE_NAMES = {row[0]: row[1] for row in reduce_ops()}
_PAIRED_REDUCTIONS = frozenset([row[0] for row in reduce_ops() if "paired" in row[13].split()])
# Those that reduce integers exactly in an integer dtype (the integers
# trait), and of them the ones that accumulate (sum, prod: the whole trait).
_INTEGER_REDUCTIONS = frozenset([row[0] for row in reduce_ops() if "integers" in row[13].split()])
_ACCUMULATING_REDUCTIONS = frozenset(
    [row[0] for row in reduce_ops() if {"integers", "whole"} <= set(row[13].split())])
# Each reduction's result dtype (the table's result column): -1 for the compute dtype.
_REDUCE_RESULTS = _result_codes()
