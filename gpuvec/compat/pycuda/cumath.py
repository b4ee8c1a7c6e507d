"""PyCUDA's ``pycuda.cumath``: elementwise math on GPUArrays, by gpuvec's ops.

Each function takes a GPUArray (and ``stream=``, and ``out=`` where PyCUDA
has it) and returns a new GPUArray. PyCUDA's ``fmod``, ``frexp``,
``ldexp``, ``modf``, ``log10``, ``sinh`` and ``cosh`` have no gpuvec op and
are left out.

Examples
--------
>>> import numpy as np
>>> import gpuvec.compat.pycuda.gpuarray as gpuarray
>>> import gpuvec.compat.pycuda.cumath as cumath
>>> x = gpuarray.to_gpu(np.array([0.0, 1.0, 4.0]))
>>> cumath.sqrt(x).get()
array([0., 1., 2.])
"""

from __future__ import annotations

import contextlib

import gpuvec
from gpuvec.compat.pycuda.gpuarray import GPUArray

__all__ = [
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "exp",
    "expm1",
    "fabs",
    "floor",
    "log",
    "log1p",
    "sin",
    "sqrt",
    "tan",
    "tanh",
]


def _elementwise(name: str, op):
    def function(array: GPUArray, stream=None, out: GPUArray | None = None) -> GPUArray:
        source = array.device_array if isinstance(array, GPUArray) else array
        with stream if stream is not None else contextlib.nullcontext():
            if out is not None:
                op(source, out=out.device_array)
                return out
            return GPUArray._wrap(op(source))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``{op.__name__}`` of each element (:func:`gpuvec.{op.__name__}`)."
    return function


fabs = _elementwise("fabs", gpuvec.abs)
ceil = _elementwise("ceil", gpuvec.ceil)
floor = _elementwise("floor", gpuvec.floor)
exp = _elementwise("exp", gpuvec.exp)
expm1 = _elementwise("expm1", gpuvec.expm1)
log = _elementwise("log", gpuvec.log)
log1p = _elementwise("log1p", gpuvec.log1p)
sqrt = _elementwise("sqrt", gpuvec.sqrt)
sin = _elementwise("sin", gpuvec.sin)
cos = _elementwise("cos", gpuvec.cos)
tan = _elementwise("tan", gpuvec.tan)
asin = _elementwise("asin", gpuvec.arcsin)
acos = _elementwise("acos", gpuvec.arccos)
atan = _elementwise("atan", gpuvec.arctan)
tanh = _elementwise("tanh", gpuvec.tanh)
