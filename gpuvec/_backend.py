"""Choosing the backend: CUDA where a usable device exists, the host otherwise.

The choice is made once, when the first call needs it, not at import:
asking the CUDA driver fixes the devices the process sees for good, and a
process may be told its GPU after importing gpuvec (a Dask-CUDA worker is,
through ``CUDA_VISIBLE_DEVICES``). ``GPUVEC_BACKEND=cuda|host|auto`` in the
environment overrides the choice, and :func:`set_backend` changes it at run
time.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import warnings

from gpuvec import _core
from gpuvec._errors import CudaError, HostFallbackWarning

BACKENDS = ("cuda", "host")
_CODES = {"cuda": _core.BACKEND_CUDA, "host": _core.BACKEND_HOST}
_NAMES = {code: name for name, code in _CODES.items()}

# Frames between the user's line and the warning: gpuvec's own, the import
# system's (frozen, or importlib's files where Python runs them unfrozen) and
# runpy's (`python3 -m`).
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_IMPORTLIB_DIR = os.path.dirname(os.path.abspath(importlib.__file__)) + os.sep
_RUNPY = os.path.join(os.path.dirname(_IMPORTLIB_DIR.rstrip(os.sep)), "runpy.py")


@functools.cache
def _cuda_unusable_reason() -> str | None:
    """Why the CUDA backend cannot run here, or None when it can."""
    if not _core.cuda_built():
        return (
            "gpuvec was built without its CUDA backend (nvcc was not found at build time, "
            "or the build used -Dcuda=disabled)"
        )
    try:
        count = _core.cuda_device_count()
    except CudaError as exc:
        if exc.name == "cudaErrorInsufficientDriver":
            return _driver_problem()
        if exc.name == "cudaErrorNoDevice":
            return "no CUDA device was found"
        return f"CUDA cannot run here: {exc}"
    return None if count > 0 else "no CUDA device was found"


def _driver_problem() -> str:
    """What is wrong with the NVIDIA driver, where CUDA says it is insufficient.

    CUDA's runtime says so both where the driver's library (libcuda) cannot
    be loaded at all and where the driver is older than the runtime; the
    driver version tells them apart, 0 being "no driver".
    """
    try:
        (runtime_major, runtime_minor), (major, minor) = _core.cuda_versions()
    except CudaError as exc:
        return f"the NVIDIA driver cannot run CUDA ({exc})"
    if (major, minor) == (0, 0):
        return "no NVIDIA driver was found (its library, libcuda, could not be loaded)"
    return (
        f"the NVIDIA driver is too old: it runs CUDA up to {major}.{minor}, and gpuvec was "
        f"built with CUDA {runtime_major}.{runtime_minor}; update the driver"
    )


def is_available() -> bool:
    """Whether the CUDA backend can run on this machine.

    The answer is cached; the first call asks the CUDA driver, which takes
    milliseconds.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.is_available() in (True, False)
    True
    """
    return _cuda_unusable_reason() is None


def backend() -> str:
    """The name of the active backend: ``"cuda"`` or ``"host"``.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.backend() in ("cuda", "host")
    True
    """
    return _NAMES[_core.backend_code()]  # the core holds the one answer


def set_backend(name: str) -> str:
    """Selects the backend ops run on, and returns the previous one.

    The previous one is ``"auto"`` where no call has needed a backend yet, so
    that passing it back restores the automatic choice.

    Parameters
    ----------
    name : {"cuda", "host", "auto"}
        ``"auto"`` picks CUDA when it can run, else the host.

    Raises
    ------
    CudaError
        ``"cuda"`` was asked for but cannot run; the message says why.

    Examples
    --------
    >>> import gpuvec
    >>> previous = gpuvec.set_backend("host")
    >>> gpuvec.backend()
    'host'
    >>> _ = gpuvec.set_backend(previous)
    """
    previous = backend() if _core.backend_is_chosen() else "auto"
    key = str(name).strip().lower()
    if key == "auto":
        key = "cuda" if is_available() else "host"
    if key not in BACKENDS:
        raise ValueError(f"backend must be 'cuda', 'host' or 'auto', got {name!r}")
    if key == "cuda" and not is_available():
        raise CudaError(f"the cuda backend was asked for, but {_cuda_unusable_reason()}")
    _core.set_backend_code(_CODES[key])
    return previous


def _is_import_machinery(filename: str) -> bool:
    return filename.startswith(("<frozen ", _PACKAGE_DIR, _IMPORTLIB_DIR)) or filename == _RUNPY


def _skipped_by_warnings(filename: str) -> bool:
    # The frames that warnings.warn itself leaves out when it counts stacklevel
    # (CPython's warnings module, in C and in Python, since 3.3).
    return "importlib" in filename and "_bootstrap" in filename


def _users_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning name the user's line of code.

    For a ``warnings.warn`` in this module: the first frame that is none of
    gpuvec's and not the import system's, so the warning names the user's line
    (in a script, a module or a notebook cell) whose call led to it. Where
    there is none (``python3 -m gpuvec``): gpuvec's line, outside this module,
    that did.
    """
    frame = sys._getframe(1)  # the function that warns: stacklevel 1
    level = 1
    outside_this_module = None
    while (frame := frame.f_back) is not None:
        filename = frame.f_code.co_filename
        if not _skipped_by_warnings(filename):
            level += 1
        if not _is_import_machinery(filename):
            return level
        if outside_this_module is None and filename != __file__:
            outside_this_module = level
    return outside_this_module or 2


def _requested() -> str:
    """GPUVEC_BACKEND's value, checked: "cuda", "host" or "auto"."""
    requested = os.environ.get("GPUVEC_BACKEND", "auto").strip().lower() or "auto"
    if requested not in ("auto", *BACKENDS):
        raise ValueError(f"GPUVEC_BACKEND must be 'cuda', 'host' or 'auto', got {requested!r}")
    return requested


def choose_later() -> None:
    """Checks GPUVEC_BACKEND, and leaves the choice to the first call needing a backend.

    GPUVEC_BACKEND=host settles it at once: that asks nothing of CUDA.
    """
    if _requested() == "host":
        set_backend("host")
    else:
        _core.defer_backend_choice(_choose_on_first_use)


def _choose_on_first_use() -> None:
    """Applies GPUVEC_BACKEND, or picks a backend and warns once on fallback."""
    requested = _requested()
    if requested == "cuda" and not is_available():
        raise CudaError(f"GPUVEC_BACKEND=cuda, but {_cuda_unusable_reason()}")
    set_backend(requested)
    if requested == "auto" and not is_available():
        warnings.warn(
            f"gpuvec runs on the host backend: {_cuda_unusable_reason()}. Results are the "
            "same, only slower; set GPUVEC_BACKEND=host to silence this warning.",
            HostFallbackWarning,
            stacklevel=_users_stacklevel(),
        )


def devices() -> list[dict]:
    """The usable CUDA devices and their properties (empty without CUDA).

    Examples
    --------
    >>> import gpuvec
    >>> all("name" in d for d in gpuvec.devices())
    True
    """
    if not is_available():
        return []
    return [_core.cuda_device_info(i) for i in range(_core.cuda_device_count())]


def synchronize() -> None:
    """Waits until all queued GPU work has finished (a no-op on the host backend).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.synchronize()
    """
    if backend() == "cuda":
        _core.cuda_synchronize()
