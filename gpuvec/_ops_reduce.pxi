# Wrappers of gpuvec/reduce.h: reductions over some axes of an array.
#
# The Python layer hands x over as a view whose kept axes come first and
# whose reduced axes come last (a transpose: no copy), so x's span carries
# the strides of both: its first len(out_shape) strides walk the output, the
# rest walk a row. x may hold float32 or float64 whichever dtype the
# reduction computes in: staging x for the backend converts it. The output
# holds the compute dtype, or int64 indices for argmin and argmax, and is
# staged as raw bytes.

from cython cimport floating
from libc.stdint cimport int64_t, uint8_t, uintptr_t


REDUCE_SUM = GPUVEC_REDUCE_SUM
REDUCE_MEAN = GPUVEC_REDUCE_MEAN
REDUCE_MIN = GPUVEC_REDUCE_MIN
REDUCE_MAX = GPUVEC_REDUCE_MAX
REDUCE_ARGMIN = GPUVEC_REDUCE_ARGMIN
REDUCE_ARGMAX = GPUVEC_REDUCE_ARGMAX
REDUCE_PROD = GPUVEC_REDUCE_PROD
REDUCE_VAR = GPUVEC_REDUCE_VAR
REDUCE_STD = GPUVEC_REDUCE_STD
REDUCE_NANSUM = GPUVEC_REDUCE_NANSUM
REDUCE_NANMEAN = GPUVEC_REDUCE_NANMEAN
REDUCE_ASUM = GPUVEC_REDUCE_ASUM
REDUCE_NRM2 = GPUVEC_REDUCE_NRM2


cdef Py_ssize_t _itemsize(Span span):
    return span.flat.itemsize if span.flat is not None else span.owner.itemsize


cdef _Staged _stage_result(Span span, int backend, uintptr_t stream):
    """_stage_output for an output of any dtype, seen as bytes."""
    cdef _Staged staged = _Staged.__new__(_Staged)
    cdef uint8_t[::1] raw
    if span.flat is None:
        if backend != GPUVEC_BACKEND_CUDA:
            raise ValueError("device memory given to the host backend")
        staged.base = <void*>span.device_address
    elif span.length:
        raw = span.flat.view("u1")  # also checks that the memory is writable
        if backend == GPUVEC_BACKEND_HOST:
            staged.base = <void*>&raw[0]
        else:
            # No upload: the Python layer passes dense outputs, fully written.
            staged.copy = DeviceBuffer(raw.shape[0], stream)
            staged.base = staged.copy.ptr
    return staged


cdef int _finish_result(_Staged staged, Span span) except -1:
    """Brings a host output's device copy back through the pinned staging
    buffers (nothing to do otherwise)."""
    cdef uint8_t[::1] raw
    if staged.copy is not None:
        raw = span.flat.view("u1")
        staged.copy.download(&raw[0], raw.shape[0])
    return 0


cdef int _reduce(floating kind, gpuvec_reduce_op op, int out_ndim, const int64_t* out_shape,
                 int red_ndim, const int64_t* red_shape, Span x, Span out, double ddof,
                 int backend, int threads_per_block, uintptr_t stream) except -1:
    cdef _Staged sx = _stage_input(kind, x, backend, stream)
    cdef _Staged so = _stage_result(out, backend, stream)
    cdef const floating* px = _address(kind, sx, x)
    cdef void* po = NULL
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    if so.base != NULL:
        po = <void*>((<char*>so.base) + out.offset * _itemsize(out))
    with nogil:
        if floating is float:
            status = gpuvec_reduce_f32(be, op, out_ndim, out_shape, red_ndim, red_shape, px,
                                       x.strides, &x.strides[out_ndim], po, out.strides, ddof,
                                       threads_per_block, s)
        else:
            status = gpuvec_reduce_f64(be, op, out_ndim, out_shape, red_ndim, red_shape, px,
                                       x.strides, &x.strides[out_ndim], po, out.strides, ddof,
                                       threads_per_block, s)
    check(status)
    return _finish_result(so, out)


def reduce(int op, tuple out_shape, tuple red_shape, Span x, Span out, bint float32, double ddof,
           int backend, int threads_per_block, uintptr_t stream=0):
    """out[i...] = the reduction of x[i..., :]: x views out_shape + red_shape.

    The reduction reads x in float32 when `float32` is true, else in float64,
    whatever x's own dtype: staging x for the backend converts it.
    """
    cdef int64_t out_shp[GPUVEC_MAX_NDIM]
    cdef int64_t red_shp[GPUVEC_MAX_NDIM]
    _fill_shape(out_shape, out_shp)
    _fill_shape(red_shape, red_shp)
    if len(out_shape) + len(red_shape) != x.ndim:
        raise ValueError(f"x has {x.ndim} dimensions, not {len(out_shape) + len(red_shape)}")
    if float32:
        _reduce(<float>0, <gpuvec_reduce_op>op, len(out_shape), out_shp, len(red_shape),
                red_shp, x, out, ddof, backend, threads_per_block, stream)
    else:
        _reduce(<double>0, <gpuvec_reduce_op>op, len(out_shape), out_shp, len(red_shape),
                red_shp, x, out, ddof, backend, threads_per_block, stream)
