# Wrappers of the BLAS-1 launchers that _ops.pxi does not cover: axpby.
# (norm and asum are reductions: see _ops_reduce.pxi.)

from cython cimport floating
from libc.stdint cimport int64_t, uintptr_t


cdef int _axpby(floating alpha, floating beta, int ndim, const int64_t* shape, Span x, Span y,
                Span out, int backend, int threads_per_block, uintptr_t stream) except -1:
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
            status = gpuvec_axpby_f32(be, ndim, shape, alpha, px, x.strides, beta, py,
                                      y.strides, po, out.strides, threads_per_block, s)
        else:
            status = gpuvec_axpby_f64(be, ndim, shape, alpha, px, x.strides, beta, py,
                                      y.strides, po, out.strides, threads_per_block, s)
    check(status)
    return _finish_output(alpha, so, out)


def axpby(double alpha, double beta, tuple shape, Span x, Span y, Span out, int backend,
          int threads_per_block, uintptr_t stream=0):
    """out = alpha * x + beta * y."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if backend == GPUVEC_BACKEND_CUDA and _all_host([x, y, out]):
        _staged_axpby(alpha, beta, shape, x, y, out, threads_per_block)
        return
    _fill_shape(shape, shp)
    if _is_float32(out):
        _axpby(<float>alpha, <float>beta, len(shape), shp, x, y, out, backend, threads_per_block,
               stream)
    else:
        _axpby(alpha, beta, len(shape), shp, x, y, out, backend, threads_per_block, stream)
