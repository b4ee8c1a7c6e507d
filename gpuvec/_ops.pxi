# The op wrappers: typed memoryviews in, ABI launchers out.
#
# Each array operand arrives as a Span: its memory seen as a flat, contiguous,
# typed buffer, plus the position of its element (0, ..., 0) in that buffer
# and its strides in elements. The fused type `floating` gives one compiled
# version per dtype; `if floating is float` picks the launcher at compile time.
# On the CUDA backend the span is copied to the device as it is, so strided
# and broadcast operands keep their strides there too.

from cython cimport floating
from libc.stdint cimport int64_t


ADD = GPUVEC_ADD
SUBTRACT = GPUVEC_SUBTRACT
MULTIPLY = GPUVEC_MULTIPLY
DIVIDE = GPUVEC_DIVIDE


cdef class Span:
    """An array operand: flat typed memory, an offset and element strides.

    Parameters
    ----------
    flat : numpy.ndarray
        1-D contiguous float32 or float64 array covering the operand's memory.
    offset : int
        Index in ``flat`` of the operand's element (0, ..., 0).
    shape, strides : tuple of int
        The operand's shape and its strides in elements.
    """

    cdef readonly object flat
    cdef readonly Py_ssize_t offset
    cdef int ndim
    cdef int64_t strides[GPUVEC_MAX_NDIM]

    def __init__(self, flat, Py_ssize_t offset, tuple shape, tuple strides):
        cdef Py_ssize_t lo = offset, hi = offset, n, s
        cdef int d
        if len(shape) != len(strides) or len(shape) > GPUVEC_MAX_NDIM:
            raise ValueError(f"shape {shape} and strides {strides} do not fit together")
        self.flat = flat
        self.offset = offset
        self.ndim = len(shape)
        for d in range(self.ndim):
            n, s = shape[d], strides[d]
            self.strides[d] = s
            if n > 0:
                if s > 0:
                    hi += (n - 1) * s
                else:
                    lo += (n - 1) * s
        # Every element the launcher may touch must lie inside the buffer.
        if len(flat) and (lo < 0 or hi >= len(flat)):
            raise ValueError(f"strides {strides} reach outside the operand's memory")


cdef int _fill_shape(tuple shape, int64_t* out) except -1:
    cdef int d
    if len(shape) > GPUVEC_MAX_NDIM:
        raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not supported, "
                         f"got shape {shape}")
    for d in range(len(shape)):
        out[d] = shape[d]
    return 0


cdef class _Staged:
    """A span's data where the backend can read it: the host memory itself,
    or a device copy of it (uploaded unless it is an output)."""

    cdef DeviceBuffer device
    cdef char* ptr

    def __cinit__(self, int backend, Span span, bint upload):
        cdef const unsigned char[::1] raw = span.flat.view("u1")
        self.device = None
        self.ptr = NULL
        if raw.shape[0] == 0:
            return
        if backend == GPUVEC_BACKEND_HOST:
            self.ptr = <char*>&raw[0]
            return
        self.device = DeviceBuffer(raw.shape[0])
        if upload:
            self.device.upload(&raw[0], raw.shape[0])
        self.ptr = <char*>self.device.ptr

    cdef int finish(self, Span span) except -1:
        """Brings an output back to the host (nothing to do on the host backend)."""
        cdef unsigned char[::1] raw
        if self.device is not None:
            raw = span.flat.view("u1")
            self.device.download(&raw[0], raw.shape[0])
        return 0


cdef inline floating* _at(_Staged staged, Span span, floating kind):
    return (<floating*>staged.ptr) + span.offset if staged.ptr != NULL else NULL


cdef int _binary(floating kind, gpuvec_binary_op op, int ndim, const int64_t* shape,
                 Span a, Span b, Span out, int backend, int threads_per_block) except -1:
    cdef _Staged sa = _Staged(backend, a, True)
    cdef _Staged sb = _Staged(backend, b, True)
    cdef _Staged so = _Staged(backend, out, False)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_status status
    cdef const floating* pa = _at(sa, a, kind)
    cdef const floating* pb = _at(sb, b, kind)
    cdef floating* po = _at(so, out, kind)
    with nogil:
        if floating is float:
            status = gpuvec_binary_f32(be, op, ndim, shape, pa, a.strides, pb, b.strides, po,
                                       out.strides, threads_per_block, NULL)
        else:
            status = gpuvec_binary_f64(be, op, ndim, shape, pa, a.strides, pb, b.strides, po,
                                       out.strides, threads_per_block, NULL)
    check(status)
    return so.finish(out)


cdef int _scale(floating alpha, int ndim, const int64_t* shape, Span x, Span out, int backend,
                int threads_per_block) except -1:
    cdef _Staged sx = _Staged(backend, x, True)
    cdef _Staged so = _Staged(backend, out, False)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_status status
    cdef const floating* px = _at(sx, x, alpha)
    cdef floating* po = _at(so, out, alpha)
    with nogil:
        if floating is float:
            status = gpuvec_scale_f32(be, ndim, shape, alpha, px, x.strides, po, out.strides,
                                      threads_per_block, NULL)
        else:
            status = gpuvec_scale_f64(be, ndim, shape, alpha, px, x.strides, po, out.strides,
                                      threads_per_block, NULL)
    check(status)
    return so.finish(out)


cdef int _axpy(floating alpha, int ndim, const int64_t* shape, Span x, Span y, Span out,
               int backend, int threads_per_block) except -1:
    cdef _Staged sx = _Staged(backend, x, True)
    cdef _Staged sy = _Staged(backend, y, True)
    cdef _Staged so = _Staged(backend, out, False)
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_status status
    cdef const floating* px = _at(sx, x, alpha)
    cdef const floating* py = _at(sy, y, alpha)
    cdef floating* po = _at(so, out, alpha)
    with nogil:
        if floating is float:
            status = gpuvec_axpy_f32(be, ndim, shape, alpha, px, x.strides, py, y.strides, po,
                                     out.strides, threads_per_block, NULL)
        else:
            status = gpuvec_axpy_f64(be, ndim, shape, alpha, px, x.strides, py, y.strides, po,
                                     out.strides, threads_per_block, NULL)
    check(status)
    return so.finish(out)


cdef double _reduce(floating kind, int ndim, const int64_t* shape, Span x, Span y,
                    int backend, int threads_per_block) except? -1:
    """sum(x) when y is None, else dot(x, y)."""
    cdef _Staged sx = _Staged(backend, x, True)
    cdef _Staged sy = _Staged(backend, y, True) if y is not None else None
    cdef gpuvec_backend be = <gpuvec_backend>backend
    cdef gpuvec_status status
    cdef floating result = 0
    cdef DeviceBuffer device_result = None
    cdef floating* presult = &result
    cdef const floating* px = _at(sx, x, kind)
    cdef const floating* py = _at(sy, y, kind) if y is not None else NULL
    cdef const int64_t* y_strides = y.strides if y is not None else NULL
    if backend == GPUVEC_BACKEND_CUDA:
        device_result = DeviceBuffer(sizeof(floating))
        presult = <floating*>device_result.ptr
    with nogil:
        if py == NULL:
            if floating is float:
                status = gpuvec_sum_f32(be, ndim, shape, px, x.strides, presult,
                                        threads_per_block, NULL)
            else:
                status = gpuvec_sum_f64(be, ndim, shape, px, x.strides, presult,
                                        threads_per_block, NULL)
        else:
            if floating is float:
                status = gpuvec_dot_f32(be, ndim, shape, px, x.strides, py, y_strides, presult,
                                        threads_per_block, NULL)
            else:
                status = gpuvec_dot_f64(be, ndim, shape, px, x.strides, py, y_strides, presult,
                                        threads_per_block, NULL)
    check(status)
    if device_result is not None:
        device_result.download(&result, sizeof(floating))
    return result


def binary(int op, tuple shape, Span a, Span b, Span out, int backend, int threads_per_block):
    """out = a (op) b; all spans of one dtype, viewing `shape`."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    _fill_shape(shape, shp)
    if out.flat.dtype.itemsize == 4:
        _binary(<float>0, <gpuvec_binary_op>op, len(shape), shp, a, b, out, backend,
                threads_per_block)
    else:
        _binary(<double>0, <gpuvec_binary_op>op, len(shape), shp, a, b, out, backend,
                threads_per_block)


def scale(double alpha, tuple shape, Span x, Span out, int backend, int threads_per_block):
    """out = alpha * x."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    _fill_shape(shape, shp)
    if out.flat.dtype.itemsize == 4:
        _scale(<float>alpha, len(shape), shp, x, out, backend, threads_per_block)
    else:
        _scale(alpha, len(shape), shp, x, out, backend, threads_per_block)


def axpy(double alpha, tuple shape, Span x, Span y, Span out, int backend,
         int threads_per_block):
    """out = alpha * x + y."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    _fill_shape(shape, shp)
    if out.flat.dtype.itemsize == 4:
        _axpy(<float>alpha, len(shape), shp, x, y, out, backend, threads_per_block)
    else:
        _axpy(alpha, len(shape), shp, x, y, out, backend, threads_per_block)


def reduce(tuple shape, Span x, Span y, int backend, int threads_per_block):
    """sum(x) when y is None, else dot(x, y), as a Python float."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    _fill_shape(shape, shp)
    if x.flat.dtype.itemsize == 4:
        return _reduce(<float>0, len(shape), shp, x, y, backend, threads_per_block)
    return _reduce(<double>0, len(shape), shp, x, y, backend, threads_per_block)
