"""Joining and reshaping arrays: concatenate, stack, expand_dims, squeeze, broadcast_to.

DeviceArrays stay on their device: :func:`concatenate` and :func:`stack`
allocate the result there and copy each part into a slice of it, device to
device; the other three return views, as NumPy's functions do. NumPy input
gives NumPy output.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.exceptions import AxisError

from gpuvec import _core
from gpuvec._dtypes import ARRAY_DTYPES, as_real_array, check_array_dtype, result_dtype
from gpuvec.creation import empty
from gpuvec.device_array import DeviceArray

__all__ = ["broadcast_to", "concatenate", "expand_dims", "squeeze", "stack"]


def _axis(axis, ndim: int) -> int:
    """axis in ``range(ndim)``, counted from the end when negative; NumPy's AxisError."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def _axes(axis, ndim: int) -> tuple[int, ...]:
    """An int or a tuple of ints as axes in ``range(ndim)``, with NumPy's errors."""
    axes = tuple(_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    return axes


def _parts(arrays) -> list:
    """The arrays to join: all DeviceArrays, or all host data as NumPy arrays.

    A NumPy array among DeviceArrays is refused, as by every op: joining
    them would copy it to the device behind the caller's back.
    """
    parts = list(arrays)
    if not any(isinstance(p, DeviceArray) for p in parts):
        return [as_real_array(p, f"arrays[{k}]") for k, p in enumerate(parts)]
    for k, p in enumerate(parts):
        if not isinstance(p, DeviceArray):
            raise TypeError(
                f"arrays[{k}] ({type(p).__name__}) is in host memory, but the other arrays "
                "are on the device: copy it there with gpuvec.to_device first"
            )
    return parts


def _joined_dtype(parts, dtype) -> np.dtype:
    """NumPy's promotion of the parts' dtypes, within gpuvec's (ints become float64)."""
    if dtype is not None:
        return check_array_dtype(dtype)
    common = np.result_type(*(p.dtype for p in parts))
    return common if common in ARRAY_DTYPES else result_dtype(common)


def concatenate(arrays, axis=0, *, dtype=None):
    """Join arrays along an existing axis, like :func:`numpy.concatenate`.

    Parameters
    ----------
    arrays : sequence of DeviceArray, or of array_like
        The arrays, of one number of dimensions and the same shape except
        along ``axis``: all DeviceArrays (on one device), or all host data.
    axis : int or None, optional
        The axis to join along (negative counts from the end); None joins
        the flattened arrays.
    dtype : {numpy.float32, numpy.float64, bool}, optional
        The result's dtype; by default NumPy's promotion of the inputs'
        (float32 with float64 gives float64, bool with bool gives bool;
        integer host data gives float64).

    Returns
    -------
    DeviceArray or numpy.ndarray
        A new C-contiguous array: on the inputs' device for DeviceArrays,
        which are copied device to device, converting dtypes on the way.

    Raises
    ------
    ValueError
        No arrays, 0-d arrays, or shapes that do not fit, with NumPy's messages.
    numpy.exceptions.AxisError
        ``axis`` out of range.
    TypeError
        Host data mixed with DeviceArrays.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> a = gpuvec.to_device(np.array([[1.0, 2.0]]))
    >>> b = gpuvec.to_device(np.array([[3.0, 4.0]], dtype=np.float32))
    >>> gpuvec.concatenate([a, b])
    DeviceArray([[1., 2.],
                 [3., 4.]], dtype=float64)
    >>> gpuvec.concatenate([a, b], axis=1).shape
    (1, 4)
    >>> gpuvec.concatenate([np.ones(2), np.zeros(1)])
    array([1., 1., 0.])
    """
    parts = _parts(arrays)
    if not parts:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        parts, axis = [p.ravel() for p in parts], 0
    first = parts[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _axis(axis, first.ndim)
    for k, part in enumerate(parts[1:], 1):
        if part.ndim != first.ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at "
                f"index 0 has {first.ndim} dimension(s) and the array at index {k} has "
                f"{part.ndim} dimension(s)"
            )
        for d, (n, m) in enumerate(zip(first.shape, part.shape, strict=True)):
            if d != axis and n != m:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size "
                    f"{n} and the array at index {k} has size {m}"
                )
    shape = list(first.shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    dtype = _joined_dtype(parts, dtype)
    if isinstance(first, DeviceArray):
        with first.device:  # the result lives where the parts do
            result = empty(shape, dtype, stream=first._stream)
    else:
        result = np.empty(shape, dtype)
    start, lead = 0, (slice(None),) * axis
    for part in parts:
        stop = start + part.shape[axis]
        # A slice of the result is a view: the copy goes straight into place.
        _core.copy_into(result[(*lead, slice(start, stop))], part)
        start = stop
    return result


def stack(arrays, axis=0, *, dtype=None):
    """Join arrays of one shape along a new axis, like :func:`numpy.stack`.

    Parameters
    ----------
    arrays : sequence of DeviceArray, or of array_like
        The arrays, all of one shape: all DeviceArrays, or all host data.
    axis : int, optional
        The index of the new axis in the result (negative counts from the end).
    dtype : {numpy.float32, numpy.float64, bool}, optional
        As for :func:`concatenate`.

    Returns
    -------
    DeviceArray or numpy.ndarray
        A new array with one more dimension than the inputs.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> a, b = gpuvec.to_device(np.array([1.0, 2.0])), gpuvec.to_device(np.array([3.0, 4.0]))
    >>> gpuvec.stack([a, b], axis=1)
    DeviceArray([[1., 3.],
                 [2., 4.]], dtype=float64)
    """
    parts = _parts(arrays)
    if not parts:
        raise ValueError("need at least one array to stack")
    if len({p.shape for p in parts}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = _axis(axis, parts[0].ndim + 1)
    return concatenate([expand_dims(p, axis) for p in parts], axis, dtype=dtype)


def expand_dims(a, axis):
    """A view with new axes of length 1 at ``axis``, like :func:`numpy.expand_dims`.

    Parameters
    ----------
    a : DeviceArray or array_like
        The array.
    axis : int or tuple of ints
        Where the new axes are in the result.

    Returns
    -------
    DeviceArray or numpy.ndarray
        A view of ``a`` (no copy).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.expand_dims(gpuvec.ones((2, 3)), (0, -1)).shape
    (1, 2, 3, 1)
    """
    if not isinstance(a, DeviceArray):
        return np.expand_dims(a, axis)
    count = len(axis) if isinstance(axis, (tuple, list)) else 1
    new = _axes(axis, a.ndim + count)
    # Indexing with None inserts an axis there; the slices keep a's axes.
    return a[tuple(None if d in new else slice(None) for d in range(a.ndim + count))]


def squeeze(a, axis=None):
    """A view without axes of length 1, like :func:`numpy.squeeze`.

    Parameters
    ----------
    a : DeviceArray or array_like
        The array.
    axis : None or int or tuple of ints, optional
        The axes to remove, each of length 1; None removes every axis of length 1.

    Returns
    -------
    DeviceArray or numpy.ndarray
        A view of ``a`` (no copy).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.squeeze(gpuvec.ones((1, 3, 1))).shape
    (3,)
    """
    if not isinstance(a, DeviceArray):
        return np.squeeze(a, axis)
    if axis is None:
        gone = tuple(d for d, n in enumerate(a.shape) if n == 1)
    else:
        gone = _axes(axis, a.ndim)
        if any(a.shape[d] != 1 for d in gone):
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one"
            )
    # Index 0 drops an axis; the slices keep the others.
    return a[tuple(0 if d in gone else slice(None) for d in range(a.ndim))]


def broadcast_to(array, shape):
    """A read-only view of ``array`` broadcast to ``shape``, like :func:`numpy.broadcast_to`.

    Parameters
    ----------
    array : DeviceArray or array_like
        The array.
    shape : int or tuple of ints
        The shape to broadcast to.

    Returns
    -------
    DeviceArray or numpy.ndarray
        A read-only view: repeated elements share memory (stride 0).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.broadcast_to(gpuvec.to_device(np.array([1.0, 2.0])), (2, 2))
    DeviceArray([[1., 2.],
                 [1., 2.]], dtype=float64)
    """
    if not isinstance(array, DeviceArray):
        return np.broadcast_to(array, shape)
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(shape)
    return array._broadcast_to(shape)  # NumPy's check and ValueError when it does not fit
