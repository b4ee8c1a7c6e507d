"""The arrays of scans, sorts and counts: where they live, new ones beside them.

gpuvec/scans.py and gpuvec/sorting.py take a DeviceArray (its data on the
device, or in host memory on the host backend) or anything NumPy takes, and
return a DeviceArray for a DeviceArray and NumPy's kind of result for NumPy
input. The work runs where the data is (gpuvec._core._scan): NumPy data on
the host backend's loops. The functions here make that one rule: a
:class:`Side` says where an input is; its arrays are made there.
"""

from __future__ import annotations

import operator

import numpy as np

from gpuvec import _core
from gpuvec._dtypes import ARRAY_DTYPES
from gpuvec.device_array import DeviceArray

__all__ = ["DTYPES", "Side", "axis_index", "check_dtype", "side_of"]

# The dtypes every function here takes: each real dtype gpuvec holds but
# float16 (NumPy's float16 scans round each step to float16, which these
# kernels do not do yet); complex numbers are not sorted or scanned yet.
DTYPES = frozenset(d for d in ARRAY_DTYPES if d.kind != "c" and d != np.float16)


def check_dtype(dtype, name: str) -> np.dtype:
    """dtype as a NumPy dtype of DTYPES; TypeError naming `name` otherwise."""
    dtype = np.dtype(dtype)
    if dtype not in DTYPES:
        names = ", ".join(sorted(str(d) for d in DTYPES))
        hint = " (convert it: .astype(np.float32))" if dtype == np.float16 else ""
        raise TypeError(f"{name} has dtype {dtype}; the scans and sorts take {names}{hint}")
    return dtype


def axis_index(axis, ndim: int) -> int:
    """axis as a dimension of an ndim-d array, with NumPy's AxisError."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


class Side:
    """Where an input's data is, and arrays made there.

    kind is "device" (a cuda-backend DeviceArray), "host" (a host-backend
    DeviceArray, whose NumPy array the work reads) or "numpy".
    """

    __slots__ = ("device", "kind", "stream")

    def __init__(self, kind: str, device: int = 0, stream=None):
        self.kind = kind
        self.device = device
        self.stream = stream

    @property
    def on_device(self) -> bool:
        return self.kind == "device"

    def empty(self, shape, dtype):
        """A new C-ordered array of shape and dtype on this side (a NumPy array
        for host data: result() wraps it)."""
        if self.on_device:
            return _core.new_array(tuple(shape), np.dtype(dtype), self.stream, device=self.device)
        return np.empty(shape, dtype)

    def array(self, value, dtype=None):
        """A host value (a number, a NumPy array) as an array on this side."""
        host = np.asarray(value, dtype=dtype)
        if not self.on_device:
            return host
        result = self.empty(host.shape, host.dtype)
        _core.copy_into(result, host)
        return result

    def result(self, array):
        """What a function returns for an array made on this side: a DeviceArray
        for DeviceArray input (a host-backend one around host data)."""
        if self.kind == "host" and isinstance(array, np.ndarray):
            return DeviceArray._from_host_array(array)
        return array

    def moved_last(self, array, axis: int):
        """A view of array with dimension `axis` last."""
        ndim = array.ndim
        if axis == ndim - 1:
            return array
        order = [d for d in range(ndim) if d != axis] + [axis]
        return array.transpose(order)


def _native(array: np.ndarray) -> np.ndarray:
    """array in native byte order with strides of whole elements (what the
    ABI can describe): itself, or a C-ordered copy."""
    if array.dtype.isnative and all(s % array.itemsize == 0 for s in array.strides):
        return array
    return np.ascontiguousarray(array).astype(array.dtype.newbyteorder("="))


def side_of(x, name: str):
    """(array, side) of an input: a DeviceArray's own data (the NumPy array of
    a host-backend one), or what NumPy makes of x, checked to be of a dtype
    gpuvec holds."""
    if isinstance(x, DeviceArray):
        if x._host is not None:
            side, array = Side("host"), _native(x._host)
        else:
            side, array = Side("device", x._device, x._stream), x
    else:
        side, array = Side("numpy"), _native(np.asarray(x))
    check_dtype(array.dtype, name)
    return array, side
