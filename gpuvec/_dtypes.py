"""The dtype policy: which inputs gpuvec takes and which dtype it computes in.

A DeviceArray holds any real dtype (:data:`ARRAY_DTYPES`: float32,
float64, bool, the signed and unsigned integers of 8 to 64 bits, and
float16) and complex64 and complex128: ``to_device`` keeps the data's
dtype, ``astype`` converts as NumPy's does (to float16 rounding once to
nearest even, a float64 never through float32; complex to real dropping the
imaginary part with NumPy's ComplexWarning), and users' kernels take every
one but float16 and the complex dtypes (an ``int*`` parameter an int32
array). The ops NumPy defines for complex numbers that gpuvec has kernels
of compute in them, with NumPy's promotion (``complex64 + 1j`` is
complex64, ``complex64 + float64`` complex128); docs/dtypes.rst lists them.

gpuvec's own ops compute in the dtype NumPy 2 computes in: each op asks
its NumPy ufunc to resolve its loop for the inputs (NEP 50: Python numbers
are "weak" and take the other operand's dtype), so integers stay integers,
wrapping around as NumPy's do, ``//`` and ``%`` floor, ``/`` and the float
functions (``sqrt``, ``exp``...) give floats, bools with bools give bools
(``add`` is their logical or), and mixed signedness promotes as in NumPy.
A precision or a ``dtype=`` changes the float results only:

=================================================  ===============
inputs                                             result
=================================================  ===============
all float32 (Python scalars do not count)          float32
float16 (with bools, 8-bit ints, Python numbers)   float16
float16 with float32 or 16-bit ints                float32
float32 with bools or 8- or 16-bit ints            float32
any float64                                        float64
float32 with 32- or 64-bit ints                    float64
ints, bools, Python numbers: an integer op         NumPy's integer dtype
the same, a float op (``/``, ``sqrt``)             NumPy's float dtype
a float result, under ``precision("float32")``     float32
a float result, under ``precision("float64")``     float64
any inputs, with ``dtype=`` (wins over precision)  that dtype
=================================================  ===============

Where NumPy's loop is float16 (``h + h``, ``sqrt`` of an int8 array, the
sum or mean of a float16 array), gpuvec computes in float32, as NumPy's
float16 loops do, and rounds the result to float16, NumPy's result dtype:
``+ - * /`` and ``sqrt`` give NumPy's bits, the other functions are within
an ulp of float16. A Python int out of an integer dtype's range raises
NumPy's OverflowError (comparisons take it, as NumPy 2's do).

``dtype=np.float32`` (or ``np.float64``) overrides the result of one call,
casting the inputs: the classic GPU-tutorial way of running float64 data in
float32. :func:`set_precision` does the same for every call that follows,
and ``with precision(...):`` for the calls inside the block.

On the GPU the float64 <-> float32 cast is not a pass of its own: it happens
in the copy that moves the data, while NumPy data is gathered into pinned
staging memory on its way to the device, so float64 data for a float32 op
crosses the bus as float32. (On the host backend, where nothing moves, the
data is converted before the op reads it.) Integer data of another dtype
than the op's is converted the same way (float16 too, to float32); NumPy
converts host ints first.

Byte order is part of the dtype: a NumPy array in the other byte order
(``">f8"`` on a little-endian machine) holds the same numbers as its
native twin, and gpuvec reads it through a converted copy
(:func:`native_byte_order`), as NumPy's ufuncs do; results are always in
the machine's byte order, and an ``out=`` array in the other byte order
gets the result converted into it.
"""

from __future__ import annotations

import contextlib
import numbers

import numpy as np

# The policy's parts that every call runs are compiled, in gpuvec._core
# (its _operands module), with the precision's state: they are re-exported
# here, where the policy is documented.
from gpuvec._core import (
    ARRAY_DTYPE_NAMES,
    ARRAY_DTYPES,
    SUPPORTED_DTYPES,
    as_real_array,
    check_array_dtype,
    check_dtype,
    native_byte_order,
    pop_precision,
    precision_dtype,
    push_precision,
    result_dtype,
    set_default_precision,
)

# The dtypes users' kernels take: every one a DeviceArray holds but float16,
# for which a kernel's parameter type (``__half``) is not supported yet, and
# the complex dtypes (no kernel parameter type maps to gpuvec's complex yet:
# pass a complex array's parts, .real and .imag, instead).
KERNEL_DTYPES = tuple(dtype for dtype in ARRAY_DTYPES if dtype != np.float16 and dtype.kind != "c")
KERNEL_DTYPE_NAMES = ", ".join(str(dtype) for dtype in KERNEL_DTYPES)

__all__ = [
    "ARRAY_DTYPES",
    "ARRAY_DTYPE_NAMES",
    "KERNEL_DTYPES",
    "KERNEL_DTYPE_NAMES",
    "SUPPORTED_DTYPES",
    "as_real_array",
    "check_array_dtype",
    "check_dtype",
    "get_precision",
    "is_integer_dtype",
    "native_byte_order",
    "precision",
    "result_dtype",
    "scalar_arg",
    "set_precision",
    "strong_scalars",
]


def _precision_arg(value) -> np.dtype | None:
    if value is None:
        return None
    try:
        dt = np.dtype(value)
    except TypeError:
        dt = None
    # `is None` first: a dtype compares equal to None, which np.dtype() reads as float64.
    if dt is None or dt not in SUPPORTED_DTYPES:
        raise ValueError(f"precision must be 'float32', 'float64' or None, got {value!r}")
    return dt


def get_precision() -> str | None:
    """The precision ops run in now: ``"float32"``, ``"float64"``, or None for the default policy.

    Examples
    --------
    >>> import gpuvec
    >>> with gpuvec.precision("float32"):
    ...     gpuvec.get_precision()
    'float32'
    """
    dt = precision_dtype()
    return None if dt is None else dt.name


def set_precision(precision) -> str | None:
    """Run every op that follows in one precision, and return the previous one.

    ``set_precision("float32")`` runs float64 (and int) data in float32, as
    if every call had ``dtype=np.float32``; ``"float64"`` runs float32 data in
    float64; None restores the default policy (float32 where every float input
    is float32, else float64). An explicit ``dtype=`` still wins. The setting
    holds for all threads; :func:`precision` changes it for a block of code.

    Parameters
    ----------
    precision : {"float32", "float64", None}
        Also ``numpy.float32`` and ``numpy.float64``.

    Returns
    -------
    str or None
        The previous setting.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> previous = gpuvec.set_precision("float32")
    >>> gpuvec.add(np.ones(2), np.ones(2)).dtype
    dtype('float32')
    >>> _ = gpuvec.set_precision(previous)
    >>> gpuvec.add(np.ones(2), np.ones(2)).dtype
    dtype('float64')
    """
    previous = set_default_precision(_precision_arg(precision))
    return None if previous is None else previous.name


@contextlib.contextmanager
def precision(precision):
    """Run the ops inside a ``with`` block in one precision.

    Like :func:`set_precision`, for the block only and in the current thread
    (or asyncio task) only: other threads keep their setting.
    ``precision(None)`` runs the block with the default policy.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> x = np.arange(3.0)
    >>> with gpuvec.precision("float32"):
    ...     y = gpuvec.multiply(x, x)
    ...     z = gpuvec.multiply(x, x, dtype=np.float64)  # an explicit dtype wins
    >>> y.dtype, z.dtype, gpuvec.multiply(x, x).dtype
    (dtype('float32'), dtype('float64'), dtype('float64'))
    """
    token = push_precision(_precision_arg(precision))
    try:
        yield
    finally:
        pop_precision(token)


def is_integer_dtype(dtype) -> bool:
    """Whether ``dtype`` names an integer dtype (int64, uint8, ...).

    Examples
    --------
    >>> is_integer_dtype(np.intp), is_integer_dtype("float32"), is_integer_dtype(None)
    (True, False, False)
    """
    if dtype is None:
        return False
    try:
        return np.dtype(dtype).kind in "iu"
    except TypeError:
        return False  # not a dtype: the caller's own check names it


def scalar_arg(value, name: str) -> float:
    """A real scalar argument (alpha, ddof, ...) as a Python float.

    Examples
    --------
    >>> scalar_arg(2, "alpha")
    2.0
    >>> scalar_arg("2", "alpha")
    Traceback (most recent call last):
        ...
    TypeError: alpha must be a real scalar, got '2'
    """
    if isinstance(value, (numbers.Real, np.bool_)) and np.ndim(value) == 0:
        return float(value)
    raise TypeError(f"{name} must be a real scalar, got {value!r}")


def strong_scalars(*values) -> tuple:
    """The values that take part in the dtype policy: all but Python numbers,
    which are "weak" (a Python float keeps float32 data in float32).

    Examples
    --------
    >>> import numpy as np
    >>> strong_scalars(2.0, np.float64(2.0), 3)
    (np.float64(2.0),)
    """
    return tuple(v for v in values if type(v) not in (bool, int, float))
