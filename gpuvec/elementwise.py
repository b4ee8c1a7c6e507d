"""Elementwise ops with parameters or three inputs: scale, axpy, clip and where.

The plain ops of one or two arrays (``add``, ``exp``, ...) are made from the op
table in :mod:`gpuvec.ufuncs`; these have signatures of their own, and run
through the same single call into the core.
"""

from __future__ import annotations

import math

from gpuvec import _core
from gpuvec._dtypes import scalar_arg, strong_scalars
from gpuvec._table import ELEMENTWISE

__all__ = ["axpy", "clip", "scale", "where"]

_SCALE, _AXPY = ELEMENTWISE["scale"], ELEMENTWISE["axpy"]
_CLIP, _WHERE = ELEMENTWISE["clip"], ELEMENTWISE["where"]


def scale(x, alpha, out=None, dtype=None, *, threads_per_block=None, stream=None):
    """Multiply by a scalar: ``alpha * x``.

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides.
    alpha : float
        The scale factor. A Python float keeps float32 input in float32.
    out, dtype, threads_per_block, stream
        As for :func:`gpuvec.add`.

    Returns
    -------
    numpy.ndarray
        ``alpha * x``, or ``out`` when given.

    Examples
    --------
    Doubling a matrix, in place:

    >>> import numpy as np, gpuvec
    >>> m = np.arange(4, dtype=np.float32).reshape(2, 2)
    >>> _ = gpuvec.scale(m, 2.0, out=m)
    >>> m
    array([[0., 2.],
           [4., 6.]], dtype=float32)
    """
    a = scalar_arg(alpha, "alpha")
    return _core.elementwise(
        _SCALE, (x,), ("x",), out, dtype, threads_per_block, stream, (a,), strong_scalars(alpha)
    )


def axpy(alpha, x, y, out=None, dtype=None, *, threads_per_block=None, stream=None):
    """``alpha * x + y``, the BLAS-1 workhorse.

    Parameters
    ----------
    alpha : float
        The scale factor of ``x``.
    x, y : array_like
        Real inputs whose shapes broadcast together.
    out, dtype, threads_per_block, stream
        As for :func:`gpuvec.add`. ``out=y`` updates ``y`` in place.

    Returns
    -------
    numpy.ndarray
        ``alpha * x + y``, or ``out`` when given.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.axpy(2.0, np.array([1.0, 2.0]), np.array([10.0, 20.0]))
    array([12., 24.])
    """
    a = scalar_arg(alpha, "alpha")
    return _core.elementwise(
        _AXPY,
        (x, y),
        ("x", "y"),
        out,
        dtype,
        threads_per_block,
        stream,
        (a,),
        strong_scalars(alpha),
    )


def clip(x, lo, hi, out=None, dtype=None, *, threads_per_block=None, stream=None):
    """Limit the values to ``[lo, hi]``, like :func:`numpy.clip`.

    ``clip(x, lo, hi)`` is ``minimum(maximum(x, lo), hi)``: a NaN in ``x``,
    ``lo`` or ``hi`` gives NaN, and where ``lo > hi`` the result is ``hi``.

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides.
    lo, hi : array_like, scalar or None
        The bounds: arrays that broadcast with ``x``, or scalars; None leaves
        that side open.
    out, dtype, threads_per_block, stream
        As for :func:`gpuvec.add`. ``out=x`` clips in place.

    Returns
    -------
    numpy.ndarray or DeviceArray
        The clipped values, or ``out`` when given.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.clip(np.array([-2.0, 0.5, 3.0, np.nan]), 0.0, 1.0)
    array([0. , 0.5, 1. , nan])
    >>> gpuvec.clip(np.arange(4.0), np.array([1.0, 1.0, 0.0, 0.0]), None)
    array([1., 1., 2., 3.])
    """
    # An open side is an infinite bound: a Python float, which does not
    # change the result dtype.
    lo = -math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    return _core.elementwise(
        _CLIP, (x, lo, hi), ("x", "lo", "hi"), out, dtype, threads_per_block, stream
    )


def where(cond, a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    """Choose elements: ``a`` where ``cond`` is true, else ``b``, like :func:`numpy.where`.

    Parameters
    ----------
    cond : array_like of bool
        The choice, a bool array (or a list of bools) of any shape and
        strides that broadcasts with ``a`` and ``b``. Any other dtype is a
        TypeError: compare first (``x > 0``).
    a, b : array_like or scalar
        Real inputs; the result dtype is theirs, as for :func:`gpuvec.add`.
    out, dtype, threads_per_block
        As for :func:`gpuvec.add`.
    stream : gpuvec.Stream, optional
        The stream to queue the work on (default: the current stream).

    Returns
    -------
    numpy.ndarray or DeviceArray
        The chosen elements, or ``out`` when given: a DeviceArray when ``a``
        or ``b`` is one (``cond`` is then copied to the device with the call).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> x = np.array([-1.0, 2.0, -3.0])
    >>> gpuvec.where(x > 0, x, 0.0)
    array([0., 2., 0.])
    """

    return _core.elementwise(
        _WHERE, (cond, a, b), ("cond", "a", "b"), out, dtype, threads_per_block, stream
    )
