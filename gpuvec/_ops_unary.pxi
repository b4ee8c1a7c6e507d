# Wrappers of gpuvec/unary.h: the unary family, clip and where.
#
# They follow _ops.pxi: one compiled version per dtype through the fused type
# `floating`, spans staged for the backend, the launcher called without the
# GIL. `where` has one operand that is not float data, its bool mask, which
# is staged as raw bytes.

from cython cimport floating
from libc.stdint cimport int64_t, uint8_t, uintptr_t


NEGATIVE = GPUVEC_NEGATIVE
ABS = GPUVEC_ABS
SQRT = GPUVEC_SQRT
EXP = GPUVEC_EXP
LOG = GPUVEC_LOG
LOG1P = GPUVEC_LOG1P
EXPM1 = GPUVEC_EXPM1
SIN = GPUVEC_SIN
COS = GPUVEC_COS
TANH = GPUVEC_TANH
SIGMOID = GPUVEC_SIGMOID


cdef int _unary(floating kind, gpuvec_unary_op op, int ndim, const int64_t* shape, Span x,
                Span out, int backend, int threads_per_block, uintptr_t stream) except -1:
    cdef _Staged sx = _stage_input(kind, x, backend, stream)
    cdef _Staged so = _stage_output(kind, out, backend, stream)
    cdef const floating* px = _address(kind, sx, x)
    cdef floating* po = _address(kind, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    with nogil:
        if floating is float:
            status = gpuvec_unary_f32(be, op, ndim, shape, px, x.strides, po, out.strides,
                                      threads_per_block, s)
        else:
            status = gpuvec_unary_f64(be, op, ndim, shape, px, x.strides, po, out.strides,
                                      threads_per_block, s)
    check(status)
    return _finish_output(kind, so, out)


cdef int _clip(floating kind, int ndim, const int64_t* shape, Span x, Span lo, Span hi,
               Span out, int backend, int threads_per_block, uintptr_t stream) except -1:
    cdef _Staged sx = _stage_input(kind, x, backend, stream)
    cdef _Staged slo = _stage_input(kind, lo, backend, stream)
    cdef _Staged shi = _stage_input(kind, hi, backend, stream)
    cdef _Staged so = _stage_output(kind, out, backend, stream)
    cdef const floating* px = _address(kind, sx, x)
    cdef const floating* plo = _address(kind, slo, lo)
    cdef const floating* phi = _address(kind, shi, hi)
    cdef floating* po = _address(kind, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    with nogil:
        if floating is float:
            status = gpuvec_clip_f32(be, ndim, shape, px, x.strides, plo, lo.strides, phi,
                                     hi.strides, po, out.strides, threads_per_block, s)
        else:
            status = gpuvec_clip_f64(be, ndim, shape, px, x.strides, plo, lo.strides, phi,
                                     hi.strides, po, out.strides, threads_per_block, s)
    check(status)
    return _finish_output(kind, so, out)


cdef _Staged _stage_mask(Span span, int backend, uintptr_t stream):
    """_stage_input for a span of bytes (a NumPy bool array seen as uint8)."""
    cdef _Staged staged = _Staged.__new__(_Staged)
    cdef const uint8_t[::1] flat
    if span.flat is None:
        if backend != GPUVEC_BACKEND_CUDA:
            raise ValueError("device memory given to the host backend")
        staged.base = <void*>span.device_address
    elif span.length:
        flat = span.flat
        if backend == GPUVEC_BACKEND_HOST:
            staged.base = <void*>&flat[0]
        else:
            staged.copy = DeviceBuffer(flat.shape[0], stream)
            staged.copy.upload(&flat[0], flat.shape[0])
            staged.base = staged.copy.ptr
    return staged


cdef int _where(floating kind, int ndim, const int64_t* shape, Span cond, Span a, Span b,
                Span out, int backend, int threads_per_block, uintptr_t stream) except -1:
    cdef _Staged sc = _stage_mask(cond, backend, stream)
    cdef _Staged sa = _stage_input(kind, a, backend, stream)
    cdef _Staged sb = _stage_input(kind, b, backend, stream)
    cdef _Staged so = _stage_output(kind, out, backend, stream)
    cdef const uint8_t* pc = NULL
    cdef const floating* pa = _address(kind, sa, a)
    cdef const floating* pb = _address(kind, sb, b)
    cdef floating* po = _address(kind, so, out)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_stream s = <gpuvec_stream>stream
    cdef gpuvec_status status
    if sc.base != NULL:
        pc = (<const uint8_t*>sc.base) + cond.offset
    with nogil:
        if floating is float:
            status = gpuvec_where_f32(be, ndim, shape, pc, cond.strides, pa, a.strides, pb,
                                      b.strides, po, out.strides, threads_per_block, s)
        else:
            status = gpuvec_where_f64(be, ndim, shape, pc, cond.strides, pa, a.strides, pb,
                                      b.strides, po, out.strides, threads_per_block, s)
    check(status)
    return _finish_output(kind, so, out)


def unary(int op, tuple shape, Span x, Span out, int backend, int threads_per_block,
          uintptr_t stream=0):
    """out = f(x) for the unary op `op`."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if backend == GPUVEC_BACKEND_CUDA and _all_host([x, out]):
        _staged_unary(op, shape, x, out, threads_per_block)
        return
    _fill_shape(shape, shp)
    if _is_float32(out):
        _unary(<float>0, <gpuvec_unary_op>op, len(shape), shp, x, out, backend,
               threads_per_block, stream)
    else:
        _unary(<double>0, <gpuvec_unary_op>op, len(shape), shp, x, out, backend,
               threads_per_block, stream)


def clip(tuple shape, Span x, Span lo, Span hi, Span out, int backend, int threads_per_block,
         uintptr_t stream=0):
    """out = min(max(x, lo), hi), propagating NaN."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    _fill_shape(shape, shp)
    if _is_float32(out):
        _clip(<float>0, len(shape), shp, x, lo, hi, out, backend, threads_per_block, stream)
    else:
        _clip(<double>0, len(shape), shp, x, lo, hi, out, backend, threads_per_block, stream)


def where(tuple shape, Span cond, Span a, Span b, Span out, int backend, int threads_per_block,
          uintptr_t stream=0):
    """out = a where cond else b; cond is a span of uint8."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    _fill_shape(shape, shp)
    if _is_float32(out):
        _where(<float>0, len(shape), shp, cond, a, b, out, backend, threads_per_block, stream)
    else:
        _where(<double>0, len(shape), shp, cond, a, b, out, backend, threads_per_block, stream)
