"""Elementwise ops: the binary family, scale and axpy."""

from __future__ import annotations

from gpuvec import _core
from gpuvec._operands import elementwise, scalar_arg

__all__ = ["add", "axpy", "divide", "multiply", "scale", "subtract"]


def _binary(op, a, b, out, dtype, threads_per_block):
    def launch(shape, sa, sb, so, backend, tpb):
        _core.binary(op, shape, sa, sb, so, backend, tpb)

    return elementwise(launch, {"a": a, "b": b}, out, dtype, threads_per_block)


_BINARY_DOC = """{summary}, like :func:`numpy.{name}`.

Parameters
----------
a, b : array_like or scalar
    Real inputs (bool, int, float32 or float64; lists and scalars too), of
    any shapes that broadcast together, with any strides.
out : numpy.ndarray, optional
    Where to write the result: writable, of the result's shape and dtype.
    ``out=a`` works in place.
dtype : {{numpy.float32, numpy.float64}}, optional
    The dtype to compute and return in; by default float32 when all float
    inputs are float32, else float64.
threads_per_block : int, optional
    CUDA block size (default 256). Above 1024 the launch fails with
    :class:`gpuvec.CudaError`, on both backends.

Returns
-------
numpy.ndarray
    ``a {symbol} b``, or ``out`` when given.

Examples
--------
>>> import numpy as np, gpuvec
>>> gpuvec.{name}(np.array([6.0, 8.0]), np.array([2.0, 4.0]))
array([{example}])
"""


def add(a, b, out=None, dtype=None, *, threads_per_block=None):
    return _binary(_core.ADD, a, b, out, dtype, threads_per_block)


def subtract(a, b, out=None, dtype=None, *, threads_per_block=None):
    return _binary(_core.SUBTRACT, a, b, out, dtype, threads_per_block)


def multiply(a, b, out=None, dtype=None, *, threads_per_block=None):
    return _binary(_core.MULTIPLY, a, b, out, dtype, threads_per_block)


def divide(a, b, out=None, dtype=None, *, threads_per_block=None):
    return _binary(_core.DIVIDE, a, b, out, dtype, threads_per_block)


add.__doc__ = _BINARY_DOC.format(summary="Add", name="add", symbol="+", example=" 8., 12.")
subtract.__doc__ = _BINARY_DOC.format(
    summary="Subtract", name="subtract", symbol="-", example="4., 4."
)
multiply.__doc__ = _BINARY_DOC.format(
    summary="Multiply", name="multiply", symbol="*", example="12., 32."
)
divide.__doc__ = _BINARY_DOC.format(summary="Divide", name="divide", symbol="/", example="3., 2.")


def scale(x, alpha, out=None, dtype=None, *, threads_per_block=None):
    """Multiply by a scalar: ``alpha * x``.

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides.
    alpha : float
        The scale factor. A Python float keeps float32 input in float32.
    out, dtype, threads_per_block
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

    def launch(shape, sx, so, backend, tpb):
        _core.scale(a, shape, sx, so, backend, tpb)

    return elementwise(launch, {"x": x}, out, dtype, threads_per_block, (alpha,))


def axpy(alpha, x, y, out=None, dtype=None, *, threads_per_block=None):
    """``alpha * x + y``, the BLAS-1 workhorse.

    Parameters
    ----------
    alpha : float
        The scale factor of ``x``.
    x, y : array_like
        Real inputs whose shapes broadcast together.
    out, dtype, threads_per_block
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

    def launch(shape, sx, sy, so, backend, tpb):
        _core.axpy(a, shape, sx, sy, so, backend, tpb)

    return elementwise(launch, {"x": x, "y": y}, out, dtype, threads_per_block, (alpha,))
