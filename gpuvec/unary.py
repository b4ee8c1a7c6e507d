"""Elementwise functions of one array (exp, sqrt, sigmoid, ...), clip and where.

Each follows the NumPy function of the same name on float32 and float64
data: NaN and inf go through as in NumPy, a value outside a function's domain
gives NaN (``sqrt(-1.0)``, ``log(-1.0)``) and a pole gives inf (``log(0.0)``
is ``-inf``). gpuvec raises no floating-point warnings for them.
"""

from __future__ import annotations

import math

from gpuvec import _core
from gpuvec._operands import elementwise, masked_elementwise

__all__ = [
    "abs",
    "absolute",
    "clip",
    "cos",
    "exp",
    "expm1",
    "log",
    "log1p",
    "negative",
    "sigmoid",
    "sin",
    "sqrt",
    "tanh",
    "where",
]


def _unary(op, x, out, dtype, threads_per_block, stream):
    def launch(shape, sx, so, backend, tpb, handle):
        _core.unary(op, shape, sx, so, backend, tpb, handle)

    return elementwise(launch, {"x": x}, out, dtype, threads_per_block, stream=stream)


_UNARY_DOC = """{summary}{like}.

Parameters
----------
x : array_like or scalar
    Real input (bool, int, float32 or float64; lists and scalars too), of
    any shape and strides.
out : numpy.ndarray, optional
    Where to write the result: writable, of the result's shape and dtype.
    ``out=x`` works in place.
dtype : {{numpy.float32, numpy.float64}}, optional
    The dtype to compute and return in; by default float32 for float32 (and
    float16) input, else float64.
threads_per_block : int, optional
    CUDA block size (default 256). Above 1024 the launch fails with
    :class:`gpuvec.CudaError`, on both backends.
stream : gpuvec.Stream, optional
    The stream to queue the work on (default: the current stream).

Returns
-------
numpy.ndarray or DeviceArray
    ``{result}``, or ``out`` when given{accuracy}.

Examples
--------
>>> import numpy as np, gpuvec
>>> gpuvec.{name}(np.array([{example_in}]))
array([{example_out}])
"""

# The CUDA and the C math libraries round these differently; both are within
# a few units in the last place of the exact result.
_ULP = "; within a few ulp of the exact result, which the two backends may round differently"


def negative(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.NEGATIVE, x, out, dtype, threads_per_block, stream)


def abs(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.ABS, x, out, dtype, threads_per_block, stream)


absolute = abs  # NumPy's other name


def sqrt(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.SQRT, x, out, dtype, threads_per_block, stream)


def exp(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.EXP, x, out, dtype, threads_per_block, stream)


def log(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.LOG, x, out, dtype, threads_per_block, stream)


def log1p(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.LOG1P, x, out, dtype, threads_per_block, stream)


def expm1(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.EXPM1, x, out, dtype, threads_per_block, stream)


def sin(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.SIN, x, out, dtype, threads_per_block, stream)


def cos(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.COS, x, out, dtype, threads_per_block, stream)


def tanh(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.TANH, x, out, dtype, threads_per_block, stream)


def sigmoid(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    return _unary(_core.SIGMOID, x, out, dtype, threads_per_block, stream)


negative.__doc__ = _UNARY_DOC.format(
    summary="Negate",
    like=", like :func:`numpy.negative`",
    name="negative",
    result="-x",
    accuracy="",
    example_in="1.5, -2.0",
    example_out="-1.5,  2. ",
)
abs.__doc__ = _UNARY_DOC.format(
    summary="Absolute value (also ``absolute``)",
    like=", like :func:`numpy.absolute`",
    name="abs",
    result="|x|",
    accuracy="",
    example_in="1.5, -2.0",
    example_out="1.5, 2. ",
)
sqrt.__doc__ = _UNARY_DOC.format(
    summary="Square root, correctly rounded (NaN below zero)",
    like=", like :func:`numpy.sqrt`",
    name="sqrt",
    result="sqrt(x)",
    accuracy="",
    example_in="4.0, 2.25",
    example_out="2. , 1.5",
)
exp.__doc__ = _UNARY_DOC.format(
    summary="The exponential",
    like=", like :func:`numpy.exp`",
    name="exp",
    result="e ** x",
    accuracy=_ULP,
    example_in="0.0, 1.0",
    example_out="1.        , 2.71828183",
)
log.__doc__ = _UNARY_DOC.format(
    summary="The natural logarithm (NaN below zero, -inf at zero)",
    like=", like :func:`numpy.log`",
    name="log",
    result="ln(x)",
    accuracy=_ULP,
    example_in="1.0, 10.0",
    example_out="0.        , 2.30258509",
)
log1p.__doc__ = _UNARY_DOC.format(
    summary="``log(1 + x)``, accurate also for tiny x",
    like=", like :func:`numpy.log1p`",
    name="log1p",
    result="ln(1 + x)",
    accuracy=_ULP,
    example_in="1e-10, 1.0",
    example_out="1.00000000e-10, 6.93147181e-01",
)
expm1.__doc__ = _UNARY_DOC.format(
    summary="``exp(x) - 1``, accurate also for tiny x",
    like=", like :func:`numpy.expm1`",
    name="expm1",
    result="e ** x - 1",
    accuracy=_ULP,
    example_in="1e-10, 1.0",
    example_out="1.00000000e-10, 1.71828183e+00",
)
sin.__doc__ = _UNARY_DOC.format(
    summary="Sine, of x in radians",
    like=", like :func:`numpy.sin`",
    name="sin",
    result="sin(x)",
    accuracy=_ULP,
    example_in="0.0, 1.5",
    example_out="0.        , 0.99749499",
)
cos.__doc__ = _UNARY_DOC.format(
    summary="Cosine, of x in radians",
    like=", like :func:`numpy.cos`",
    name="cos",
    result="cos(x)",
    accuracy=_ULP,
    example_in="0.0, 1.5",
    example_out="1.        , 0.0707372",
)
tanh.__doc__ = _UNARY_DOC.format(
    summary="Hyperbolic tangent",
    like=", like :func:`numpy.tanh`",
    name="tanh",
    result="tanh(x)",
    accuracy=_ULP,
    example_in="0.0, 1.0",
    example_out="0.        , 0.76159416",
)
sigmoid.__doc__ = _UNARY_DOC.format(
    summary=(
        "The logistic sigmoid ``1 / (1 + exp(-x))``, computed without overflow for "
        "any x, like :func:`scipy.special.expit` (NumPy has no such function)"
    ),
    like="",
    name="sigmoid",
    result="1 / (1 + exp(-x))",
    accuracy=_ULP,
    example_in="0.0, -1000.0",
    example_out="0.5, 0. ",
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

    def launch(shape, sx, slo, shi, so, backend, tpb, handle):
        _core.clip(shape, sx, slo, shi, so, backend, tpb, handle)

    return elementwise(
        launch, {"x": x, "lo": lo, "hi": hi}, out, dtype, threads_per_block, stream=stream
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
    numpy.ndarray
        The chosen elements, or ``out`` when given. (Device arrays are not
        taken yet.)

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> x = np.array([-1.0, 2.0, -3.0])
    >>> gpuvec.where(x > 0, x, 0.0)
    array([0., 2., 0.])
    """

    def launch(shape, sc, sa, sb, so, backend, tpb, handle):
        _core.where(shape, sc, sa, sb, so, backend, tpb, handle)

    return masked_elementwise(
        launch, "cond", cond, {"a": a, "b": b}, out, dtype, threads_per_block, stream
    )
