"""Drawn values into device memory: new DeviceArrays, ``out=`` arrays and in-place shuffles.

The drawing step (:mod:`gpuvec.random._draws`) works on host arrays. On the
host backend a DeviceArray is one, so the values stay where NumPy wrote them:
a new array becomes the DeviceArray, and an ``out=`` DeviceArray is filled in
place. On a GPU, a DeviceArray given as ``out=`` is stood in for by a host
array of its shape, dtype, memory order and writability, so that NumPy checks
it with its own rules and messages and fills it in the order it would fill
the DeviceArray's memory; the values are then copied into the DeviceArray.
"""

from __future__ import annotations

import math

import numpy as np

from gpuvec._backend import backend
from gpuvec._dtypes import ARRAY_DTYPES
from gpuvec.creation import to_device
from gpuvec.device_array import DeviceArray

__all__ = ["host_argument", "host_out", "placed", "shuffled_in_place", "stand_in"]


def _is_f_contiguous(shape, strides, itemsize) -> bool:
    expected = itemsize
    for n, stride in zip(shape, strides, strict=True):
        if n > 1 and stride != expected:
            return False
        expected *= n
    return True


def host_out(out):
    """The host array that NumPy fills for ``out``: ``out`` itself unless it is a DeviceArray.

    A writable host-backend DeviceArray gives its own memory; any other
    DeviceArray, a :func:`stand_in`.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> d = gpuvec.zeros((2, 3), np.float32).T
    >>> host = host_out(d)
    >>> host.shape, host.dtype, host.flags.f_contiguous
    ((3, 2), dtype('float32'), True)
    """
    if not isinstance(out, DeviceArray):
        return out
    if out._host is not None and not out._readonly:
        return out._host
    return stand_in(out)


def stand_in(out: DeviceArray) -> np.ndarray:
    """A new host array for NumPy to check and fill in place of the DeviceArray ``out``.

    Of ``out``'s shape and dtype; C-contiguous or Fortran-contiguous as
    ``out`` is, neither where it is neither (NumPy then refuses it), and
    read-only where it is.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> host = stand_in(gpuvec.zeros((4, 6))[::2, ::2])
    >>> host.shape, host.flags.c_contiguous, host.flags.f_contiguous
    ((2, 3), False, False)
    """
    shape, dtype = out.shape, out.dtype
    if out.is_c_contiguous:
        host = np.empty(shape, dtype)
    elif _is_f_contiguous(shape, out.strides, dtype.itemsize):
        host = np.empty(shape, dtype, order="F")
    else:
        # Every other element of a bigger array: not contiguous in either
        # order (a DeviceArray is contiguous when it has at most one element).
        host = np.empty((*shape, 2), dtype)[..., 0]
    if out._readonly:
        host.flags.writeable = False
    return host


def host_argument(value):
    """A parameter as NumPy takes it: a DeviceArray's data on the host, anything else as given."""
    return value.to_host() if isinstance(value, DeviceArray) else value


def placed(values, out=None, host=None):
    """What a Generator method returns for NumPy's ``values``.

    Parameters
    ----------
    values : ndarray or scalar
        What the drawing step returned.
    out : DeviceArray, ndarray or None
        The method's ``out=``.
    host : ndarray, optional
        ``host_out(out)``, which the drawing step filled.

    Returns
    -------
    DeviceArray, ndarray or scalar
        ``out`` filled with ``host``'s values when it is a DeviceArray;
        NumPy's own result for a NumPy ``out``; a new DeviceArray of NumPy's
        dtype for an array; NumPy's scalar for one value (``size=None``).
    """
    if isinstance(out, DeviceArray):
        if host is not out._host and math.prod(out.shape):
            out[...] = host
        return out
    if out is not None or not isinstance(values, np.ndarray):
        return values
    # A new array of NumPy's, which nothing else refers to, is a host-backend
    # DeviceArray as it is (NumPy may return a view of its input instead:
    # choice of a row; that is copied).
    if (
        backend() == "host"
        and values.flags.owndata
        and values.flags.c_contiguous
        and values.dtype in ARRAY_DTYPES
    ):
        return DeviceArray._from_host_array(values)
    # dtype= given: gpuvec.set_precision would otherwise convert floats.
    return to_device(values, dtype=values.dtype)


def shuffled_in_place(x, shuffle, axis) -> None:
    """Runs ``shuffle(host, axis)`` on ``x``: a DeviceArray's data goes there and back.

    A read-only DeviceArray is stood in for by a read-only copy, so that NumPy
    raises its own error for it.
    """
    if not isinstance(x, DeviceArray):
        shuffle(x, axis)
        return
    if x._host is not None and not x._readonly:  # host memory: shuffled where it is
        shuffle(x._host, axis)
        return
    host = x.to_host()
    if x._readonly:
        host.flags.writeable = False
    shuffle(host, axis)
    if host.size:
        x[...] = host
