# The op wrappers: spans in, ABI launchers out.
#
# The fused type `floating` gives one compiled version of each wrapper per
# dtype, and `if floating is float` picks the float32 or float64 launcher at
# compile time. Each def function at the bottom is what the Python layer
# calls; it picks the version by the output's dtype.

from cython cimport floating
from libc.stdint cimport int64_t, uintptr_t


ADD = GPUVEC_ADD
SUBTRACT = GPUVEC_SUBTRACT
MULTIPLY = GPUVEC_MULTIPLY
DIVIDE = GPUVEC_DIVIDE
POWER = GPUVEC_POWER
MAXIMUM = GPUVEC_MAXIMUM
MINIMUM = GPUVEC_MINIMUM
HYPOT = GPUVEC_HYPOT
ATAN2 = GPUVEC_ATAN2


cdef int _binary(floating kind, gpuvec_binary_op op, int ndim, const int64_t* shape, Span a,
                 Span b, Span out, int backend, int threads_per_block,
                 uintptr_t stream) except -1:
    cdef _Staged sa = _stage_input(kind, a, backend, stream)
    cdef _Staged sb = _stage_input(kind, b, backend, stream)
    cdef _Staged so = _stage_output(kind, out, backend, stream)
    cdef const floating* pa = _address(kind, sa, a)
    cdef const floating* pb = _address(kind, sb, b)
    cdef floating* po = _address(kind, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    with nogil:
        if floating is float:
            status = gpuvec_binary_f32(be, op, ndim, shape, pa, a.strides, pb, b.strides, po,
                                       out.strides, threads_per_block, s)
        else:
            status = gpuvec_binary_f64(be, op, ndim, shape, pa, a.strides, pb, b.strides, po,
                                       out.strides, threads_per_block, s)
    check(status)
    return _finish_output(kind, so, out)


cdef int _scale(floating alpha, int ndim, const int64_t* shape, Span x, Span out, int backend,
                int threads_per_block, uintptr_t stream) except -1:
    cdef _Staged sx = _stage_input(alpha, x, backend, stream)
    cdef _Staged so = _stage_output(alpha, out, backend, stream)
    cdef const floating* px = _address(alpha, sx, x)
    cdef floating* po = _address(alpha, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    with nogil:
        if floating is float:
            status = gpuvec_scale_f32(be, ndim, shape, alpha, px, x.strides, po, out.strides,
                                      threads_per_block, s)
        else:
            status = gpuvec_scale_f64(be, ndim, shape, alpha, px, x.strides, po, out.strides,
                                      threads_per_block, s)
    check(status)
    return _finish_output(alpha, so, out)


cdef int _axpy(floating alpha, int ndim, const int64_t* shape, Span x, Span y, Span out,
               int backend, int threads_per_block, uintptr_t stream) except -1:
    cdef _Staged sx = _stage_input(alpha, x, backend, stream)
    cdef _Staged sy = _stage_input(alpha, y, backend, stream)
    cdef _Staged so = _stage_output(alpha, out, backend, stream)
    cdef const floating* px = _address(alpha, sx, x)
    cdef const floating* py = _address(alpha, sy, y)
    cdef floating* po = _address(alpha, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    with nogil:
        if floating is float:
            status = gpuvec_axpy_f32(be, ndim, shape, alpha, px, x.strides, py, y.strides, po,
                                     out.strides, threads_per_block, s)
        else:
            status = gpuvec_axpy_f64(be, ndim, shape, alpha, px, x.strides, py, y.strides, po,
                                     out.strides, threads_per_block, s)
    check(status)
    return _finish_output(alpha, so, out)


cdef int _total(floating kind, int ndim, const int64_t* shape, Span x, Span y, Span out,
                int backend, int threads_per_block, uintptr_t stream) except -1:
    """out[0] = sum(x) when y is None, else dot(x, y)."""
    cdef _Staged sx = _stage_input(kind, x, backend, stream)
    cdef _Staged sy = _stage_input(kind, y, backend, stream) if y is not None else None
    cdef _Staged so = _stage_output(kind, out, backend, stream)
    cdef const floating* px = _address(kind, sx, x)
    cdef const floating* py = _address(kind, sy, y) if y is not None else NULL
    cdef const int64_t* y_strides = y.strides if y is not None else NULL
    cdef floating* po = _address(kind, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    with nogil:
        if py == NULL:
            if floating is float:
                status = gpuvec_sum_f32(be, ndim, shape, px, x.strides, po, threads_per_block, s)
            else:
                status = gpuvec_sum_f64(be, ndim, shape, px, x.strides, po, threads_per_block, s)
        else:
            if floating is float:
                status = gpuvec_dot_f32(be, ndim, shape, px, x.strides, py, y_strides, po,
                                        threads_per_block, s)
            else:
                status = gpuvec_dot_f64(be, ndim, shape, px, x.strides, py, y_strides, po,
                                        threads_per_block, s)
    check(status)
    return _finish_output(kind, so, out)


cdef bint _is_float32(Span span):
    return span.flat.dtype.itemsize == 4 if span.flat is not None else span.owner.itemsize == 4


def binary(int op, tuple shape, Span a, Span b, Span out, int backend, int threads_per_block,
           uintptr_t stream=0):
    """out = a (op) b; all spans viewing `shape`, out of the compute dtype."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if backend == GPUVEC_BACKEND_CUDA and _all_host([a, b, out]):
        _staged_binary(op, shape, a, b, out, threads_per_block)
        return
    _fill_shape(shape, shp)
    if _is_float32(out):
        _binary(<float>0, <gpuvec_binary_op>op, len(shape), shp, a, b, out, backend,
                threads_per_block, stream)
    else:
        _binary(<double>0, <gpuvec_binary_op>op, len(shape), shp, a, b, out, backend,
                threads_per_block, stream)


def scale(double alpha, tuple shape, Span x, Span out, int backend, int threads_per_block,
          uintptr_t stream=0):
    """out = alpha * x."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if backend == GPUVEC_BACKEND_CUDA and _all_host([x, out]):
        _staged_scale(alpha, shape, x, out, threads_per_block)
        return
    _fill_shape(shape, shp)
    if _is_float32(out):
        _scale(<float>alpha, len(shape), shp, x, out, backend, threads_per_block, stream)
    else:
        _scale(alpha, len(shape), shp, x, out, backend, threads_per_block, stream)


def axpy(double alpha, tuple shape, Span x, Span y, Span out, int backend,
         int threads_per_block, uintptr_t stream=0):
    """out = alpha * x + y."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if backend == GPUVEC_BACKEND_CUDA and _all_host([x, y, out]):
        _staged_axpy(alpha, shape, x, y, out, threads_per_block)
        return
    _fill_shape(shape, shp)
    if _is_float32(out):
        _axpy(<float>alpha, len(shape), shp, x, y, out, backend, threads_per_block, stream)
    else:
        _axpy(alpha, len(shape), shp, x, y, out, backend, threads_per_block, stream)


def total(tuple shape, Span x, Span y, Span out, int backend, int threads_per_block,
          uintptr_t stream=0):
    """out (one element) = sum(x) when y is None, else dot(x, y)."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if backend == GPUVEC_BACKEND_CUDA and _all_host([x, y, out]):
        _staged_total(shape, x, y, out, threads_per_block)
        return
    _fill_shape(shape, shp)
    if _is_float32(out):
        _total(<float>0, len(shape), shp, x, y, out, backend, threads_per_block, stream)
    else:
        _total(<double>0, len(shape), shp, x, y, out, backend, threads_per_block, stream)


def cast(tuple shape, Span x, Span out, int backend, uintptr_t stream=0):
    """out = x converted to out's dtype: float64 -> float32 or float32 -> float64."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef _Staged sx, so
    cdef gpuvec_status status
    _fill_shape(shape, shp)
    if _is_float32(out):
        sx = _stage_input(<double>0, x, backend, stream)
        so = _stage_output(<float>0, out, backend, stream)
        status = gpuvec_cast_f64_to_f32(be, ndim, shp, _address(<double>0, sx, x), x.strides,
                                        _address(<float>0, so, out), out.strides, s)
        check(status)
        _finish_output(<float>0, so, out)
    else:
        sx = _stage_input(<float>0, x, backend, stream)
        so = _stage_output(<double>0, out, backend, stream)
        status = gpuvec_cast_f32_to_f64(be, ndim, shp, _address(<float>0, sx, x), x.strides,
                                        _address(<double>0, so, out), out.strides, s)
        check(status)
        _finish_output(<double>0, so, out)
