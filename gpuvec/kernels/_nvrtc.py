"""Finding NVRTC, CUDA's run-time compiler, for kernels compiled on a GPU.

gpuvec links no NVRTC: ``import gpuvec`` never needs it. On a GPU, users'
kernels and gpuvec's own (its ops, reductions and conversions, compiled at
their first use: ``gpuvec/kernels/_own.py``) are compiled with it. The first
compile looks for the library, in this order:

1. the path in the ``GPUVEC_NVRTC`` environment variable;
2. NVIDIA's ``cuda-pathfinder`` package, which knows the ``nvidia-cuda-nvrtc``
   wheel's copy in site-packages as well as the toolkit's (optional: it is
   used when installed);
3. the CUDA toolkit: ``$CUDA_HOME``, ``$CUDA_PATH`` or ``/usr/local/cuda``;
4. the dynamic loader's own search path (``libnvrtc.so.13``, then ``.12``).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from gpuvec import _core

__all__ = ["nvrtc_path", "nvrtc_version"]

_SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12")

_INSTALL_HINT = (
    "NVRTC (CUDA's run-time compiler) was not found. Install the CUDA toolkit, or the wheels: "
    "python3 -m pip install nvidia-cuda-nvrtc cuda-pathfinder (gpuvec's extra 'nvrtc'); "
    "or point GPUVEC_NVRTC at libnvrtc.so"
)


def _from_pathfinder() -> str | None:
    try:
        from cuda import pathfinder  # optional: finds the nvidia-cuda-nvrtc wheel
    except ImportError:
        return None
    try:
        return pathfinder.load_nvidia_dynamic_lib("nvrtc").abs_path
    except Exception:  # its error classes vary between versions: any failure is 'not found'
        return None


def _from_toolkit() -> str | None:
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for root in filter(None, roots):
        for soname in _SONAMES:
            candidate = Path(root) / "lib64" / soname
            if candidate.exists():
                return str(candidate)
    return None


def _loadable(path: str) -> bool:
    try:
        _core.nvrtc_version(path)
    except ValueError:
        return False
    return True


@functools.cache
def nvrtc_path() -> str:
    """The NVRTC library gpuvec compiles kernels with.

    Returns
    -------
    str
        A path (or a soname the dynamic loader resolves).

    Raises
    ------
    FileNotFoundError
        When no NVRTC can be found; the message says what to install.
    """
    explicit = os.environ.get("GPUVEC_NVRTC")
    if explicit:
        return explicit
    for found in (_from_pathfinder(), _from_toolkit()):
        if found:
            return found
    for soname in _SONAMES:
        if _loadable(soname):
            return soname
    raise FileNotFoundError(_INSTALL_HINT)


def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version.

    Examples
    --------
    >>> import gpuvec
    >>> from gpuvec.kernels import _nvrtc
    >>> if gpuvec.backend() == "cuda":
    ...     assert _nvrtc.nvrtc_version()[0] >= 12
    """
    return _core.nvrtc_version(nvrtc_path())
