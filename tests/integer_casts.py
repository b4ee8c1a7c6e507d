"""The values gpuvec's conversions of floats to integer dtypes give.

NumPy defines a float's conversion to an integer dtype where the value,
rounded toward zero, fits; elsewhere (NaN, infinities, values out of range)
it warns "invalid value encountered in cast" and gives what the processor's
instructions give, which differs between x86-64 processors with and without
AVX-512. gpuvec gives the same values on every backend and machine: those of
x86-64's conversions without AVX-512 (gpuvec/operand.hpp's convert).
"""

import warnings

import numpy as np


def documented_cast(x, dtype) -> np.ndarray:
    """gpuvec's conversion of floats to an integer dtype (gpuvec/operand.hpp's
    convert), element by element in Python: toward zero where the value fits,
    as NumPy's; elsewhere (NaN, infinities, out of range), where NumPy's result
    depends on the processor, x86-64's conversion instructions without AVX-512."""
    dtype = np.dtype(dtype)
    bits = 8 * dtype.itemsize

    def truncated(v: float, width: int) -> int:
        limit = 2.0 ** (width - 1)
        return int(v) if -limit <= v < limit else -(2 ** (width - 1))

    values = []
    for v in np.asarray(x, np.float64).ravel():  # float32 values are exact in float64
        if dtype.kind == "u" and bits >= 32:
            top = 2.0 ** (bits - 1)
            if v >= top:
                n = (truncated(v - top, bits) % 2**bits) ^ (1 << (bits - 1))
            else:
                n = truncated(v, bits)
        else:
            n = truncated(v, 32 if bits <= 32 else 64)
        values.append(n % 2**bits)
    return np.array(values, np.uint64).astype(dtype).reshape(np.shape(x))


def numpy_cast(x, dtype) -> np.ndarray:
    """x.astype(dtype) as gpuvec gives it: NumPy's, but documented_cast's for
    floats that an integer dtype cannot hold, which NumPy leaves to the processor."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "invalid value in cast"
        expected = x.astype(dtype)
    if x.dtype.kind == "f" and np.dtype(dtype).kind in "iu":
        return np.where(fits(x, dtype), expected, documented_cast(x, dtype))
    return expected


def fits(x, dtype) -> np.ndarray:
    """Where floats x, rounded toward zero, are values of the integer dtype."""
    info = np.iinfo(dtype)
    whole = np.trunc(np.where(np.isfinite(x), x, 0).astype(np.float64))
    return np.isfinite(x) & (whole >= float(info.min)) & (whole <= float(info.max))
