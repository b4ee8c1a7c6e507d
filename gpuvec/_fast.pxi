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


def register_device_array(cls, float32):
    """Tells the short path which class DeviceArray is (a cycle-free import)."""
    global _DeviceArray, _float32
    _DeviceArray = cls
    _float32 = float32


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
    """A new DeviceArray of x's dtype, device and backend, C-contiguous."""
    cdef object r
    cdef DeviceBuffer buffer
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
        buffer = DeviceBuffer(x._size * x._dtype.itemsize, 0, None)
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
    r._size = x._size if shape else 1
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
