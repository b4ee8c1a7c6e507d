"""Users' own CUDA kernels: compiled by NVRTC on a GPU, by the host C++ compiler without one.

- :class:`SourceModule` compiles CUDA C++ once; its ``__global__`` functions
  are :class:`Kernel` objects (``mod.get_function("doublify")`` or
  ``mod.doublify``).
- :class:`RawKernel` is one kernel from its source.
- :class:`ElementwiseKernel` is an elementwise operation in CuPy's spec
  language, compiled from gpuvec's own elementwise kernels, and
  :class:`ReductionKernel` a reduction, compiled from its reduction engine.
- :func:`kernel_cache` is the on-disk cache of compiled kernels.
"""

from gpuvec.kernels import _own
from gpuvec.kernels._elementwise import ElementwiseKernel
from gpuvec.kernels._module import Kernel, RawKernel, SourceModule, kernel_cache
from gpuvec.kernels._reduction import ReductionKernel

# The CUDA backend compiles gpuvec's own kernels at their first use, with this.
_own.register()

__all__ = [
    "ElementwiseKernel",
    "Kernel",
    "RawKernel",
    "ReductionKernel",
    "SourceModule",
    "kernel_cache",
]
