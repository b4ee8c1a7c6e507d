"""The drawing step: each Generator method's values, as NumPy's Generator(Philox) draws them.

Each function takes the bit generator (a ``numpy.random.Philox``, which is
the state: the functions read its position and leave it where NumPy's
Generator would), the count as NumPy's ``size`` (None for one value), the
dtype and the method's own parameters, and returns NumPy's values: an
ndarray (or, for ``size=None``, NumPy's scalar). Today NumPy draws them on the
host, which is exact. A device-side generator can replace one function at a
time without changing :class:`gpuvec.random.Generator`: each docstring says
how the stream position maps to the values, as a kernel would compute them.

The stream (``<gpuvec/random.h>`` computes it; tests/test_random.py checks it
against NumPy): Philox4x64-10 makes blocks of four uint64 from a 256-bit
counter and a 128-bit key, the counter incremented before each block, so from
counter ``c`` the uint64 number ``i`` is word ``i % 4`` of the block of
``c + 1 + i // 4``. NumPy's 32-bit draws (``next_uint32``) take the low half
of a uint64 and keep its high half for the next one (``has_uint32`` and
``uinteger`` in the state), so a stream of only 32-bit draws is the uint64
stream's halves, low first; a 64-bit draw between them does not take the kept
half.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "choice_values",
    "exponential_values",
    "integer_values",
    "normal_values",
    "permuted_values",
    "random_values",
    "shuffle_values",
    "standard_exponential_values",
    "standard_normal_values",
    "uniform_values",
]


def _numpy(bit_generator) -> np.random.Generator:
    # A NumPy Generator over the same bit generator shares its state: what it
    # draws advances `bit_generator`.
    return np.random.Generator(bit_generator)


def random_values(bit_generator, size, dtype, out=None):
    """``random``: uniform values in [0, 1).

    float64 value ``k`` is ``(u64[k] >> 11) * 2**-53``, one uint64 each;
    float32 value ``k`` is ``(u32[k] >> 8) * 2**-24``, one 32-bit half each.
    ``out`` (a host array) is filled in its memory order, as NumPy fills it.

    Examples
    --------
    >>> import numpy as np
    >>> bits = np.random.Philox(3)
    >>> u = random_values(bits, 2, np.float64)
    >>> raw = np.random.Philox(3).random_raw(2)
    >>> np.array_equal(u, (raw >> np.uint64(11)) * 2.0**-53)
    True
    """
    return _numpy(bit_generator).random(size, dtype, out)


def integer_values(bit_generator, low, high, size, dtype, endpoint):
    """``integers``: uniform integers in [low, high) (or [low, high] with ``endpoint``).

    NumPy's bounded draws (``random_bounded_uint64_fill`` and its narrower
    kin in NumPy's ``_bounded_integers``): for a range ``r`` (high - low, less
    one unless ``endpoint``), 0 takes no draw; a full 32- or 64-bit range is
    ``low +`` one raw draw; otherwise Lemire's multiply-and-reject on 32-bit
    draws when ``r`` fits 32 bits and on uint64 draws when not. The 8- and
    16-bit dtypes and bool take their 32-bit draws in pieces (a buffer of
    one uint32 per call), so their values are not one draw each.
    """
    return _numpy(bit_generator).integers(low, high, size, dtype, endpoint)


def uniform_values(bit_generator, low, high, size):
    """``uniform``: ``low + (high - low) * random()`` in float64, one uint64 per value."""
    return _numpy(bit_generator).uniform(low, high, size)


def standard_normal_values(bit_generator, size, dtype, out=None):
    """``standard_normal``: NumPy's ziggurat (``random_standard_normal[_f]``).

    float64 takes one uint64 per try: its low 8 bits pick the layer, the next
    bit the sign, the next 52 the magnitude; about 99% of values are accepted
    at the first try, and the rest take more draws and call ``exp`` or
    ``log1p``, whose results a device-side version must match bit for bit.
    float32 does the same with one 32-bit draw per try.
    """
    return _numpy(bit_generator).standard_normal(size, dtype, out)


def normal_values(bit_generator, loc, scale, size):
    """``normal``: ``loc + scale * standard_normal()`` in float64."""
    return _numpy(bit_generator).normal(loc, scale, size)


def standard_exponential_values(bit_generator, size, dtype, method="zig", out=None):
    """``standard_exponential``: NumPy's ziggurat, or ``-log1p(-random())`` for ``method="inv"``.

    The ziggurat takes one uint64 (float32: one 32-bit draw) per try, accepts
    about 99% at the first, and calls ``exp``/``log1p`` on the rare others.
    """
    return _numpy(bit_generator).standard_exponential(size, dtype, method, out)


def exponential_values(bit_generator, scale, size):
    """``exponential``: ``scale * standard_exponential()`` in float64."""
    return _numpy(bit_generator).exponential(scale, size)


def permuted_values(bit_generator, x, axis):
    """``permutation``: ``x`` (an int: ``arange(x)``) shuffled along ``axis``, a new array.

    The order is that of :func:`shuffle_values` on ``arange(len)``: the draws
    do not depend on the data.
    """
    return _numpy(bit_generator).permutation(x, axis)


def shuffle_values(bit_generator, x, axis):
    """``shuffle``: ``x`` (a host array or sequence) shuffled in place along ``axis``.

    Fisher-Yates from the end: for ``i = n - 1, ..., 1``, swap ``i`` with
    ``j``, drawn in [0, i] by masked rejection (the mask is the smallest
    ``2**k - 1`` at least ``i``; 32-bit draws while ``i`` fits 32 bits, uint64
    draws above).
    """
    _numpy(bit_generator).shuffle(x, axis)


def choice_values(bit_generator, a, size, replace, p, axis, shuffle):
    """``choice``: ``size`` elements of ``a`` (an int: ``arange(a)``) along ``axis``.

    With ``replace``, the indices are bounded integer draws in [0, n) (as
    :func:`integer_values` with int64); without, NumPy's partial Fisher-Yates
    or Floyd's algorithm (which one depends on the population's and the
    sample's sizes), then (``shuffle``) a shuffle of the result; with ``p``,
    NumPy's inverse-CDF search of uniform draws.
    """
    return _numpy(bit_generator).choice(a, size, replace, p, axis, shuffle)
