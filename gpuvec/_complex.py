"""The functions of complex data that read its parts: real, imag, conj, angle.

A complex array's real and imaginary parts are every other float of its
memory, so each is a float view (``_core.complex_parts``: a DeviceArray of a
DeviceArray, NumPy's ``.real`` and ``.imag`` of anything else), and these
functions are gpuvec's real ops on those views: ``angle`` is ``arctan2(im,
re)`` as NumPy's is, ``conj`` writes the real part and the negated imaginary
part into a new array. Each returns a new array (NumPy's ``real`` and
``imag`` return views; gpuvec's results never share memory with an input).

Examples
--------
>>> import numpy as np, gpuvec
>>> z = gpuvec.to_device(np.array([1 + 2j, -3 - 4j], np.complex64))
>>> real(z).to_host(), imag(z).to_host()
(array([ 1., -3.], dtype=float32), array([ 2., -4.], dtype=float32))
>>> conj(z).to_host()
array([ 1.-2.j, -3.+4.j], dtype=complex64)
"""

from __future__ import annotations

import numpy as np

from gpuvec import _core
from gpuvec._table import ELEMENTWISE

__all__ = ["angle", "conj", "imag", "is_complex", "real"]


def is_complex(x) -> bool:
    """Whether ``x`` is complex data (an array of a complex dtype, a complex number)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.asarray(x).dtype
    return dtype.kind == "c"


def _new_copy(part):
    """A new array holding a part's values (a DeviceArray of a DeviceArray)."""
    if isinstance(part, np.ndarray):
        return np.array(part)
    return part.copy()


def real(x):
    """The real part of each element, as a new array (float32 of complex64,
    float64 of complex128; of a real array a copy of it)."""
    if not is_complex(x):
        return _new_copy(x) if hasattr(x, "dtype") else np.array(x)
    return _new_copy(_core.complex_parts(x)[0])


def imag(x):
    """The imaginary part of each element, as a new array (zeros of a real array's dtype)."""
    if not is_complex(x):
        values = x if hasattr(x, "dtype") else np.asarray(x)
        result = _new_copy(values)
        _core.copy_into(result, 0)
        return result
    return _new_copy(_core.complex_parts(x)[1])


def conj(x):
    """The complex conjugate of each element, re - i im, as a new array (a
    copy of a real array): NumPy's bits, -0.0 for an imaginary part of 0.0."""
    if not is_complex(x):
        return real(x)
    if isinstance(x, _core.ArrayFields):
        result = _core.new_array(x.shape, x.dtype, x._stream, device=x._device)
    else:
        x = np.asarray(x)
        result = np.empty(x.shape, x.dtype)
    re, im = _core.complex_parts(x)
    out_re, out_im = _core.complex_parts(result)
    _core.copy_into(out_re, re)
    _core.elementwise(ELEMENTWISE["negative"], (im,), ("x.imag",), out=out_im)
    return result


def angle(x):
    """The angle of each element in radians, ``arctan2(imag, real)`` as
    NumPy's ``angle`` computes it (a float result; 0 or pi of real data)."""
    if not is_complex(x):
        return _core.elementwise(ELEMENTWISE["arctan2"], (0, x), ("imag", "x"))
    re, im = _core.complex_parts(x)
    return _core.elementwise(ELEMENTWISE["arctan2"], (im, re), ("x.imag", "x.real"))
