"""BLAS level 1: axpby, the Euclidean norm and the sum of absolute values.

The rest of BLAS-1 lives beside the ops it resembles: :func:`gpuvec.scale`
and :func:`gpuvec.axpy` with the elementwise ops, :func:`gpuvec.dot` with
the reductions.
"""

from __future__ import annotations

from gpuvec import _core
from gpuvec._dtypes import scalar_arg, strong_scalars
from gpuvec._table import ELEMENTWISE, REDUCE

__all__ = ["asum", "axpby", "norm"]


def axpby(alpha, x, beta, y, out=None, dtype=None, *, threads_per_block=None, stream=None):
    """``alpha * x + beta * y``, with both products rounded before the sum.

    Parameters
    ----------
    alpha, beta : float
        The scale factors. Python floats keep float32 input in float32.
    x, y : array_like
        Real inputs whose shapes broadcast together.
    out, dtype, threads_per_block, stream
        As for :func:`gpuvec.add`. ``out=y`` updates ``y`` in place.

    Returns
    -------
    numpy.ndarray or DeviceArray
        ``alpha * x + beta * y``, or ``out`` when given.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.axpby(2.0, np.array([1.0, 2.0]), 3.0, np.array([10.0, 20.0]))
    array([32., 64.])
    """
    a, b = scalar_arg(alpha, "alpha"), scalar_arg(beta, "beta")
    return _core.elementwise(
        ELEMENTWISE["axpby"],
        (x, y),
        ("x", "y"),
        out,
        dtype,
        threads_per_block,
        stream,
        (a, b),
        strong_scalars(alpha, beta),
    )


def norm(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    """The Euclidean (L2) norm, ``sqrt(sum(x**2))``, like :func:`numpy.linalg.norm`.

    No square is formed of a huge or a tiny number: like LAPACK's ``nrm2``
    (Blue's algorithm), gpuvec sums the squares of huge and tiny elements
    apart, each scaled by a power of two, in float64, all in one pass. So
    ``norm([1e200, 1e200])`` is ``1.414213562373095e+200``, not inf, and
    ``norm([1e-200, 1e-200])`` is not 0. Any NaN gives NaN; otherwise any
    inf gives inf.

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides; N-d input is one long vector
        (the Frobenius norm of a matrix).
    axis : None or int or tuple of ints, optional
        The axes to take the norm over; None takes all.
    dtype : {numpy.float32, numpy.float64}, optional
        The dtype to read the input in; the result is rounded to it.
    keepdims, threads_per_block, stream
        As for :func:`gpuvec.sum`.

    Returns
    -------
    float or numpy.ndarray
        The norm: a Python float for ``axis=None``, else an array.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.norm(np.array([3.0, 4.0]))
    5.0
    >>> gpuvec.norm(np.array([1e200, 1e200]))
    1.414213562373095e+200
    """
    return _core.reduce(REDUCE["norm"], x, None, axis, keepdims, dtype, threads_per_block, stream)


def asum(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    """Sum of absolute values, ``sum(|x|)`` (BLAS ``asum``: the L1 norm).

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides.
    axis, dtype, keepdims, threads_per_block, stream
        As for :func:`gpuvec.sum`.

    Returns
    -------
    float or numpy.ndarray
        The sum: a Python float for ``axis=None``, else an array.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.asum(np.array([-1.0, 2.0, -3.0]))
    6.0
    """
    return _core.reduce(REDUCE["asum"], x, None, axis, keepdims, dtype, threads_per_block, stream)
