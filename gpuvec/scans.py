"""Scans and counts: cumsum, cumprod, bincount and histogram, as NumPy's.

Each takes a DeviceArray (the work runs on its device, or on the host
backend for a host-backend one) or anything NumPy takes (the host backend's
loops work on it; the result is a NumPy array). Dtypes are NumPy's: cumsum
and cumprod accumulate small integers in int64 (unsigned ones in uint64) and
bools in int64, floats in their own dtype; integers wrap around exactly as
NumPy's do.

Float scans on the CUDA backend are parallel (each tile, then the tiles'
totals), so they round differently from NumPy's left-to-right sum: expect
agreement to a few ulps times the row's condition, not NumPy's bits. The
host backend adds each row in order and gives NumPy's bits. Weighted counts
on the CUDA backend are atomic adds, in no fixed order.
"""

from __future__ import annotations

import operator

import numpy as np

from gpuvec import _core
from gpuvec._core import _scan
from gpuvec._scan_arrays import axis_index, check_dtype, side_of
from gpuvec.device_array import METHODS, DeviceArray
from gpuvec.reductions import max as _max
from gpuvec.reductions import min as _min

__all__ = ["bincount", "cumprod", "cumsum", "histogram"]

_SUM, _PROD = 0, 1


def _accumulator(dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's cumsum and cumprod accumulate `dtype` in: the
    platform's long for bools and smaller integers (unsigned long for
    unsigned ones), the dtype itself otherwise."""
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < np.dtype(np.int_).itemsize):
        return np.dtype(np.int_)
    if dtype.kind == "u" and dtype.itemsize < np.dtype(np.uint).itemsize:
        return np.dtype(np.uint)
    return dtype


def _check_out(out, shape, side, name: str):
    """A user's out=: an array of the result's shape on the input's side."""
    if isinstance(out, DeviceArray):
        on_device = out._host is None
        if on_device != side.on_device:
            where = "device" if on_device else "host"
            raise TypeError(
                f"{name} is in {where} memory, but the input is not: pass an out on "
                "the input's side"
            )
        array = out if on_device else out._host
    elif isinstance(out, np.ndarray):
        if side.on_device:
            raise TypeError(
                f"{name} is a NumPy array, but the input is a DeviceArray: pass a DeviceArray out"
            )
        array = out
    else:
        raise TypeError(f"{name} must be an array, got {type(out).__name__}")
    if tuple(array.shape) != tuple(shape):
        raise ValueError(
            f"{name} has shape {tuple(array.shape)}, but the result has shape {tuple(shape)}"
        )
    if not isinstance(array, DeviceArray) and not array.flags.writeable:
        raise ValueError(f"{name} is read-only")
    check_dtype(array.dtype, name)
    return array


def _scan_call(op: int, name: str, a, axis, dtype, out):
    x, side = side_of(a, "a")
    if axis is None:
        x = x.ravel() if x.ndim != 1 else x
        axis = 0
    else:
        axis = axis_index(axis, x.ndim)
    if dtype is not None:
        dtype = check_dtype(dtype, "dtype")
    elif out is not None:
        dtype = np.dtype(out.dtype)
    else:
        dtype = _accumulator(x.dtype)
    if out is not None:
        target = _check_out(out, x.shape, side, "out")
        # The scan is computed in dtype, then converted into out.
        result = target if target.dtype == dtype else side.empty(x.shape, dtype)
    else:
        target = None
        result = side.empty(x.shape, dtype)
    _scan.scan(op, side.moved_last(result, axis), side.moved_last(x, axis), side.stream)
    if target is None:
        return side.result(result)
    if result is not target:
        _core.copy_into(target, result)
    return out


def cumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum of the elements along an axis, as :func:`numpy.cumsum`.

    Parameters
    ----------
    a : DeviceArray or array_like
        The input, of any dtype gpuvec holds.
    axis : int, optional
        The axis to sum along; None (the default) sums the flattened array.
    dtype : dtype, optional
        The dtype to accumulate and return in. By default NumPy's: int64 for
        bools and signed integers narrower than it, uint64 for narrower
        unsigned ones, the input's own dtype otherwise.
    out : DeviceArray or numpy.ndarray, optional
        Where to write the result: of the result's shape, on the input's side.

    Returns
    -------
    DeviceArray or numpy.ndarray
        A DeviceArray for a DeviceArray ``a`` (out when given), else a NumPy array.

    Notes
    -----
    Integers wrap around on overflow, as NumPy's do. On the host backend a
    float cumsum adds left to right and matches NumPy bit for bit; on the
    CUDA backend the scan is parallel and rounds differently.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> d = gpuvec.to_device(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32))
    >>> gpuvec.cumsum(d, axis=1)
    DeviceArray([[ 1,  3,  6],
                 [ 4,  9, 15]], dtype=int64)
    >>> gpuvec.cumsum(np.array([True, True, False]))
    array([1, 2, 2])
    """
    return _scan_call(_SUM, "cumsum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product of the elements along an axis, as :func:`numpy.cumprod`.

    Parameters
    ----------
    a : DeviceArray or array_like
        The input, of any dtype gpuvec holds.
    axis : int, optional
        The axis to multiply along; None (the default) the flattened array.
    dtype : dtype, optional
        The dtype to accumulate and return in; by default NumPy's (see
        :func:`cumsum`).
    out : DeviceArray or numpy.ndarray, optional
        Where to write the result: of the result's shape, on the input's side.

    Returns
    -------
    DeviceArray or numpy.ndarray
        A DeviceArray for a DeviceArray ``a`` (out when given), else a NumPy array.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.cumprod(gpuvec.to_device(np.array([1.0, 2.0, 3.0, 4.0])))
    DeviceArray([ 1.,  2.,  6., 24.], dtype=float64)
    """
    return _scan_call(_PROD, "cumprod", a, axis, dtype, out)


def _weights_for(weights, x, side):
    """weights as an array on x's side, of x's length."""
    if weights is None:
        return None
    w, w_side = side_of(weights, "weights")
    if w_side.on_device != side.on_device:
        raise TypeError(
            "weights and the data must be on the same side: both DeviceArrays on "
            "the device, or both in host memory"
        )
    if tuple(w.shape) != tuple(x.shape):
        raise ValueError("The weights and list don't have the same length.")
    return w


def _extreme(x, side, smallest: bool) -> float:
    """The smallest or largest element of a non-empty x, as a Python number
    (a device array's is reduced on the device, in float64)."""
    if not side.on_device:
        return (x.min() if smallest else x.max()).item()
    values = x if x.dtype.kind == "f" else x.astype(np.float64)
    return float((_min if smallest else _max)(values))


def _fill_zero(counts, side) -> None:
    if side.on_device:
        _core.copy_into(counts, 0)
    else:
        counts.fill(0)


def bincount(x, weights=None, minlength=0):
    """The number of occurrences of each value of non-negative ints, as :func:`numpy.bincount`.

    Parameters
    ----------
    x : DeviceArray or array_like
        A 1-D array of non-negative integers (or bools).
    weights : DeviceArray or array_like, optional
        A weight per element of x: the result then sums them (float64).
    minlength : int, optional
        The least length of the result.

    Returns
    -------
    DeviceArray or numpy.ndarray
        int64 counts, or float64 sums of weights, of length
        ``max(x.max() + 1, minlength)``.

    Raises
    ------
    ValueError
        When x holds a negative value, is not 1-D, or minlength is negative.
    TypeError
        When x is not an integer array.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.bincount(gpuvec.to_device(np.array([0, 1, 1, 3])))
    DeviceArray([1, 2, 0, 1], dtype=int64)
    >>> gpuvec.bincount(np.array([0, 1, 1]), weights=np.array([0.5, 1.0, 2.0]))
    array([0.5, 3. ])
    """
    x, side = side_of(x, "x")
    if x.dtype.kind not in "biu":
        raise TypeError(
            f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') "
            "according to the rule 'safe'"
        )
    if x.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    w = _weights_for(weights, x, side)
    length = minlength
    if x.shape[0]:
        if _extreme(x, side, smallest=True) < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = max(int(_extreme(x, side, smallest=False)) + 1, minlength)
    if w is not None and w.dtype != np.float64:
        w = w.astype(np.float64)
    counts = side.empty((length,), np.float64 if w is not None else np.int64)
    if length and x.shape[0]:
        _scan.histogram(counts, x, w, None, side.stream)
    elif length:
        _fill_zero(counts, side)
    return side.result(counts)


def _edges(x, side, bins, range, weights):
    """NumPy's bin edges (numpy.histogram_bin_edges) for x, as a NumPy array.

    An integer number of bins needs only x's smallest and largest elements,
    which a device array reduces on the device; a bin rule by name ("auto",
    ...) reads the data itself, so a device array's is copied to the host."""
    if isinstance(bins, str):
        host = x.to_host() if side.on_device else x
        host_w = None
        if weights is not None:
            host_w = weights.to_host() if side.on_device else weights
        return np.histogram_bin_edges(host, bins, range, host_w)
    if np.ndim(bins) == 1:
        return np.histogram_bin_edges(np.empty(0, x.dtype), bins, range)
    if range is None and x.size:
        # NumPy's edges from the range alone: the data's extremes stand in for it.
        pair = np.array([_extreme(x, side, True), _extreme(x, side, False)])
        return np.histogram_bin_edges(pair.astype(x.dtype), bins)
    return np.histogram_bin_edges(np.empty(0, x.dtype), bins, range)


# `range` shadows the builtin: it is NumPy's name for the argument.
def histogram(a, bins=10, range=None, density=None, weights=None):
    """A histogram of the data, as :func:`numpy.histogram`.

    Parameters
    ----------
    a : DeviceArray or array_like
        The data; counted over all its elements.
    bins : int, sequence of scalars or str, optional
        The number of equal-width bins (10 by default), their edges
        (increasing), or one of NumPy's rules by name ("auto", ...; these read
        the data, which a DeviceArray copies to the host for).
    range : (float, float), optional
        The lower and upper edges; by default the data's smallest and largest
        elements. Elements outside are not counted.
    density : bool, optional
        True: the probability density (each count over the total and its bin's
        width), as float64.
    weights : DeviceArray or array_like, optional
        A weight per element of a, of a's shape: each bin then sums them.

    Returns
    -------
    hist : DeviceArray or numpy.ndarray
        The counts (int64), or the sums of weights (weights' dtype), or the
        density (float64).
    bin_edges : numpy.ndarray
        The edges, ``len(hist) + 1`` of them (NumPy's, of the dtype NumPy gives
        them), always a NumPy array.

    Notes
    -----
    Bins are half open, ``[edge[i], edge[i + 1])``, but for the last, which
    holds its right edge too. NaN is not counted. Edges are NumPy's own
    (``numpy.histogram_bin_edges``), and each element is placed among them as
    NumPy places it; only the weighted sums may round differently (they are
    added in another order on the CUDA backend, and NumPy differences
    cumulative sums where bins are not of equal width).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> hist, edges = gpuvec.histogram(gpuvec.to_device(np.array([0.0, 1.0, 1.0, 2.0, 3.0])),
    ...                                bins=3)
    >>> hist
    DeviceArray([1, 2, 2], dtype=int64)
    >>> edges
    array([0., 1., 2., 3.])
    """
    x, side = side_of(a, "a")
    w = None
    if weights is not None:
        w, w_side = side_of(weights, "weights")
        if w_side.on_device != side.on_device:
            raise TypeError(
                "weights and a must be on the same side: both DeviceArrays on the "
                "device, or both in host memory"
            )
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError("weights should have the same shape as a.")
    edges = _edges(x, side, bins, range, w)
    nbins = len(edges) - 1
    device_edges = side.array(edges, np.float64)
    w64 = None if w is None else (w if w.dtype == np.float64 else w.astype(np.float64))
    counts = side.empty((nbins,), np.float64 if w is not None else np.int64)
    if x.size:
        _scan.histogram(counts, x, w64, device_edges, side.stream)
    else:
        _fill_zero(counts, side)
    if density:
        host = counts.to_host() if side.on_device else counts
        widths = np.diff(edges)
        hist = host / widths / host.sum()
        return side.result(side.array(hist)), edges
    if w is not None and w.dtype != np.float64:
        counts = counts.astype(w.dtype)
    return side.result(counts), edges


METHODS.update(cumsum=cumsum, cumprod=cumprod)
