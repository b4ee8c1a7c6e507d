"""Making DeviceArrays: from host data, from other GPU libraries, or filled."""

from __future__ import annotations

import contextlib
import math
import numbers
import operator
import sys

import numpy as np

from gpuvec import _backend, _core
from gpuvec._dtypes import ARRAY_DTYPE_NAMES as _DTYPE_NAMES
from gpuvec._dtypes import ARRAY_DTYPES, check_array_dtype
from gpuvec.device_array import DeviceArray, _c_strides
from gpuvec.streams import Stream, stream_handle

__all__ = [
    "arange",
    "asarray",
    "asnumpy",
    "empty",
    "empty_like",
    "from_dlpack",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "to_device",
    "zeros",
    "zeros_like",
]


def _shape_arg(shape) -> tuple[int, ...]:
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _dtype_arg(dtype) -> np.dtype:
    return check_array_dtype(np.float64 if dtype is None else dtype)


def _check_size(shape: tuple[int, ...], dtype: np.dtype) -> None:
    """NumPy's ValueError for a shape whose byte size no address can span.

    As NumPy counts it: the extents other than 0 times the item size must fit
    in a signed 64-bit size (so ``(0, 2**62)`` of float64 is too big as well).
    """
    if any(n > sys.maxsize for n in shape):
        raise ValueError(f"Maximum allowed dimension exceeded: shape {shape}")
    nbytes = math.prod(n for n in shape if n) * dtype.itemsize
    if nbytes > sys.maxsize:
        raise ValueError(
            f"array is too big: shape {shape} of {dtype} would take {nbytes} bytes, more "
            f"than the largest possible size ({sys.maxsize} bytes)"
        )


def empty(shape, dtype=np.float64, *, stream: Stream | None = None) -> DeviceArray:
    """A new C-contiguous array whose values are undefined.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.empty((2, 3), dtype="float32").shape
    (2, 3)
    """
    shape, dtype = _shape_arg(shape), _dtype_arg(dtype)
    _check_size(shape, dtype)
    return _core.new_array(shape, dtype, stream)


def full(shape, fill_value, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """A new array with every element ``fill_value``.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.full(3, 7.5).to_host()
    array([7.5, 7.5, 7.5])
    >>> gpuvec.full(2, True).dtype  # a bool fills a bool array, as in NumPy
    dtype('bool')
    """
    if dtype is None and isinstance(fill_value, (bool, np.bool_)):
        dtype = np.bool_
    elif dtype is None and isinstance(fill_value, (complex, np.complexfloating)):
        dtype = np.result_type(fill_value)  # complex128 for a Python complex, as NumPy's
    dtype = _dtype_arg(dtype)
    result = empty(shape, dtype, stream=stream)
    if result.size:
        value = np.asarray(fill_value, dtype)[()]
        if dtype.kind in "iu" and float(value) != int(value):
            # A fill's number travels as a double: one beyond its 53 bits comes
            # from a one-element array instead, broadcast.
            value = to_device(np.asarray(value, dtype), stream=stream)
        _core.copy_into(result, value)
    return result


def zeros(shape, dtype=np.float64, *, stream: Stream | None = None) -> DeviceArray:
    """A new array of zeros (see :func:`full`).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.zeros(2).to_host()
    array([0., 0.])
    """
    return full(shape, 0.0, dtype, stream=stream)


def ones(shape, dtype=np.float64, *, stream: Stream | None = None) -> DeviceArray:
    """A new array of ones (see :func:`full`).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.ones(2, dtype="float32").to_host()
    array([1., 1.], dtype=float32)
    """
    return full(shape, 1.0, dtype, stream=stream)


def arange(start, stop=None, step=1, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """Evenly spaced values, like :func:`numpy.arange` (made on the host, then copied).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.arange(1, 7, 2).to_host()
    array([1, 3, 5])
    >>> gpuvec.arange(0, 1, 0.25).to_host()
    array([0.  , 0.25, 0.5 , 0.75])
    """
    dtype = None if dtype is None else check_array_dtype(dtype)
    return to_device(np.arange(start, stop, step, dtype=dtype), stream=stream)


def empty_like(a, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """An uninitialized array with the shape and (by default) dtype of ``a``,
    on ``a``'s device when ``a`` is a DeviceArray (as for every ``*_like``)."""
    with _device_of(a):
        return empty(
            np.shape(a) if not hasattr(a, "shape") else a.shape,
            dtype or _like_dtype(a),
            stream=stream,
        )


def zeros_like(a, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """Zeros with the shape and (by default) dtype of ``a``.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.zeros_like(gpuvec.ones((2, 2), dtype="float32")).dtype
    dtype('float32')
    """
    with _device_of(a):
        return full(a.shape, 0.0, dtype or _like_dtype(a), stream=stream)


def ones_like(a, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """Ones with the shape and (by default) dtype of ``a``."""
    with _device_of(a):
        return full(a.shape, 1.0, dtype or _like_dtype(a), stream=stream)


def full_like(a, fill_value, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """``fill_value`` everywhere, with the shape and (by default) dtype of ``a``."""
    with _device_of(a):
        return full(a.shape, fill_value, dtype or _like_dtype(a), stream=stream)


def _device_of(a):
    """Where a ``*_like`` array is made: on the prototype's device for a
    DeviceArray, as in NumPy's sense of "like" and in CuPy and PyTorch;
    else on the current one."""
    return a.device if isinstance(a, DeviceArray) else contextlib.nullcontext()


def _like_dtype(a) -> np.dtype:
    dtype = np.dtype(a.dtype)
    return dtype if dtype in ARRAY_DTYPES else np.dtype(np.float64)


def to_device(x, dtype=None, *, stream: Stream | None = None) -> DeviceArray:
    """Copies host data to the device.

    Parameters
    ----------
    x : array_like
        Anything NumPy can turn into a real array.
    dtype : dtype, optional
        The device array's dtype (any real dtype, float16 included); by
        default ``x``'s own (for floats the precision's, where one is set:
        :func:`gpuvec.set_precision`), and float64 for what NumPy makes of a
        list of Python numbers.
    stream : gpuvec.Stream, optional
        The stream to copy on.

    Returns
    -------
    DeviceArray
        A C-contiguous copy of ``x``.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> d = gpuvec.to_device(np.arange(4, dtype=np.float32))
    >>> d.dtype, d.shape
    (dtype('float32'), (4,))
    """
    if isinstance(x, DeviceArray):
        return x if dtype is None or np.dtype(dtype) == x.dtype else x.astype(dtype)
    # The upload gathers strided data into C order and converts the dtype in
    # the one pass that copies it to pinned memory.
    return _core.to_device(x, dtype, stream)


def _from_cuda_array_interface(obj) -> DeviceArray:
    cai = obj.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    if dtype not in ARRAY_DTYPES:
        raise TypeError(f"the array has dtype {dtype}; gpuvec holds {_DTYPE_NAMES}")
    if cai.get("mask") is not None:
        raise TypeError("masked arrays are not supported")
    shape = tuple(cai["shape"])
    strides = cai.get("strides") or _c_strides(shape, dtype.itemsize)
    address, readonly = cai["data"]
    stream = cai.get("stream")
    if stream is not None:
        # The producer may still be writing on its stream: wait for it.
        _core.stream_synchronize(0 if stream == 1 else stream)
    return DeviceArray._from_device_memory(
        obj, address, shape, strides, dtype, _core.cuda_get_device(), None, bool(readonly)
    )


def from_dlpack(obj) -> DeviceArray:
    """Shares an array of another library through DLPack, without copying.

    ``obj`` must be in GPU memory on the cuda backend (a CuPy array, a
    PyTorch CUDA tensor, ...) and in host memory on the host backend.

    Examples
    --------
    >>> import gpuvec
    >>> d = gpuvec.ones(3)
    >>> e = gpuvec.from_dlpack(d)  # shares d's memory
    >>> e += 1
    >>> d.to_host()
    array([2., 2., 2.])
    """
    if _backend.backend() == "host":
        array = np.from_dlpack(obj)
        if array.dtype not in ARRAY_DTYPES:
            raise TypeError(f"the array has dtype {array.dtype}; gpuvec holds {_DTYPE_NAMES}")
        return DeviceArray._from_host_array(array)
    device_type, _ = obj.__dlpack_device__()
    if device_type != _core.DLPACK_CUDA:
        raise TypeError(
            "the object is not in GPU memory (DLPack device type "
            f"{device_type}); copy host data with gpuvec.to_device"
        )
    capsule = obj.__dlpack__(stream=stream_handle() or 1)
    owner, address, shape, strides, (code, bits, lanes), (_, device_id) = (
        _core.from_dlpack_capsule(capsule)
    )
    dtype = _DLPACK_DTYPES.get((code, bits, lanes))
    if dtype is None:
        raise TypeError(
            f"the array's DLPack dtype (code {code}, {bits} bits, {lanes} lanes) is none of "
            f"gpuvec's: {_DTYPE_NAMES}"
        )
    itemsize = bits // 8
    strides = (
        _c_strides(shape, itemsize) if strides is None else tuple(s * itemsize for s in strides)
    )
    return DeviceArray._from_device_memory(owner, address, shape, strides, dtype, device_id)


# The DLPack dtypes gpuvec takes: (code, bits, lanes) -> NumPy dtype.
_DLPACK_KINDS = {
    "f": _core.DLPACK_FLOAT,
    "i": _core.DLPACK_INT,
    "u": _core.DLPACK_UINT,
    "c": _core.DLPACK_COMPLEX,
}
_DLPACK_DTYPES = {
    (_DLPACK_KINDS.get(dtype.kind, _core.DLPACK_BOOL), 8 * dtype.itemsize, 1): dtype
    for dtype in ARRAY_DTYPES
}


def asarray(obj, dtype=None) -> DeviceArray:
    """``obj`` as a DeviceArray: shared without a copy where it is already on the GPU.

    Objects with ``__cuda_array_interface__`` (CuPy, PyTorch, Numba, PyCUDA)
    or a CUDA ``__dlpack__`` are wrapped, strided or not; host data is copied
    to the device.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.asarray([1.0, 2.0]).to_host()
    array([1., 2.])
    """
    if isinstance(obj, DeviceArray):
        result = obj
    elif isinstance(obj, np.ndarray) or not _core.on_gpu(obj):
        return to_device(obj, dtype)
    elif _backend.backend() == "host":
        raise TypeError(
            "this object's memory is on a GPU, but gpuvec runs on the host backend; "
            "copy it to the host first"
        )
    elif hasattr(obj, "__cuda_array_interface__"):
        result = _from_cuda_array_interface(obj)
    else:
        result = from_dlpack(obj)
    return result if dtype is None or np.dtype(dtype) == result.dtype else result.astype(dtype)


def asnumpy(x) -> np.ndarray:
    """``x`` as a NumPy array: a DeviceArray is copied to the host.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.asnumpy(gpuvec.arange(3))
    array([0, 1, 2])
    """
    return x.to_host() if isinstance(x, DeviceArray) else np.asarray(x)


_core.register_device_array(DeviceArray, asarray)
