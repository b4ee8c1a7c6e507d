"""The dtypes PyCUDA code may keep its data in here: gpuvec's own."""

from __future__ import annotations

import numpy as np

from gpuvec._dtypes import ARRAY_DTYPES, check_array_dtype

__all__ = ["checked_dtype", "holds"]


def checked_dtype(dtype, what: str) -> np.dtype:
    """``dtype`` as a NumPy dtype, where gpuvec holds data of it; else gpuvec's TypeError.

    Parameters
    ----------
    dtype : dtype_like
        The dtype PyCUDA code asked for.
    what : str
        What asked for it, such as ``"gpuarray.to_gpu"``, for the message.

    Raises
    ------
    TypeError
        For a dtype that gpuvec's arrays do not hold (longdouble, datetime64, ...):
        the compatibility layer does not emulate one dtype with another.

    Examples
    --------
    >>> checked_dtype("float32", "gpuarray.empty")
    dtype('float32')
    >>> checked_dtype(np.longdouble, "gpuarray.empty")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    TypeError: gpuarray.empty: dtype must be one of float32, ...; got float128; ...
    """
    try:
        return check_array_dtype(dtype)
    except TypeError as exc:
        raise TypeError(
            f"{what}: {exc}; gpuvec.compat.pycuda keeps data in gpuvec's dtypes and does not "
            "emulate others: convert it first (a.astype(np.float32)), or pass a NumPy array "
            "of any dtype straight to a kernel with drv.In, drv.Out or drv.InOut"
        ) from None


def holds(dtype: np.dtype) -> bool:
    """Whether gpuvec's arrays hold ``dtype``.

    Examples
    --------
    >>> holds(np.dtype(np.float64)), holds(np.dtype(np.complex64)), holds(np.dtype(np.longdouble))
    (True, True, False)
    """
    return dtype in ARRAY_DTYPES
