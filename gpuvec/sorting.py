"""Sorting and searching: sort, argsort, searchsorted and unique, as NumPy's.

Each takes a DeviceArray (the work runs on its device, or on the host
backend for a host-backend one) or anything NumPy takes (the host backend's
loops work on it; the result is a NumPy array), of any dtype gpuvec holds.

Orders are NumPy's: NaN sorts after +inf, -0.0 and 0.0 are equal, and every
sort is stable (``kind="stable"``), so argsort gives ties in their order of
appearance whatever ``kind`` says. Both backends sort by radix: each element
becomes an unsigned key of its width in NumPy's order, and the keys are
sorted by 8-bit digits; the sorted values are the input's own elements, bits
and all.
"""

from __future__ import annotations

import numpy as np

from gpuvec._core import _scan
from gpuvec._scan_arrays import axis_index, side_of
from gpuvec.device_array import METHODS, DeviceArray
from gpuvec.scans import _SUM

__all__ = ["argsort", "searchsorted", "sort", "unique"]

_KINDS = (None, "quicksort", "quick", "mergesort", "merge", "heapsort", "heap", "stable")


def _check_sort_options(kind, order) -> None:
    if kind not in _KINDS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _sorted(a, axis, values: bool, indices: bool):
    """(values, indices, side) of a's sort along axis (None: flattened)."""
    x, side = side_of(a, "a")
    if axis is None:
        x = x.ravel() if x.ndim != 1 else x
        axis = 0
    else:
        axis = axis_index(axis, x.ndim)
    v = side.empty(x.shape, x.dtype) if values else None
    i = side.empty(x.shape, np.int64) if indices else None
    if x.size:
        _scan.sort(
            side.moved_last(x, axis),
            None if v is None else side.moved_last(v, axis),
            None if i is None else side.moved_last(i, axis),
            side.stream,
        )
    return v, i, side


def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy of an array, as :func:`numpy.sort`.

    Parameters
    ----------
    a : DeviceArray or array_like
        The array to sort.
    axis : int or None, optional
        The axis to sort along (the last by default); None sorts the
        flattened array.
    kind : str, optional
        Accepted for NumPy's sake; every sort is stable.
    order : None
        Structured arrays are not supported.

    Returns
    -------
    DeviceArray or numpy.ndarray
        The sorted array, of a's dtype (and shape, unless axis is None).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.sort(gpuvec.to_device(np.array([3.0, np.nan, -1.0, 2.0])))
    DeviceArray([-1.,  2.,  3., nan], dtype=float64)
    >>> gpuvec.sort(np.array([[3, 1], [0, 2]], dtype=np.int8), axis=0)
    array([[0, 1],
           [3, 2]], dtype=int8)
    """
    _check_sort_options(kind, order)
    values, _, side = _sorted(a, axis, True, False)
    return side.result(values)


def argsort(a, axis=-1, kind=None, order=None):
    """The indices that sort an array, as :func:`numpy.argsort` with ``kind="stable"``.

    Parameters
    ----------
    a : DeviceArray or array_like
        The array to sort.
    axis : int or None, optional
        The axis to sort along (the last by default); None sorts the
        flattened array.
    kind : str, optional
        Accepted for NumPy's sake; every sort is stable: equal elements keep
        their order.
    order : None
        Structured arrays are not supported.

    Returns
    -------
    DeviceArray or numpy.ndarray
        int64 indices along axis, of a's shape (1-D when axis is None).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.argsort(gpuvec.to_device(np.array([2, 1, 2, 0])))
    DeviceArray([3, 1, 0, 2], dtype=int64)
    """
    _check_sort_options(kind, order)
    _, indices, side = _sorted(a, axis, False, True)
    return side.result(indices)


def searchsorted(a, v, side="left", sorter=None):
    """Where to insert v into the sorted 1-D a to keep it sorted, as :func:`numpy.searchsorted`.

    Parameters
    ----------
    a : DeviceArray or array_like
        A 1-D array sorted in NumPy's order (NaN last).
    v : DeviceArray, array_like or scalar
        The values to place, on a's side (a number is taken anywhere).
    side : {"left", "right"}, optional
        Before equal elements of a ("left", the default) or after them.
    sorter : None
        Not supported: sort a first.

    Returns
    -------
    DeviceArray or numpy.ndarray or int
        int64 positions of v's shape; a NumPy int for a number and NumPy a.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> a = gpuvec.to_device(np.array([1.0, 2.0, 2.0, 5.0]))
    >>> gpuvec.searchsorted(a, gpuvec.to_device(np.array([2.0, 3.0])), side="right")
    DeviceArray([3, 3], dtype=int64)
    """
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    if sorter is not None:
        raise NotImplementedError("searchsorted's sorter= is not supported: sort a first")
    x, where = side_of(a, "a")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array")
    if isinstance(v, DeviceArray):
        values, v_side = side_of(v, "v")
        if v_side.on_device != where.on_device:
            raise TypeError(
                "v and a must be on the same side: both DeviceArrays on the device, "
                "or both in host memory"
            )
        common = np.result_type(x.dtype, values.dtype)
    else:
        values = np.asarray(v)
        # A Python number takes a's dtype where it fits (NEP 50), as in NumPy.
        common = np.result_type(x.dtype, v if isinstance(v, (int, float)) else values.dtype)
        values = where.array(values, common)
    x = x if x.dtype == common else x.astype(common)
    values = values if values.dtype == common else values.astype(common)
    out = where.empty(values.shape, np.int64)
    if values.size:
        _scan.searchsorted(out, x, values, side == "right", where.stream)
    if where.kind == "numpy" and out.ndim == 0:
        return out[()]
    return where.result(out)


def unique(
    ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True
):
    """The sorted unique elements of an array, as :func:`numpy.unique`.

    Parameters
    ----------
    ar : DeviceArray or array_like
        The input, flattened.
    return_index : bool, optional
        Also return the index in the flattened ar of each unique element's
        first occurrence.
    return_inverse : False
        Not supported.
    return_counts : bool, optional
        Also return how many times each unique element occurs (int64).
    axis : None
        Only the flattened array is supported.
    equal_nan : True
        All NaNs are one unique element, as NumPy takes them by default.

    Returns
    -------
    unique : DeviceArray or numpy.ndarray
        The sorted unique elements (NaN last).
    unique_indices : DeviceArray or numpy.ndarray, optional
        With return_index.
    unique_counts : DeviceArray or numpy.ndarray, optional
        With return_counts.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> u, counts = gpuvec.unique(gpuvec.to_device(np.array([3, 1, 3, 2, 1, 3])),
    ...                           return_counts=True)
    >>> u, counts
    (DeviceArray([1, 2, 3], dtype=int64), DeviceArray([2, 1, 3], dtype=int64))
    """
    if return_inverse:
        raise NotImplementedError("unique's return_inverse= is not supported")
    if axis is not None:
        raise NotImplementedError("unique's axis= is not supported: only the flattened array")
    if not equal_nan:
        raise NotImplementedError("unique's equal_nan=False is not supported")
    values, indices, side = _sorted(ar, None, True, return_index)
    n = values.shape[0]
    if n:
        starts = side.empty((n,), np.bool_)
        _scan.sorted_runs(starts, values, side.stream)
        result = [values[starts]]
        if return_index:
            result.append(indices[starts])
        if return_counts:
            result.append(_run_lengths(starts, side, result[0].shape[0]))
    else:
        result = [values]
        if return_index:
            result.append(indices)
        if return_counts:
            result.append(side.empty((0,), np.int64))
    result = [side.result(r) for r in result]
    return result[0] if len(result) == 1 else tuple(result)


def _run_lengths(starts, side, runs: int):
    """The length of each run whose starts are marked: run k's elements are
    those whose count of starts up to them is k + 1, so the lengths are a
    bincount of that cumulative count."""
    ids = side.empty(starts.shape, np.int64)
    _scan.scan(_SUM, ids, starts, side.stream)
    counts = side.empty((runs + 1,), np.int64)
    _scan.histogram(counts, ids, None, None, side.stream)
    return counts[1:]


def _sort_in_place(a, axis=-1, kind=None, order=None) -> None:
    """DeviceArray.sort: a's own elements sorted along axis."""
    _check_sort_options(kind, order)
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    x, side = side_of(a, "a")
    axis = axis_index(axis, x.ndim)
    if x.size:
        view = side.moved_last(x, axis)
        _scan.sort(view, view, None, side.stream)


METHODS.update(argsort=argsort, sort=_sort_in_place)
