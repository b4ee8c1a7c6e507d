"""gpuvec: fast GPU vector math on NumPy data, with an identical host backend.

Every op takes NumPy arrays (or anything NumPy can turn into a real array),
with any strides, and returns NumPy arrays. It runs on the GPU when CUDA can
be used and on the host otherwise, with the same results.

Examples
--------
>>> import numpy as np, gpuvec
>>> gpuvec.add(np.ones(3), np.arange(3))
array([1., 2., 3.])
"""

import pkgutil

# Run from a source checkout (`python3 -m gpuvec` in the repository root),
# Python finds this folder first, and it holds no compiled core. extend_path
# adds the installed package's folder, so the compiled parts come from there.
__path__ = pkgutil.extend_path(__path__, __name__)

from gpuvec._backend import backend, devices, is_available, set_backend, synchronize
from gpuvec._errors import CudaError, GpuvecError, HostFallbackWarning, OutOfMemoryError
from gpuvec.elementwise import add, axpy, divide, multiply, scale, subtract
from gpuvec.reductions import dot, sum

__version__ = "0.1.0"

__all__ = [
    "CudaError",
    "GpuvecError",
    "HostFallbackWarning",
    "OutOfMemoryError",
    "add",
    "axpy",
    "backend",
    "devices",
    "divide",
    "dot",
    "is_available",
    "multiply",
    "scale",
    "set_backend",
    "subtract",
    "sum",
    "synchronize",
]

from gpuvec import _backend as _backend_module

_backend_module.choose_at_import()
del _backend_module
