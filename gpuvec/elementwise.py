"""Elementwise ops: the binary family (arithmetic, power, maximum, ...), scale and axpy."""

from __future__ import annotations

from gpuvec import _core
from gpuvec._operands import elementwise, plain_call, scalar_arg

__all__ = [
    "add",
    "arctan2",
    "atan2",
    "axpy",
    "divide",
    "hypot",
    "maximum",
    "minimum",
    "multiply",
    "power",
    "scale",
    "subtract",
]


def _plain_call(alpha, dtype, threads_per_block, stream) -> bool:
    """True for a call the short path may take: a plain call (plain_call) with
    a Python-number alpha, which, unlike a NumPy float64 scalar, never changes
    the result dtype."""
    return type(alpha) in (int, float) and plain_call(dtype, threads_per_block, stream)


def _binary(op, a, b, out, dtype, threads_per_block, stream):
    if plain_call(dtype, threads_per_block, stream):
        # The short paths for plain ops on device arrays: contiguous, then strided.
        if (result := _core.fast_binary(op, a, b, out)) is not None:
            return result
        if (result := _core.fast_binary_strided(op, a, b, out)) is not None:
            return result

    def launch(shape, sa, sb, so, backend, tpb, handle):
        _core.binary(op, shape, sa, sb, so, backend, tpb, handle)

    return elementwise(launch, {"a": a, "b": b}, out, dtype, threads_per_block, stream=stream)


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
stream : gpuvec.Stream, optional
    The stream to queue the work on (default: the current stream).

Returns
-------
numpy.ndarray or DeviceArray
    ``{result}``, or ``out`` when given: a DeviceArray when the inputs
    are DeviceArrays (which may not be mixed with NumPy arrays).

Examples
--------
>>> import numpy as np, gpuvec
>>> gpuvec.{name}(np.array([6.0, 8.0]), np.array([2.0, 4.0]))
array([{example}])
"""


def add(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.ADD, a, b, out, dtype, threads_per_block, stream)


def subtract(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.SUBTRACT, a, b, out, dtype, threads_per_block, stream)


def multiply(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.MULTIPLY, a, b, out, dtype, threads_per_block, stream)


def divide(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.DIVIDE, a, b, out, dtype, threads_per_block, stream)


def power(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.POWER, a, b, out, dtype, threads_per_block, stream)


def maximum(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.MAXIMUM, a, b, out, dtype, threads_per_block, stream)


def minimum(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.MINIMUM, a, b, out, dtype, threads_per_block, stream)


def hypot(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.HYPOT, a, b, out, dtype, threads_per_block, stream)


def atan2(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _binary(_core.ATAN2, a, b, out, dtype, threads_per_block, stream)


arctan2 = atan2  # NumPy's name

add.__doc__ = _BINARY_DOC.format(summary="Add", name="add", result="a + b", example=" 8., 12.")
subtract.__doc__ = _BINARY_DOC.format(
    summary="Subtract", name="subtract", result="a - b", example="4., 4."
)
multiply.__doc__ = _BINARY_DOC.format(
    summary="Multiply", name="multiply", result="a * b", example="12., 32."
)
divide.__doc__ = _BINARY_DOC.format(
    summary="Divide", name="divide", result="a / b", example="3., 2."
)
power.__doc__ = _BINARY_DOC.format(
    summary="Raise to a power (a negative base with a non-integer exponent gives NaN)",
    name="power",
    result="a ** b",
    example="  36., 4096.",
)
maximum.__doc__ = _BINARY_DOC.format(
    summary="The larger element, NaN where either is NaN (``fmax`` would drop NaN)",
    name="maximum",
    result="maximum(a, b)",
    example="6., 8.",
)
minimum.__doc__ = _BINARY_DOC.format(
    summary="The smaller element, NaN where either is NaN (``fmin`` would drop NaN)",
    name="minimum",
    result="minimum(a, b)",
    example="2., 4.",
)
hypot.__doc__ = _BINARY_DOC.format(
    summary="The hypotenuse ``sqrt(a**2 + b**2)``, without overflow or underflow",
    name="hypot",
    result="hypot(a, b)",
    example="6.32455532, 8.94427191",
)
atan2.__doc__ = _BINARY_DOC.format(
    summary="The angle of the point (b, a) in radians, in [-pi, pi] (also ``arctan2``)",
    name="arctan2",
    result="atan2(a, b)",
    example="1.24904577, 1.10714872",
)


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
    if _plain_call(alpha, dtype, threads_per_block, stream):
        if (result := _core.fast_scale(x, a, out)) is not None:
            return result  # the short path for a device array

    def launch(shape, sx, so, backend, tpb, handle):
        _core.scale(a, shape, sx, so, backend, tpb, handle)

    return elementwise(launch, {"x": x}, out, dtype, threads_per_block, (alpha,), stream)


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
    if _plain_call(alpha, dtype, threads_per_block, stream):
        if (result := _core.fast_axpy(a, x, y, out)) is not None:
            return result  # the short path for device arrays

    def launch(shape, sx, sy, so, backend, tpb, handle):
        _core.axpy(a, shape, sx, sy, so, backend, tpb, handle)

    return elementwise(launch, {"x": x, "y": y}, out, dtype, threads_per_block, (alpha,), stream)
