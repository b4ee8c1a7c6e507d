"""The exceptions and warnings gpuvec raises.

They are defined in the compiled core (gpuvec._core._abi), which raises
them when a C ABI call fails; their ``__module__`` is this module, which
users, the documentation and pickle know them by.
"""

from __future__ import annotations

from gpuvec._core import (
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

__all__ = [
    "BarrierDivergenceError",
    "CompileError",
    "CudaError",
    "GpuvecError",
    "HostFallbackWarning",
    "KernelBugError",
    "OutOfBoundsError",
    "OutOfMemoryError",
    "RaceError",
    "UninitializedReadError",
    "WarpMaskError",
]
