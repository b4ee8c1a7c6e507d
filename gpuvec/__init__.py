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

from gpuvec import _core
from gpuvec import random as random  # gpuvec.random, kept out of `import *` (stdlib random)
from gpuvec._backend import backend, devices, is_available, set_backend, synchronize
from gpuvec._backend import choose_later as _choose_backend_later
from gpuvec._dtypes import get_precision, precision, set_precision
from gpuvec._errors import (
    BarrierDivergenceError,
    CompileError,
    CudaError,
    GpuvecError,
    HostFallbackWarning,
    KernelBugError,
    OutOfBoundsError,
    OutOfMemoryError,
    RaceError,
    UninitializedReadError,
    WarpMaskError,
)
from gpuvec.blas import asum, axpby, norm
from gpuvec.creation import (
    arange,
    asarray,
    asnumpy,
    empty,
    empty_like,
    from_dlpack,
    full,
    full_like,
    ones,
    ones_like,
    to_device,
    zeros,
    zeros_like,
)
from gpuvec.device import Device, current_device
from gpuvec.device_array import DeviceArray
from gpuvec.elementwise import axpy, clip, scale, where
from gpuvec.fusion import fuse
from gpuvec.kernels import ElementwiseKernel, Kernel, RawKernel, ReductionKernel, SourceModule
from gpuvec.manipulation import broadcast_to, concatenate, expand_dims, squeeze, stack
from gpuvec.memory import free_cached, memory_info, memory_limit, set_memory_limit

# The reductions (sum, mean, ...), one per public reduction row of the op table.
from gpuvec.reductions import *  # noqa: F403
from gpuvec.reductions import __all__ as _reductions
from gpuvec.scans import bincount, cumprod, cumsum, histogram
from gpuvec.sorting import argsort, searchsorted, sort, unique
from gpuvec.streams import Event, Stream, current_stream

# The plain elementwise functions (add, exp, ...), one per row of the op table.
from gpuvec.ufuncs import *  # noqa: F403
from gpuvec.ufuncs import __all__ as _ufuncs

# isort: off
# NumPy's ufuncs and functions on DeviceArrays (np.add(d, d), np.sum(d), ...):
# the module above every op module, which fills DeviceArray's tables.
from gpuvec import _numpy_protocols  # noqa: F401
# isort: on

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """``%load_ext gpuvec`` adds ``%gpuvec_info``, ``%%gpuvec_timeit`` and ``%%gpuvec_kernel``.

    See :mod:`gpuvec._ipython`.
    """
    from gpuvec._ipython import register

    register(ipython)


def get_include() -> str:
    """The folder of gpuvec's C headers, for extensions that call gpuvec from C.

    gpuvec's compiled module exports no C function to link against: another
    extension calls gpuvec through its C API, as NumPy's do through
    ``import_array()``. ``gpuvec/api.h`` declares it: ``gpuvec_api``, a
    versioned table of pointers to the functions of ``gpuvec/gpuvec.h`` (the
    ops, the op tables, the last error, CUDA memory and copies), and
    ``import_gpuvec()``, which the extension's module init calls to take the
    table from the capsule ``gpuvec._core._C_API`` (raising ``ImportError``
    if the installed gpuvec is older than the headers it was built with).
    Cython code cimports the same from ``gpuvec/_abi.pxd``, in the folder
    above this one.

    Returns
    -------
    str
        The folder to add to the compiler's include path; ``gpuvec/api.h`` and
        ``gpuvec/gpuvec.h`` are in it.

    See Also
    --------
    numpy.get_include : the same for NumPy's C API.

    Notes
    -----
    In C, after ``import_gpuvec()`` has succeeded in the module's init::

        #include "gpuvec/api.h"  /* first: it includes Python.h */

        gpuvec_launch launch = {GPUVEC_BACKEND_HOST, 0, NULL};
        gpuvec_status status = gpuvec_api_table->elementwise(
            add, &out, inputs, 2, NULL, GPUVEC_FLOAT64, &launch);
        if (status != GPUVEC_SUCCESS)
            PyErr_SetString(PyExc_ValueError, gpuvec_api_table->last_error_message());

    where ``add`` is the code that ``gpuvec_api_table->elementwise_ops()``
    gives the row named ``"add"``. Notebook 08's lab extension does this in
    Cython.

    Examples
    --------
    >>> import os, gpuvec
    >>> os.path.isfile(os.path.join(gpuvec.get_include(), "gpuvec", "api.h"))
    True
    >>> type(gpuvec._core._C_API).__name__  # the table that import_gpuvec() reads
    'PyCapsule'
    """
    return _core.include_dir()


__all__ = [
    "BarrierDivergenceError",
    "CompileError",
    "CudaError",
    "Device",
    "DeviceArray",
    "ElementwiseKernel",
    "Event",
    "GpuvecError",
    "HostFallbackWarning",
    "Kernel",
    "KernelBugError",
    "OutOfBoundsError",
    "OutOfMemoryError",
    "RaceError",
    "RawKernel",
    "ReductionKernel",
    "SourceModule",
    "Stream",
    "UninitializedReadError",
    "WarpMaskError",
    "arange",
    "argsort",
    "asarray",
    "asnumpy",
    "asum",
    "axpby",
    "axpy",
    "backend",
    "bincount",
    "broadcast_to",
    "clip",
    "concatenate",
    "cumprod",
    "cumsum",
    "current_device",
    "current_stream",
    "devices",
    "empty",
    "empty_like",
    "expand_dims",
    "free_cached",
    "from_dlpack",
    "full",
    "full_like",
    "fuse",
    "get_include",
    "get_precision",
    "histogram",
    "is_available",
    "memory_info",
    "memory_limit",
    "norm",
    "ones",
    "ones_like",
    "precision",
    "scale",
    "searchsorted",
    "set_backend",
    "set_memory_limit",
    "set_precision",
    "sort",
    "squeeze",
    "stack",
    "synchronize",
    "to_device",
    "unique",
    "where",
    "zeros",
    "zeros_like",
]
__all__ += _ufuncs + _reductions  # the functions of the op table

# Check GPUVEC_BACKEND; the first call that needs a backend picks it (CUDA where
# it can run) and warns once on fallback.
_choose_backend_later()
