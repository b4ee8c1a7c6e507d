"""The dtype policy: which inputs gpuvec takes and which dtype it computes in.

gpuvec computes in float32 or float64. The result dtype is NumPy's
``result_type`` of the inputs, mapped into those two:

=========================================  ==========
inputs                                     result
=========================================  ==========
all float32 (Python scalars do not count)  float32
float16 (alone or with float32)            float32
any float64                                float64
ints or bools alone, or with float32       float64
=========================================  ==========

``dtype=np.float32`` (or ``np.float64``) overrides the result, casting the
inputs: the classic GPU-tutorial way of running float64 data in float32.
"""

from __future__ import annotations

import numbers

import numpy as np

SUPPORTED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def as_real_array(value, name: str) -> np.ndarray:
    """``value`` as a NumPy array of real numbers, or a TypeError naming ``name``."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} cannot be turned into a numeric array: {exc}") from None
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} has dtype {array.dtype}, which gpuvec does not support: "
            "gpuvec computes on real numbers (bool, int, float32 or float64)"
        )
    return array


def check_dtype(dtype) -> np.dtype | None:
    """The ``dtype=`` argument as a NumPy dtype (float32 or float64), or None."""
    if dtype is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be float32 or float64, got {dtype!r}") from None
    if dt not in SUPPORTED_DTYPES:
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    return dt


def result_dtype(*inputs, dtype=None) -> np.dtype:
    """The dtype an op computes and returns in.

    Parameters
    ----------
    *inputs : array_like or scalar
        The op's inputs. Python scalars are "weak", as in NumPy 2: they do
        not turn a float32 computation into a float64 one.
    dtype : dtype, optional
        An explicit float32 or float64 result dtype.

    Examples
    --------
    >>> import numpy as np
    >>> result_dtype(np.ones(3, np.float32), 2.0)
    dtype('float32')
    >>> result_dtype(np.arange(3))
    dtype('float64')
    >>> result_dtype(np.ones(3), dtype=np.float32)
    dtype('float32')
    """
    explicit = check_dtype(dtype)
    if explicit is not None:
        return explicit
    kinds = []
    for value in inputs:
        if isinstance(value, (bool, numbers.Integral, float)) and not isinstance(
            value, np.generic
        ):
            kinds.append(value)  # a weak Python scalar
        else:
            kinds.append(np.asarray(value).dtype)
    common = np.result_type(*kinds)
    if common.kind not in "biuf":
        raise TypeError(f"gpuvec computes on real numbers; the inputs have dtype {common}")
    if common.kind in "biu":
        return np.dtype(np.float64)
    return np.dtype(np.float32) if common.itemsize <= 4 else np.dtype(np.float64)
