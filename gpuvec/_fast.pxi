# The short path for the commonest call on device data: an op on C-contiguous
# DeviceArrays of one dtype and shape (on either backend), on the current
# device and the default stream, writing a new array or an out= that matches.
# It skips the general validation (which gives the same answer for such
# inputs) so that a small op costs little more than its launch: it reads the
# arrays' fields as C struct members (ArrayFields), asks CUDA for the current
# device directly, and compares dtypes by identity first. Each function
# returns None when its inputs do not qualify; the caller then takes the
# general path.

from libc.stdint cimport int64_t, uintptr_t

import numpy as np

cdef object _DeviceArray = None  # gpuvec.DeviceArray, registered by its module
cdef object _float32 = None  # numpy.dtype("float32")
cdef object _c_strides = None  # gpuvec.device_array._c_strides: C-order byte strides


def register_device_array(cls, float32, c_strides):
    """Tells the short path which class DeviceArray is, and its C-strides
    helper (a cycle-free import)."""
    global _DeviceArray, _float32, _c_strides
    _DeviceArray = cls
    _float32 = float32
    _c_strides = c_strides


# Each helper below takes ArrayFields, so that every field it reads is a C
# struct member. Callers check `type(x) is _DeviceArray` before the cast.

cdef inline bint _qualifies(object x) except -1:
    """x is a C-contiguous DeviceArray on the default stream."""
    if type(x) is not _DeviceArray:
        return False
    cdef ArrayFields f = <ArrayFields>x
    return f._contiguous and f._stream is None


cdef inline bint _same_dtype(ArrayFields x, ArrayFields y) except -1:
    # NumPy's float32 and float64 dtypes are singletons, so identity almost
    # always answers; == covers equal dtypes that are distinct objects.
    return x._dtype is y._dtype or x._dtype == y._dtype


cdef inline bint _holds_float32(ArrayFields x) except -1:
    return x._dtype is _float32 or x._dtype == _float32


cdef inline Py_ssize_t _element_size(ArrayFields x) except -1:
    return 4 if _holds_float32(x) else 8  # a DeviceArray holds float32 or float64


cdef inline int _current_device() except -1:
    cdef int device = 0
    check(gpuvec_cuda_get_device(&device))
    return device


cdef inline bint _on_current_device(ArrayFields x) except -1:
    """x is host-backend data, or device memory of the current device."""
    return x._host is not None or x._device == _current_device()


cdef const void* _address_of(ArrayFields x) except? NULL:
    """Element 0 of a qualifying array, in device or (host backend) host memory."""
    if x._host is None:
        return <const void*>x._address
    return _data_address(x._host, False)


cdef object _new_like(ArrayFields x, tuple shape, tuple strides):
    """A new C-contiguous DeviceArray of x's dtype, device and backend."""
    cdef ArrayFields r = ArrayFields.__new__(_DeviceArray)
    cdef Py_ssize_t size = 1
    for n in shape:
        size *= n
    if x._host is not None:
        r._host = np.empty(shape, x._dtype)
        r._owner = None
        r._address = 0
    elif not shape:  # a reduction's result: written by the GPU straight into host memory
        slot = ResultSlot(0, None)
        r._host = None
        r._owner = slot
        r._address = <uintptr_t>(<ResultSlot>slot).ptr
    else:
        buffer = DeviceBuffer(size * _element_size(x), 0, None)
        r._host = None
        r._owner = buffer
        r._address = <uintptr_t>(<DeviceBuffer>buffer).ptr
    r._shape = shape
    r._strides = strides
    r._dtype = x._dtype
    r._device = x._device
    r._stream = None
    r._readonly = False
    r._contiguous = True
    r._size = size
    return r


cdef inline bint _matches(object x, ArrayFields like) except -1:
    """x qualifies and has like's shape, dtype and backend (and device)."""
    if not _qualifies(x):
        return False
    cdef ArrayFields f = <ArrayFields>x
    return (f._shape == like._shape and _same_dtype(f, like)
            and (f._host is None) == (like._host is None)
            and (f._host is not None or f._device == like._device))


cdef inline bint _overlaps_partly(ArrayFields x, uintptr_t lo, uintptr_t hi) except -1:
    """x's memory overlaps [lo, hi) without starting at lo (being the same array)."""
    cdef uintptr_t xlo = <uintptr_t>_address_of(x)
    cdef uintptr_t xhi = xlo + <uintptr_t>(x._size * _element_size(x))
    return xlo != lo and xlo < hi and lo < xhi


cdef object _fast_output(object out, ArrayFields like, ArrayFields other):
    """The array a short-path op on `like` (and `other`, or None) writes: a new
    one, or `out` when it may be written directly (it matches, is writable,
    and each input is either the very same memory or none of it). None: take
    the general path."""
    cdef ArrayFields f
    cdef uintptr_t lo, hi
    if not _on_current_device(like):
        return None
    if out is None:
        return _new_like(like, like._shape, like._strides)
    if not _matches(out, like):
        return None
    f = <ArrayFields>out
    if f._readonly:
        return None
    lo = <uintptr_t>_address_of(f)
    hi = lo + <uintptr_t>(f._size * _element_size(f))
    if _overlaps_partly(like, lo, hi) or (other is not None and _overlaps_partly(other, lo, hi)):
        return None  # a partial overlap needs the general path's temporary
    return out


cdef inline gpuvec_backend _backend_of(ArrayFields x):
    return GPUVEC_BACKEND_HOST if x._host is not None else GPUVEC_BACKEND_CUDA


def fast_binary(int op, a, b, out=None):
    """a (op) b (into out), or None when the short path does not apply."""
    cdef int64_t n
    cdef int64_t one = 1
    cdef gpuvec_status status
    if not (_qualifies(a) and _matches(b, <ArrayFields>a)):
        return None
    cdef ArrayFields fa = <ArrayFields>a, fb = <ArrayFields>b
    result = _fast_output(out, fa, fb)
    if result is None:
        return None
    cdef gpuvec_backend backend = _backend_of(fa)
    cdef bint single = _holds_float32(fa)
    cdef const void* pa = _address_of(fa)
    cdef const void* pb = _address_of(fb)
    cdef void* po = <void*>_address_of(<ArrayFields>result)
    n = fa._size
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
    cdef ArrayFields fx = <ArrayFields>x
    result = _fast_output(out, fx, None)
    if result is None:
        return None
    cdef gpuvec_backend backend = _backend_of(fx)
    cdef bint single = _holds_float32(fx)
    cdef const void* px = _address_of(fx)
    cdef void* po = <void*>_address_of(<ArrayFields>result)
    n = fx._size
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
    if not (_qualifies(x) and _matches(y, <ArrayFields>x)):
        return None
    cdef ArrayFields fx = <ArrayFields>x, fy = <ArrayFields>y
    result = _fast_output(out, fx, fy)
    if result is None:
        return None
    cdef gpuvec_backend backend = _backend_of(fx)
    cdef bint single = _holds_float32(fx)
    cdef const void* px = _address_of(fx)
    cdef const void* py = _address_of(fy)
    cdef void* po = <void*>_address_of(<ArrayFields>result)
    n = fx._size
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
    cdef bint is_dot = y is not None
    if not _qualifies(x) or (is_dot and not _matches(y, <ArrayFields>x)):
        return None
    cdef ArrayFields fx = <ArrayFields>x
    if not _on_current_device(fx):
        return None
    cdef gpuvec_backend backend = _backend_of(fx)
    cdef bint single = _holds_float32(fx)
    result = _new_like(fx, (), ())
    cdef const void* px = _address_of(fx)
    cdef const void* py = _address_of(<ArrayFields>y) if is_dot else NULL
    cdef void* po = <void*>_address_of(<ArrayFields>result)
    n = fx._size
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
    if type(x) is not _DeviceArray:
        return False
    cdef ArrayFields f = <ArrayFields>x
    return f._host is None and f._stream is None and _on_current_device(f)


cdef int _element_strides(ArrayFields x, int64_t* out) except -1:
    """x's strides in elements into `out`; 0, or 1 when one is not a whole element."""
    cdef Py_ssize_t itemsize = _element_size(x)
    cdef Py_ssize_t s
    cdef int d = 0
    for stride in x._strides:
        s = stride
        if s % itemsize:
            return 1
        out[d] = s // itemsize
        d += 1
    return 0


cdef tuple _byte_range(ArrayFields x):
    """The lowest and one past the highest byte address that x's elements cover."""
    cdef uintptr_t lo = x._address, hi = x._address
    for n, s in zip(x._shape, x._strides):
        if s < 0:
            lo -= <uintptr_t>((n - 1) * -s)
        else:
            hi += <uintptr_t>((n - 1) * s)
    return lo, hi + <uintptr_t>_element_size(x)


cdef object _strided_output(object out, ArrayFields like, ArrayFields other):
    """_fast_output for strided inputs: a new C-contiguous array, or `out`
    when it matches and no input overlaps it other than as the very same view."""
    cdef ArrayFields f
    if out is None:
        return _new_like(like, like._shape, _c_strides(like._shape, _element_size(like)))
    if not _plain_device_array(out):
        return None
    f = <ArrayFields>out
    if f._shape != like._shape or not _same_dtype(f, like) or f._readonly:
        return None
    lo, hi = _byte_range(f)
    for x in (like, other):
        if (<ArrayFields>x)._address == f._address and (<ArrayFields>x)._strides == f._strides:
            continue  # the same view: in place is safe
        ilo, ihi = _byte_range(<ArrayFields>x)
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
    cdef ArrayFields fa = <ArrayFields>a, fb = <ArrayFields>b
    if fa._shape != fb._shape or not _same_dtype(fa, fb) or fa._size == 0:
        return None
    ndim = len(fa._shape)
    if ndim > GPUVEC_MAX_NDIM or _element_strides(fa, sa) or _element_strides(fb, sb):
        return None
    result = _strided_output(out, fa, fb)
    if result is None or _element_strides(<ArrayFields>result, so):
        return None
    for d in range(ndim):
        shape[d] = fa._shape[d]
    cdef bint single = _holds_float32(fa)
    cdef const void* pa = <const void*>fa._address
    cdef const void* pb = <const void*>fb._address
    cdef void* po = <void*>(<ArrayFields>result)._address
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
    if not _plain_device_array(x):
        return None
    cdef ArrayFields fx = <ArrayFields>x
    if fx._size == 0:
        return None
    ndim = len(fx._shape)
    if ndim == 0 or ndim > GPUVEC_MAX_NDIM or _element_strides(fx, strides):
        return None
    if axis is not None:
        if type(axis) is not int or not -ndim <= axis < ndim:
            return None  # the general path explains it
        k = axis % ndim
    for d in range(ndim):
        if k < 0 or d == k:
            red_shape[red_ndim] = fx._shape[d]
            x_red_strides[red_ndim] = strides[d]
            n *= fx._shape[d]
            red_ndim += 1
        else:
            out_shape[out_ndim] = fx._shape[d]
            x_out_strides[out_ndim] = strides[d]
            out_ndim += 1
    if n <= warn_at_most:
        return None
    shape = tuple([out_shape[d] for d in range(out_ndim)])
    result = _new_like(fx, shape, _c_strides(shape, _element_size(fx)))
    _element_strides(<ArrayFields>result, out_strides)
    cdef bint single = _holds_float32(fx)
    cdef const void* px = <const void*>fx._address
    cdef void* po = <void*>(<ArrayFields>result)._address
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
