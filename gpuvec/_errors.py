"""The exceptions and warnings gpuvec raises."""

from __future__ import annotations

__all__ = ["CompileError", "CudaError", "GpuvecError", "HostFallbackWarning", "OutOfMemoryError"]

# After these errors the CUDA context is broken for good: every later CUDA
# call in the process fails the same way (cudaErrorIllegalAddress, ...).
_STICKY_CODES = frozenset({214, 700, 701, 702, 710, 713, 714, 715, 716, 717, 718, 719, 720})


class GpuvecError(Exception):
    """Base class of gpuvec's own errors."""


class CudaError(GpuvecError, RuntimeError):
    """A CUDA call failed.

    Attributes
    ----------
    code : int or None
        CUDA's error code (a ``cudaError_t`` value), or None where the failure
        was not reported by CUDA itself (a build without CUDA, say).
    name : str or None
        CUDA's name for the code, such as ``"cudaErrorInvalidConfiguration"``.

    Examples
    --------
    >>> err = CudaError("invalid configuration argument", 9, "cudaErrorInvalidConfiguration")
    >>> err.name, err.code
    ('cudaErrorInvalidConfiguration', 9)
    """

    def __init__(
        self, message: str, code: int | None = None, name: str | None = None, *, emulated=False
    ):
        self.code = code
        self.name = name
        # The host emulation of a user's kernel reports CUDA's names for the
        # same faults, but it has no context to break.
        if code in _STICKY_CODES and not emulated:
            message += (
                ". The CUDA context is now unusable: every later GPU call in this process "
                "will fail; restart the Python process (in Jupyter: restart the kernel)"
            )
        prefix = f"{name} ({code}): " if name else ""
        super().__init__(prefix + message)


class OutOfMemoryError(CudaError, MemoryError):
    """A device (or staging) allocation failed even after freeing cached memory."""


class CompileError(GpuvecError):
    """A kernel's source did not compile (NVRTC on a GPU, the host C++ compiler without one).

    The message names the first error's line in the user's source, shows the
    line with a caret under the culprit where the compiler says which, and
    leaves out the compiler's noise; the full log is kept.

    Attributes
    ----------
    log : str
        The compiler's whole log.
    source_name : str
        The name the source was compiled under, such as ``"cell_3.cu"``.

    Examples
    --------
    >>> err = CompileError("k.cu, line 2: y is undefined", log="...", source_name="k.cu")
    >>> err.source_name
    'k.cu'
    """

    def __init__(self, message: str, log: str = "", source_name: str = ""):
        self.log = log
        self.source_name = source_name
        super().__init__(message)


class HostFallbackWarning(UserWarning):
    """gpuvec runs on its host backend because CUDA cannot be used; the message says why."""
