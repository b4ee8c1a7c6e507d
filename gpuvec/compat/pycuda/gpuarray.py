"""PyCUDA's ``pycuda.gpuarray``: ``GPUArray`` and its functions, over gpuvec's DeviceArray.

A :class:`GPUArray` wraps a :class:`gpuvec.DeviceArray`: its operators and
the functions here run gpuvec's ops (on the GPU, or on the host backend without
one), and ``.gpudata`` is its memory, for a kernel's pointer parameter. It
holds gpuvec's dtypes, every real dtype (float16 included); other dtypes
raise ``TypeError``.
"""

from __future__ import annotations

import contextlib
import numbers

import numpy as np

import gpuvec
from gpuvec.compat.pycuda._dtype import checked_dtype
from gpuvec.compat.pycuda._memory import DeviceAllocation

__all__ = [
    "GPUArray",
    "arange",
    "concatenate",
    "dot",
    "empty",
    "empty_like",
    "max",
    "maximum",
    "min",
    "minimum",
    "ones_like",
    "stack",
    "sum",
    "to_gpu",
    "to_gpu_async",
    "vdot",
    "zeros",
    "zeros_like",
]


def _on(stream):
    """``with _on(stream):`` queues gpuvec's work on ``stream``, when one is given."""
    return stream if stream is not None else contextlib.nullcontext()


def _unwrap(value):
    return value._array if isinstance(value, GPUArray) else value


def _order_arg(order: str) -> str:
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    return order


class GPUArray:
    """An N-d array on the device, as PyCUDA's ``GPUArray``.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : dtype_like
        One of gpuvec's dtypes (every real dtype).
    allocator : callable, optional
        Accepted and unused: gpuvec allocates from its caching pool.
    gpudata : DeviceAllocation, optional
        Memory to use (not copied), of at least the array's size.
    order : {"C", "F"}, optional

    Raises
    ------
    TypeError
        For a dtype gpuvec does not hold.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> a_gpu = gpuarray.to_gpu(np.random.randn(4, 4).astype(np.float32))
    >>> a_doubled = (2 * a_gpu).get()
    >>> bool(np.allclose(a_doubled, 2 * a_gpu.get()))
    True
    >>> a_gpu.shape, a_gpu.dtype, a_gpu.size, a_gpu.nbytes
    ((4, 4), dtype('float32'), 16, 64)
    """

    def __init__(
        self,
        shape,
        dtype,
        allocator=None,
        base=None,
        gpudata=None,
        strides=None,
        order: str = "C",
    ):
        dtype = checked_dtype(dtype, "GPUArray")
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        if strides is not None:
            raise NotImplementedError("GPUArray(strides=...): take a view by slicing instead")
        order = _order_arg(order)
        stored = shape if order == "C" else shape[::-1]
        if gpudata is None:
            array = gpuvec.empty(stored, dtype)
        else:
            if not isinstance(gpudata, DeviceAllocation):
                raise TypeError(
                    f"gpudata must be a DeviceAllocation, got {type(gpudata).__name__}"
                )
            size = int(np.prod(stored, dtype=np.int64))
            array = gpudata.device_array(dtype, size, 0, "GPUArray(gpudata=...)")
            array = array.reshape(stored)
            self._gpudata = gpudata
        self._array = array if order == "C" else array.T
        self.base = base
        self.allocator = allocator

    @classmethod
    def _wrap(cls, array: gpuvec.DeviceArray) -> GPUArray:
        """A GPUArray over ``array`` (not copied)."""
        self = cls.__new__(cls)
        self._array = array
        self.base = None
        self.allocator = None
        return self

    # -- attributes ----------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._array.shape

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def size(self) -> int:
        return self._array.size

    @property
    def mem_size(self) -> int:
        """The number of elements, as PyCUDA names it too."""
        return self._array.size

    @property
    def nbytes(self) -> int:
        return self._array.nbytes

    @property
    def itemsize(self) -> int:
        return self._array.itemsize

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def strides(self) -> tuple[int, ...]:
        return self._array.strides

    @property
    def device_array(self) -> gpuvec.DeviceArray:
        """The :class:`gpuvec.DeviceArray` this array wraps, for gpuvec's own functions."""
        return self._array

    @property
    def gpudata(self) -> DeviceAllocation:
        """The array's memory, for a kernel's pointer parameter (or a ``memcpy``).

        Raises
        ------
        ValueError
            For a non-contiguous view: take its ``copy()``.
        """
        gpudata = getattr(self, "_gpudata", None)
        if gpudata is None:
            gpudata = self._gpudata = DeviceAllocation.of_array(self._array)
        return gpudata

    @property
    def ptr(self) -> int:
        """The address of the array's memory."""
        return int(self.gpudata)

    @property
    def T(self) -> GPUArray:
        return GPUArray._wrap(self._array.T)

    @property
    def __cuda_array_interface__(self) -> dict:
        return self._array.__cuda_array_interface__

    def __len__(self) -> int:
        return len(self._array)

    # -- to and from the host ------------------------------------------------------------------

    def get(self, ary=None, pagelocked: bool = False, async_: bool = False, stream=None):
        """The data as a NumPy array: a new one, or copied into ``ary``.

        Examples
        --------
        >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
        >>> gpuarray.to_gpu(np.arange(3.0)).get()
        array([0., 1., 2.])
        """
        data = self._array.get(stream)
        if ary is None:
            return data
        if ary.shape != data.shape or ary.dtype != data.dtype:
            raise ValueError(
                f"ary has shape {ary.shape} and dtype {ary.dtype}; the GPUArray has shape "
                f"{data.shape} and dtype {data.dtype}"
            )
        ary[...] = data
        return ary

    def get_async(self, stream=None, ary=None):
        """:meth:`get`, after the work queued on ``stream``; it finishes before returning."""
        return self.get(ary=ary, stream=stream)

    def set(self, ary, async_: bool = False, stream=None) -> None:
        """Copies the NumPy array ``ary``, of the same shape and dtype, into this array.

        Examples
        --------
        >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
        >>> a = gpuarray.empty(3, np.float64)
        >>> a.set(np.array([1.0, 2.0, 3.0]))
        >>> a.get()
        array([1., 2., 3.])
        """
        ary = np.asarray(ary)
        if ary.size != self.size or ary.dtype != self.dtype:
            raise ValueError(
                f"ary has {ary.size} elements of {ary.dtype}; the GPUArray has {self.size} "
                f"of {self.dtype}"
            )
        with _on(stream):
            self._array[...] = ary.reshape(self.shape)

    def set_async(self, ary, stream=None) -> None:
        """:meth:`set` on ``stream``."""
        self.set(ary, stream=stream)

    def __array__(self, dtype=None, copy=None):
        data = self.get()
        return data if dtype is None else data.astype(dtype, copy=False)

    # -- copies, views, filling ----------------------------------------------------------------

    def copy(self) -> GPUArray:
        """A C-contiguous copy on the device."""
        return GPUArray._wrap(self._array.copy())

    def astype(self, dtype, stream=None) -> GPUArray:
        """A copy converted to ``dtype`` (one of gpuvec's).

        Examples
        --------
        >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
        >>> gpuarray.to_gpu(np.arange(3.0)).astype(np.float32).dtype
        dtype('float32')
        """
        dtype = checked_dtype(dtype, "GPUArray.astype")
        with _on(stream):
            return GPUArray._wrap(self._array.astype(dtype))

    def fill(self, value, stream=None) -> GPUArray:
        """Sets every element to ``value``; returns self.

        Examples
        --------
        >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
        >>> gpuarray.empty(3, np.float32).fill(1.5).get()
        array([1.5, 1.5, 1.5], dtype=float32)
        """
        with _on(stream):
            self._array.fill(value)
        return self

    def reshape(self, *shape, order: str = "C") -> GPUArray:
        """A view with another shape (C order; the data must be contiguous)."""
        if _order_arg(order) != "C":
            raise NotImplementedError("reshape(order='F'): gpuvec reshapes in C order")
        return GPUArray._wrap(self._array.reshape(*shape))

    def ravel(self) -> GPUArray:
        """The elements as a 1-D array (a view where the data is contiguous)."""
        return GPUArray._wrap(self._array.ravel())

    def transpose(self, axes=None) -> GPUArray:
        """A view with the axes reversed, or in the order ``axes``."""
        return GPUArray._wrap(
            self._array.transpose() if axes is None else self._array.transpose(axes)
        )

    def __getitem__(self, key) -> GPUArray:
        return GPUArray._wrap(self._array[_unwrap(key)])

    def __setitem__(self, key, value) -> None:
        self._array[_unwrap(key)] = _unwrap(value)

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None) -> GPUArray:
        """``selffac * self + otherfac * other``, a new array."""
        with _on(stream):
            return GPUArray._wrap(selffac * self._array + otherfac * _unwrap(other))

    # -- operators -----------------------------------------------------------------------------

    def __add__(self, other):
        return GPUArray._wrap(self._array + _unwrap(other))

    def __radd__(self, other):
        return GPUArray._wrap(_unwrap(other) + self._array)

    def __sub__(self, other):
        return GPUArray._wrap(self._array - _unwrap(other))

    def __rsub__(self, other):
        return GPUArray._wrap(_unwrap(other) - self._array)

    def __mul__(self, other):
        return GPUArray._wrap(self._array * _unwrap(other))

    def __rmul__(self, other):
        return GPUArray._wrap(_unwrap(other) * self._array)

    def __truediv__(self, other):
        return GPUArray._wrap(self._array / _unwrap(other))

    def __rtruediv__(self, other):
        return GPUArray._wrap(_unwrap(other) / self._array)

    def __pow__(self, other):
        return GPUArray._wrap(self._array ** _unwrap(other))

    def __rpow__(self, other):
        return GPUArray._wrap(_unwrap(other) ** self._array)

    def __neg__(self):
        return GPUArray._wrap(-self._array)

    def __abs__(self):
        return GPUArray._wrap(abs(self._array))

    def __iadd__(self, other):
        self._array += _unwrap(other)
        return self

    def __isub__(self, other):
        self._array -= _unwrap(other)
        return self

    def __imul__(self, other):
        self._array *= _unwrap(other)
        return self

    def __itruediv__(self, other):
        self._array /= _unwrap(other)
        return self

    def __float__(self) -> float:
        return float(self._array)

    def __repr__(self) -> str:
        return f"GPUArray({self.get()!r})"

    def __str__(self) -> str:
        return str(self.get())


def to_gpu(ary, allocator=None) -> GPUArray:
    """A GPUArray holding a copy of the NumPy array ``ary``, in its dtype.

    Raises
    ------
    TypeError
        For data of a dtype gpuvec does not hold (int32, complex64, ...).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.to_gpu(np.ones(3, np.float32)).dtype
    dtype('float32')
    """
    ary = np.asarray(ary)
    dtype = checked_dtype(ary.dtype, "gpuarray.to_gpu")
    # bool data stays bool without a dtype; a float dtype is given, so that no
    # precision setting can change it.
    return GPUArray._wrap(gpuvec.to_device(ary, None if dtype == np.bool_ else dtype))


def to_gpu_async(ary, allocator=None, stream=None) -> GPUArray:
    """:func:`to_gpu` on ``stream``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> import gpuvec.compat.pycuda.driver as drv
    >>> s = drv.Stream()
    >>> a = gpuarray.to_gpu_async(np.arange(3.0), stream=s)
    >>> s.synchronize()
    >>> a.get()
    array([0., 1., 2.])
    """
    with _on(stream):
        return to_gpu(ary, allocator)


def empty(shape, dtype=np.float64, allocator=None, order: str = "C") -> GPUArray:
    """A new GPUArray whose values are undefined.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.empty((2, 3), np.float32).shape
    (2, 3)
    """
    return GPUArray(shape, dtype, allocator, order=order)


def zeros(shape, dtype=np.float64, allocator=None, order: str = "C") -> GPUArray:
    """A new GPUArray of zeros.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.zeros(3, np.float32).get()
    array([0., 0., 0.], dtype=float32)
    """
    return empty(shape, dtype, allocator, order).fill(0)


def _like(other, dtype):
    dtype = other.dtype if dtype is None else dtype
    order = "F" if other.ndim > 1 and other.strides[0] < other.strides[-1] else "C"
    return other.shape, dtype, order


def empty_like(other_ary, dtype=None, order: str = "K") -> GPUArray:
    """A new GPUArray of ``other_ary``'s shape and (by default) dtype, values undefined.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.empty_like(gpuarray.zeros((2, 3), np.float32)).shape
    (2, 3)
    """
    shape, dtype, like_order = _like(other_ary, dtype)
    return empty(shape, dtype, order=like_order if order in ("K", "A") else order)


def zeros_like(other_ary, dtype=None, order: str = "K") -> GPUArray:
    """Zeros of ``other_ary``'s shape and (by default) dtype.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.zeros_like(gpuarray.to_gpu(np.ones(2))).get()
    array([0., 0.])
    """
    return empty_like(other_ary, dtype, order).fill(0)


def ones_like(other_ary, dtype=None, order: str = "K") -> GPUArray:
    """Ones of ``other_ary``'s shape and (by default) dtype.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.ones_like(gpuarray.zeros(2, np.float32)).get()
    array([1., 1.], dtype=float32)
    """
    return empty_like(other_ary, dtype, order).fill(1)


def arange(*args, dtype=None, allocator=None) -> GPUArray:
    """Evenly spaced values, as :func:`numpy.arange` gives them (and in its dtype).

    Raises
    ------
    TypeError
        Where the dtype is not gpuvec's: ``arange(10)`` is int64 in NumPy,
        ``arange(10, dtype=np.float32)`` is float32.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.arange(0, 1, 0.25, dtype=np.float32).get()
    array([0.  , 0.25, 0.5 , 0.75], dtype=float32)
    """
    return to_gpu(np.arange(*args, dtype=dtype))


# sum, max and min are PyCUDA's names, over the builtins in this module (which
# uses none of them).


def sum(a, dtype=None, stream=None) -> GPUArray:
    """The sum of all elements, a 0-d GPUArray (``.get()`` brings it over).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.sum(gpuarray.to_gpu(np.arange(4.0))).get()
    array(6.)
    """
    with _on(stream):
        return GPUArray._wrap(gpuvec.sum(_unwrap(a), dtype=dtype))


def dot(a, b, dtype=None, stream=None) -> GPUArray:
    """The sum of ``a * b`` over all elements (arrays of one shape), a 0-d GPUArray.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> x = gpuarray.to_gpu(np.array([1.0, 2.0, 3.0]))
    >>> float(gpuarray.dot(x, x).get())
    14.0
    """
    a, b = _unwrap(a), _unwrap(b)
    if a.shape != b.shape:
        raise ValueError(f"dot: the arrays have shapes {a.shape} and {b.shape}; they must match")
    with _on(stream):
        result = gpuvec.dot(a.ravel(), b.ravel())
    if dtype is not None:
        result = result.astype(checked_dtype(dtype, "gpuarray.dot"))
    return GPUArray._wrap(result)


def vdot(a, b, dtype=None, stream=None) -> GPUArray:
    """:func:`dot`: for real data, the same.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> x = gpuarray.to_gpu(np.array([1.0, 2.0]))
    >>> float(gpuarray.vdot(x, x).get())
    5.0
    """
    return dot(a, b, dtype, stream)


def max(a, stream=None) -> GPUArray:
    """The largest element, a 0-d GPUArray.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.max(gpuarray.to_gpu(np.array([3.0, 7.0, 5.0]))).get()
    array(7.)
    """
    with _on(stream):
        return GPUArray._wrap(gpuvec.max(_unwrap(a)))


def min(a, stream=None) -> GPUArray:
    """The smallest element, a 0-d GPUArray.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.min(gpuarray.to_gpu(np.array([3.0, 7.0, 5.0]))).get()
    array(3.)
    """
    with _on(stream):
        return GPUArray._wrap(gpuvec.min(_unwrap(a)))


def maximum(a, b, out=None, stream=None) -> GPUArray:
    """The elementwise maximum of ``a`` and ``b`` (arrays or numbers).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.maximum(gpuarray.to_gpu(np.array([1.0, 5.0])), 2.0).get()
    array([2., 5.])
    """
    with _on(stream):
        result = gpuvec.maximum(_unwrap(a), _unwrap(b), out=_unwrap(out))
    return out if out is not None else GPUArray._wrap(result)


def minimum(a, b, out=None, stream=None) -> GPUArray:
    """The elementwise minimum of ``a`` and ``b`` (arrays or numbers).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> gpuarray.minimum(gpuarray.to_gpu(np.array([1.0, 5.0])), 2.0).get()
    array([1., 2.])
    """
    with _on(stream):
        result = gpuvec.minimum(_unwrap(a), _unwrap(b), out=_unwrap(out))
    return out if out is not None else GPUArray._wrap(result)


def concatenate(arrays, axis: int = 0, allocator=None) -> GPUArray:
    """The arrays joined along ``axis``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> x = gpuarray.to_gpu(np.array([1.0, 2.0]))
    >>> gpuarray.concatenate([x, 2 * x]).get()
    array([1., 2., 2., 4.])
    """
    return GPUArray._wrap(gpuvec.concatenate([_unwrap(a) for a in arrays], axis=axis))


def stack(arrays, axis: int = 0, allocator=None) -> GPUArray:
    """The arrays stacked along a new ``axis``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> x = gpuarray.to_gpu(np.array([1.0, 2.0]))
    >>> gpuarray.stack([x, 2 * x]).get()
    array([[1., 2.],
           [2., 4.]])
    """
    return GPUArray._wrap(gpuvec.stack([_unwrap(a) for a in arrays], axis=axis))
