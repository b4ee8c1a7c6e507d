"""The elementwise functions of one or two arrays, made from the op table.

The op table (``csrc/include/gpuvec/op_table.h``) names each op once. This
module reads its rows from the compiled core and makes one public function
for each plain op: ``exp(x, ...)`` for an op of one input, ``add(a, b, ...)``
for an op of two. Each function is a single call into the core, which
describes the arguments, broadcasts them and launches the kernel.

The ops with parameters or a third input (``scale``, ``axpy``, ``axpby``,
``clip``, ``where``) have signatures of their own: see
:mod:`gpuvec.elementwise` and :mod:`gpuvec.blas`.

Each follows the NumPy function of the same name on float32 and float64
data: NaN and inf go through as in NumPy, a value outside a function's
domain gives NaN (``sqrt(-1.0)``) and a pole gives inf (``log(0.0)`` is
``-inf``). gpuvec raises no floating-point warnings for them.

Examples
--------
>>> import numpy as np, gpuvec
>>> gpuvec.add(np.array([6.0, 8.0]), 2.0)
array([ 8., 10.])
>>> gpuvec.tan(np.array([0.0]))
array([0.])
"""

from __future__ import annotations

import numpy as np

from gpuvec import _complex, _core
from gpuvec._table import ELEMENTWISE_OPS, ElementwiseOp

# The rows of one or two inputs and no parameters: the plain functions.
_ROWS = [row for row in ELEMENTWISE_OPS.values() if row.public]

# NumPy's other names for some of them, which gpuvec has too.
ALIASES = {"abs": "absolute", "atan2": "arctan2"}

# An expression computing the same in NumPy, for the docstring examples of
# the ops NumPy has no function for.
_NUMPY_TWIN = {"sigmoid": "1 / (1 + np.exp(-{x}))"}

_PARAMETERS = """out : numpy.ndarray or DeviceArray, optional
    Where to write the result: writable, of the result's shape and dtype.
    It may be an input (``out={first}`` works in place).
dtype : {{numpy.float32, numpy.float64}}, optional
    The dtype to compute and return in; by default float32 when every
    float input is float32, else float64 (Python numbers do not count).
threads_per_block : int, optional
    CUDA block size (default 256). Above 1024 the launch fails with
    :class:`gpuvec.CudaError`, on both backends.
stream : gpuvec.Stream, optional
    The stream to queue the work on (default: the current stream)."""

_DOC = """{summary}{like}.

Parameters
----------
{inputs}
{parameters}

Returns
-------
numpy.ndarray, DeviceArray or scalar
    The result{kind}, or ``out`` when given: a DeviceArray when an input is
    one (NumPy arrays may not be mixed with them), a NumPy scalar when every
    input is a number. {accuracy}

Examples
--------
>>> import numpy as np, gpuvec
>>> {example_setup}
>>> np.{check}(gpuvec.{name}({args}), {reference})
True
"""

_ONE_INPUT = """x : array_like or DeviceArray
    Real input (bool, int, float32 or float64; lists and numbers too), of
    any shape and strides."""

_TWO_INPUTS = """a, b : array_like, DeviceArray or number
    Real inputs of any shapes that broadcast together, with any strides."""


def _doc(row: ElementwiseOp) -> str:
    name, result = row.name, row.result
    if row.arity == 1:
        setup, args, first = "x = np.array([0.25, 0.5, 0.75])", "x", "x"
        if result == "bool":
            setup = "x = np.array([0.0, 1.5, np.nan, -np.inf])"
    else:
        setup, args, first = "a, b = np.array([0.25, 2.0]), np.array([1.5, 0.5])", "a, b", "a"
        if result == "bool":
            setup = "a, b = np.array([0.0, 2.0, np.nan, 1.0]), np.array([0.0, 0.5, 1.0, 3.0])"
    if "f" not in row.kinds:  # an op of integers (and bools) only: integer examples
        setup = "x = np.array([12, 7, -9, 0])"
        if row.arity == 2:
            setup = "a, b = np.array([12, 7, -9, 0]), np.array([8, 2, 4, 5])"
    approximate = result != "bool" and "f" in row.kinds  # floats: allclose, with NaN
    twin = _NUMPY_TWIN.get(name)
    reference = twin.format(x=args) if twin else f"np.{row.numpy}({args})"
    if result == "bool":
        accuracy = "Exact: the same answers as NumPy on both backends."
    elif row.exact:
        accuracy = "Correctly rounded: the same bits as NumPy on both backends."
    else:
        budget = max(row.host_ulps, row.cuda_ulps)
        accuracy = (
            f"Within {budget} ulp of NumPy's float64 result ({row.host_ulps} on the host "
            f"backend, {row.cuda_ulps} on CUDA); the CUDA and the C math libraries may "
            "round differently."
        )
    return _DOC.format(
        kind=" (a bool array)" if result == "bool" else "",
        check="allclose" if approximate else "array_equal",
        summary=row.summary,
        like=f", like :func:`numpy.{row.numpy}`" if row.numpy else "",
        inputs=_ONE_INPUT if row.arity == 1 else _TWO_INPUTS,
        parameters=_PARAMETERS.format(first=first),
        accuracy=accuracy,
        example_setup=setup,
        name=name,
        args=args,
        reference=reference + (", equal_nan=True" if approximate else ""),
    )


def _one_input(code: int, name: str):
    names = ("x",)

    def function(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
        return _core.elementwise(code, (x,), names, out, dtype, threads_per_block, stream)

    return function


def _two_inputs(code: int, name: str):
    names = ("a", "b")

    def function(a, b, out=None, dtype=None, *, threads_per_block=None, stream=None):
        return _core.elementwise(code, (a, b), names, out, dtype, threads_per_block, stream)

    return function


def _make(row: ElementwiseOp):
    function = (_one_input if row.arity == 1 else _two_inputs)(row.code, row.name)
    function.__name__ = function.__qualname__ = row.name
    function.__module__ = __name__
    function.__doc__ = _doc(row)
    return function


def square(x, out=None, dtype=None, *, threads_per_block=None, stream=None):
    """The square of each element, ``x * x``, as NumPy's ``square`` (of a
    complex number NumPy's product: ``(re*re - im*im, re*im + im*re)``).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.square(np.array([1.5, -2.0]))
    array([2.25, 4.  ])
    >>> gpuvec.square(np.array([1 + 2j]))
    array([-3.+4.j])
    """
    if getattr(x, "dtype", None) == np.bool_:  # NumPy squares bools as int8
        x = x.astype(np.int8)
    return _core.elementwise(
        _MULTIPLY, (x, x), ("x", "x"), out, dtype, threads_per_block, stream
    )  # fmt: skip


def real(x):
    """The real part of each element, as a new array (NumPy's ``real``, copied).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.real(np.array([1 + 2j, 3 - 4j]))
    array([1., 3.])
    """
    return _complex.real(x)


def imag(x):
    """The imaginary part of each element, as a new array (NumPy's ``imag``, copied).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.imag(np.array([1 + 2j, 3 - 4j]))
    array([ 2., -4.])
    """
    return _complex.imag(x)


def conjugate(x):
    """The complex conjugate of each element, ``re - i im`` (a copy of real data).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.conjugate(np.array([1 + 2j, 3 - 4j]))
    array([1.-2.j, 3.+4.j])
    """
    return _complex.conj(x)


def angle(z):
    """The angle of each element in radians, ``arctan2(z.imag, z.real)``, as
    NumPy's ``angle`` (a float result).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.angle(np.array([1j, -1.0]))
    array([1.57079633, 3.14159265])
    """
    return _complex.angle(z)


_MULTIPLY = ELEMENTWISE_OPS["multiply"].code
FUNCTIONS = {row.name: _make(row) for row in _ROWS}
FUNCTIONS.update({alias: FUNCTIONS[name] for alias, name in ALIASES.items()})
FUNCTIONS.update(
    square=square, real=real, imag=imag, conjugate=conjugate, conj=conjugate, angle=angle
)
globals().update(FUNCTIONS)

__all__ = sorted(FUNCTIONS)
