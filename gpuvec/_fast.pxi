# The short path for the commonest call on device data: an op on C-contiguous
# DeviceArrays of one dtype and shape (on either backend), on the current
# device and the default stream, writing a new array or an out= that matches.
# It skips the general
# validation (which gives the same answer for such inputs) so that a small op
# costs little more than its launch. Each function returns None when its
# inputs do not qualify; the caller then takes the general path.

from libc.stdint cimport int64_t, uintptr_t

import numpy as np

cdef object _DeviceArray = None  # gpuvec.DeviceArray, registered by its module
cdef object _float32 = None
cdef object _c_strides = None  # gpuvec.device_array._c_strides: C-order byte strides


def register_device_array(cls, float32, c_strides):
    """Tells the short path which class DeviceArray is, and its C-strides
    helper (a cycle-free import)."""
    global _DeviceArray, _float32, _c_strides
    _DeviceArray = cls
    _float32 = float32
    _c_strides = c_strides


cdef inline bint _qualifies(object x) except -1:
    return type(x) is _DeviceArray and x._contiguous and x._stream is None


cdef const void* _address_of(object x) except? NULL:
    """Element 0 of a qualifying array, in device or (host backend) host memory."""
    cdef const unsigned char[::1] raw
    if x._host is None:
        return <const void*><uintptr_t>x._address
    raw = x._host.reshape(-1).view("u1")
    return <const void*>&raw[0] if raw.shape[0] else NULL


cdef object _new_like(object x, tuple shape, tuple strides):
    """A new C-contiguous DeviceArray of x's dtype, device and backend."""
    cdef object r
    cdef DeviceBuffer buffer
    cdef Py_ssize_t size = 1
    for n in shape:
        size *= n
    if x._host is not None:
        host = np.empty(shape, x._dtype)
        r = _DeviceArray.__new__(_DeviceArray)
        r._host = host
        r._owner = None
        r._address = 0
    elif not shape:  # a reduction's result: written by the GPU straight into host memory
        slot = ResultSlot(0, None)
        r = _DeviceArray.__new__(_DeviceArray)
        r._host = None
        r._owner = slot
        r._address = slot.address
    else:
        buffer = DeviceBuffer(size * x._dtype.itemsize, 0, None)
        r = _DeviceArray.__new__(_DeviceArray)
        r._host = None
        r._owner = buffer
        r._address = buffer.address
    r._shape = shape
    r._strides = strides
    r._dtype = x._dtype
    r._device = x._device
    r._stream = None
    r._readonly = False
    r._contiguous = True
    r._size = size
    return r


cdef inline bint _matches(object x, object like) except -1:
    """x qualifies and has like's shape, dtype and backend (and device)."""
    return (_qualifies(x) and x._shape == like._shape and x._dtype == like._dtype
            and (x._host is None) == (like._host is None)
            and (x._host is not None or x._device == like._device))


cdef object _fast_output(object out, object like, tuple inputs):
    """The array a short-path op writes: a new one, or `out` when it may be
    written directly (it matches, is writable, and each input is either the
    very same memory or none of it). None: take the general path."""
    cdef uintptr_t lo, hi, ilo, ihi
    if like._host is None and like._device != cuda_get_device():
        return None
    if out is None:
        return _new_like(like, like._shape, like._strides)
    if not _matches(out, like) or out._readonly:
        return None
    lo = <uintptr_t>_address_of(out)
    hi = lo + <uintptr_t>(out._size * out._dtype.itemsize)
    for x in inputs:
        ilo = <uintptr_t>_address_of(x)
        ihi = ilo + <uintptr_t>(x._size * x._dtype.itemsize)
        if ilo != lo and ilo < hi and lo < ihi:
            return None  # a partial overlap needs the general path's temporary
    return out


cdef inline gpuvec_backend _backend_of(object x):
    return GPUVEC_BACKEND_HOST if x._host is not None else GPUVEC_BACKEND_CUDA


def fast_binary(int op, a, b, out=None):
    """a (op) b (into out), or None when the short path does not apply."""
    cdef int64_t n
    cdef int64_t one = 1
    cdef gpuvec_status status
    if not (_qualifies(a) and _matches(b, a)):
        return None
    result = _fast_output(out, a, (a, b))
    if result is None:
        return None
    cdef gpuvec_backend backend = _backend_of(a)
    cdef bint single = a._dtype == _float32
    cdef const void* pa = _address_of(a)
    cdef const void* pb = _address_of(b)
    cdef void* po = <void*>_address_of(result)
    n = a._size
    with nogil:
        if single:
            status = gpuvec_binary_f32(backend, <gpuvec_binary_op>op, 1, &n, <const float*>pa,
                                       &one, <const float*>pb, &one, <float*>po, &one, 0, NULL)
        else:
            status = gpuvec_binary_f64(backend, <gpuvec_binary_op>op, 1, &n, <const double*>pa,
                                       &one, <const double*>pb, &one, <double*>po, &one, 0,
                                       NULL)
    check(status)
    return result


def fast_scale(x, double alpha, out=None):
    """alpha * x (into out), or None when the short path does not apply."""
    cdef int64_t n
    cdef int64_t one = 1
    cdef gpuvec_status status
    if not _qualifies(x):
        return None
    result = _fast_output(out, x, (x,))
    if result is None:
        return None
    cdef gpuvec_backend backend = _backend_of(x)
    cdef bint single = x._dtype == _float32
    cdef const void* px = _address_of(x)
    cdef void* po = <void*>_address_of(result)
    n = x._size
    with nogil:
        if single:
            status = gpuvec_scale_f32(backend, 1, &n, <float>alpha, <const float*>px, &one,
                                      <float*>po, &one, 0, NULL)
        else:
            status = gpuvec_scale_f64(backend, 1, &n, alpha, <const double*>px, &one,
                                      <double*>po, &one, 0, NULL)
    check(status)
    return result


def fast_axpy(double alpha, x, y, out=None):
    """alpha * x + y (into out), or None when the short path does not apply."""
    cdef int64_t n
    cdef int64_t one = 1
    cdef gpuvec_status status
    if not (_qualifies(x) and _matches(y, x)):
        return None
    result = _fast_output(out, x, (x, y))
    if result is None:
        return None
    cdef gpuvec_backend backend = _backend_of(x)
    cdef bint single = x._dtype == _float32
    cdef const void* px = _address_of(x)
    cdef const void* py = _address_of(y)
    cdef void* po = <void*>_address_of(result)
    n = x._size
    with nogil:
        if single:
            status = gpuvec_axpy_f32(backend, 1, &n, <float>alpha, <const float*>px, &one,
                                     <const float*>py, &one, <float*>po, &one, 0, NULL)
        else:
            status = gpuvec_axpy_f64(backend, 1, &n, alpha, <const double*>px, &one,
                                     <const double*>py, &one, <double*>po, &one, 0, NULL)
    check(status)
    return result


def fast_total(x, y):
    """sum(x) (y None) or dot(x, y) as a 0-d DeviceArray, or None."""
    cdef int64_t n
    cdef int64_t one = 1
    cdef gpuvec_status status
    cdef bint single
    cdef bint is_dot = y is not None
    cdef gpuvec_backend backend
    if not _qualifies(x) or (is_dot and not _matches(y, x)):
        return None
    if x._host is None and x._device != cuda_get_device():
        return None
    backend = _backend_of(x)
    n = x._size
    single = x._dtype == _float32
    result = _new_like(x, (), ())
    cdef const void* px = _address_of(x)
    cdef const void* py = _address_of(y) if is_dot else NULL
    cdef void* po = <void*>_address_of(result)
    with nogil:
        if is_dot and single:
            status = gpuvec_dot_f32(backend, 1, &n, <const float*>px, &one, <const float*>py,
                                    &one, <float*>po, 0, NULL)
        elif is_dot:
            status = gpuvec_dot_f64(backend, 1, &n, <const double*>px, &one, <const double*>py,
                                    &one, <double*>po, 0, NULL)
        elif single:
            status = gpuvec_sum_f32(backend, 1, &n, <const float*>px, &one, <float*>po, 0, NULL)
        else:
            status = gpuvec_sum_f64(backend, 1, &n, <const double*>px, &one, <double*>po, 0,
                                    NULL)
    check(status)
    return result


def read_scalar(uintptr_t address, int itemsize, uintptr_t stream):
    """The float32 (itemsize 4) or float64 value at a device address, as a Python float."""
    cdef double d = 0
    cdef float f = 0
    cdef gpuvec_status status
    with nogil:
        if itemsize == 4:
            status = gpuvec_cuda_read_scalar(<const void*>address, 4, <gpuvec_stream>stream, &f)
        else:
            status = gpuvec_cuda_read_scalar(<const void*>address, 8, <gpuvec_stream>stream, &d)
    check(status)
    return f if itemsize == 4 else d


# -- strided device arrays ----------------------------------------------------------------------
#
# Views such as x[::2], x.T or x[:, 1] of device arrays take the short path
# too: the launchers take any strides, so all it needs is each array's
# strides in elements.

cdef bint _plain_device_array(object x) except -1:
    """x is a DeviceArray in device memory on the current device, default stream."""
    return (type(x) is _DeviceArray and x._host is None and x._stream is None
            and x._device == cuda_get_device())


cdef int _element_strides(object x, int64_t* out) except -1:
    """x's strides in elements into `out`; 0, or 1 when one is not a whole element."""
    cdef Py_ssize_t itemsize = x._dtype.itemsize
    cdef int d = 0
    for s in x._strides:
        if s % itemsize:
            return 1
        out[d] = s // itemsize
        d += 1
    return 0


cdef tuple _byte_range(object x):
    """The lowest and one past the highest byte address that x's elements cover."""
    cdef uintptr_t lo = <uintptr_t>x._address, hi = <uintptr_t>x._address
    for n, s in zip(x._shape, x._strides):
        if s < 0:
            lo -= <uintptr_t>((n - 1) * -s)
        else:
            hi += <uintptr_t>((n - 1) * s)
    return lo, hi + <uintptr_t>x._dtype.itemsize


cdef object _strided_output(object out, object like, tuple inputs):
    """_fast_output for strided inputs: a new C-contiguous array, or `out`
    when it matches and no input overlaps it other than as the very same view."""
    if out is None:
        return _new_like(like, like._shape, _c_strides(like._shape, like._dtype.itemsize))
    if not (_plain_device_array(out) and out._shape == like._shape
            and out._dtype == like._dtype) or out._readonly:
        return None
    lo, hi = _byte_range(out)
    for x in inputs:
        if x._address == out._address and x._strides == out._strides:
            continue  # the same view: in place is safe
        ilo, ihi = _byte_range(x)
        if ilo < hi and lo < ihi:
            return None
    return out


def fast_binary_strided(int op, a, b, out=None):
    """a (op) b for device arrays of one shape and dtype with any strides, or None."""
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef int64_t sa[GPUVEC_MAX_NDIM]
    cdef int64_t sb[GPUVEC_MAX_NDIM]
    cdef int64_t so[GPUVEC_MAX_NDIM]
    cdef int ndim, d
    cdef gpuvec_status status
    if not (_plain_device_array(a) and _plain_device_array(b)):
        return None
    if a._shape != b._shape or a._dtype != b._dtype or a._size == 0:
        return None
    ndim = len(a._shape)
    if ndim > GPUVEC_MAX_NDIM or _element_strides(a, sa) or _element_strides(b, sb):
        return None
    result = _strided_output(out, a, (a, b))
    if result is None or _element_strides(result, so):
        return None
    for d in range(ndim):
        shape[d] = a._shape[d]
    cdef bint single = a._dtype == _float32
    cdef const void* pa = <const void*><uintptr_t>a._address
    cdef const void* pb = <const void*><uintptr_t>b._address
    cdef void* po = <void*><uintptr_t>result._address
    with nogil:
        if single:
            status = gpuvec_binary_f32(GPUVEC_BACKEND_CUDA, <gpuvec_binary_op>op, ndim, shape,
                                       <const float*>pa, sa, <const float*>pb, sb,
                                       <float*>po, so, 0, NULL)
        else:
            status = gpuvec_binary_f64(GPUVEC_BACKEND_CUDA, <gpuvec_binary_op>op, ndim, shape,
                                       <const double*>pa, sa, <const double*>pb, sb,
                                       <double*>po, so, 0, NULL)
    check(status)
    return result


def fast_reduce(int op, x, axis, double ddof, double warn_at_most):
    """The reduction `op` of a device array over `axis` (None or one int), or None.

    None also when the general path has something to say: no elements to
    reduce, or rows of at most `warn_at_most` elements (a RuntimeWarning).
    The result is a new DeviceArray: 0-d for axis None.
    """
    cdef int64_t strides[GPUVEC_MAX_NDIM]
    cdef int64_t out_shape[GPUVEC_MAX_NDIM]
    cdef int64_t x_out_strides[GPUVEC_MAX_NDIM]
    cdef int64_t red_shape[GPUVEC_MAX_NDIM]
    cdef int64_t x_red_strides[GPUVEC_MAX_NDIM]
    cdef int64_t out_strides[GPUVEC_MAX_NDIM]
    cdef int ndim, d, k = -1, out_ndim = 0, red_ndim = 0
    cdef int64_t n = 1
    cdef gpuvec_status status
    if not _plain_device_array(x) or x._size == 0:
        return None
    ndim = len(x._shape)
    if ndim == 0 or ndim > GPUVEC_MAX_NDIM or _element_strides(x, strides):
        return None
    if axis is not None:
        if type(axis) is not int or not -ndim <= axis < ndim:
            return None  # the general path explains it
        k = axis % ndim
    for d in range(ndim):
        if k < 0 or d == k:
            red_shape[red_ndim] = x._shape[d]
            x_red_strides[red_ndim] = strides[d]
            n *= x._shape[d]
            red_ndim += 1
        else:
            out_shape[out_ndim] = x._shape[d]
            x_out_strides[out_ndim] = strides[d]
            out_ndim += 1
    if n <= warn_at_most:
        return None
    shape = tuple([out_shape[d] for d in range(out_ndim)])
    result = _new_like(x, shape, _c_strides(shape, x._dtype.itemsize))
    _element_strides(result, out_strides)
    cdef bint single = x._dtype == _float32
    cdef const void* px = <const void*><uintptr_t>x._address
    cdef void* po = <void*><uintptr_t>result._address
    with nogil:
        if single:
            status = gpuvec_reduce_f32(GPUVEC_BACKEND_CUDA, <gpuvec_reduce_op>op, out_ndim,
                                       out_shape, red_ndim, red_shape, <const float*>px,
                                       x_out_strides, x_red_strides, po, out_strides, ddof, 0,
                                       NULL)
        else:
            status = gpuvec_reduce_f64(GPUVEC_BACKEND_CUDA, <gpuvec_reduce_op>op, out_ndim,
                                       out_shape, red_ndim, red_shape, <const double*>px,
                                       x_out_strides, x_red_strides, po, out_strides, ddof, 0,
                                       NULL)
    check(status)
    return result
