"""Where a user's kernel finds the headers it includes, on each compiler.

A lab's kernel includes what CUDA's samples include: ``<stdio.h>`` for
``printf``, ``<math.h>``, ``<cuda_runtime.h>``, ``<cuComplex.h>``,
``<cooperative_groups.h>``, CUB's block primitives, libcu++'s
``<cuda/std/...>``. Neither compiler finds them all by itself:

- **NVRTC** (the ``cuda`` backend, and the check of a kernel before the host
  compile) ships no C or C++ library headers, and knows no toolkit. Its
  include path is gpuvec's headers, gpuvec's stand-ins for the C and C++
  library headers (``gpuvec/nvrtc_std``: ``stdio.h``, ``cmath``,
  ``type_traits``, ...), then the CUDA toolkit's headers and CCCL's (CUB,
  libcu++), found by ``cuda-pathfinder`` (the toolkit, or the
  ``nvidia-cuda-runtime`` and ``nvidia-cuda-cccl`` wheels) or in
  ``$CUDA_HOME``, ``$CUDA_PATH`` or ``/usr/local/cuda``.
- **The host compiler** (the ``host`` backend) has the C and C++ library. It
  takes CUDA's own headers from gpuvec's stand-ins (``gpuvec/host_cuda``),
  which define them over the emulation header (the toolkit's would define
  ``float2`` and the rest a second time), then libcu++ from CCCL, which
  compiles for a CPU as it is.

Both lists come after the user's own ``-I`` options: a user's header of the
same name wins.

Examples
--------
>>> from gpuvec.kernels import _headers
>>> any(o.endswith("nvrtc_std") for o in _headers.nvrtc_include_options())
True
>>> any(o.endswith("host_cuda") for o in _headers.host_include_options())
True
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from gpuvec import _core

__all__ = ["headers_text", "host_include_options", "nvrtc_include_options"]

# gpuvec's installed headers (see _module._INCLUDE_DIR).
_GPUVEC_HEADERS = Path(_core.include_dir()) / "gpuvec"
_NVRTC_STD = _GPUVEC_HEADERS / "nvrtc_std"
_HOST_CUDA = _GPUVEC_HEADERS / "host_cuda"

# What cuda-pathfinder calls the header folders, and a file each holds.
_TOOLKIT_HEADERS = {"cudart": "cuda_runtime.h", "cccl": "cuda/std/version"}


def _from_pathfinder(name: str) -> str | None:
    try:
        from cuda import pathfinder  # optional: finds the toolkit's or the wheels' headers
    except ImportError:
        return None
    try:
        found = pathfinder.locate_nvidia_header_directory(name)
    except Exception:  # its error classes vary between versions: any failure is 'not found'
        return None
    return None if found is None else str(found.abs_path)


def _from_toolkit(name: str) -> str | None:
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for root in filter(None, roots):
        # CCCL sits in include/cccl from CUDA 13 on, in include itself before.
        for folder in (Path(root) / "include" / "cccl", Path(root) / "include"):
            if (folder / _TOOLKIT_HEADERS[name]).exists():
                return str(folder)
    return None


@functools.cache
def toolkit_header_folder(name: str) -> str | None:
    """The folder of one set of CUDA's headers, or None where none is installed.

    Parameters
    ----------
    name : {"cudart", "cccl"}
        ``"cudart"``: the runtime's headers (``cuda_runtime.h``, ``cuComplex.h``,
        ``cooperative_groups.h``, ``cuda_fp16.h``, ``curand_kernel.h``);
        ``"cccl"``: CUB, Thrust and libcu++.
    """
    return _from_pathfinder(name) or _from_toolkit(name)


def _include_options(folders) -> list[str]:
    seen: list[str] = []
    for folder in folders:
        if folder is not None and str(folder) not in seen:
            seen.append(str(folder))
    return [f"-I{folder}" for folder in seen]


def nvrtc_include_options() -> list[str]:
    """NVRTC's ``-I`` options for a user's kernel, after gpuvec's own folder.

    Returns
    -------
    list of str
        gpuvec's C and C++ library stand-ins, then the toolkit's runtime
        headers and CCCL's, where found; and ``nvcc_names.h`` included before
        the source (``uint`` and the like, which nvcc's host headers give a
        kernel).
    """
    folders = [_NVRTC_STD, toolkit_header_folder("cudart"), toolkit_header_folder("cccl")]
    return [*_include_options(folders), f"--pre-include={_NVRTC_STD / 'nvcc_names.h'}"]


def host_include_options() -> list[str]:
    """The host compiler's ``-I`` options for a user's kernel.

    Returns
    -------
    list of str
        gpuvec's stand-ins for CUDA's headers, then CCCL's folder (for
        libcu++), where found. libcu++'s support of CUDA's half types is
        turned off (``CCCL_DISABLE_FP16_SUPPORT``): it would include the
        toolkit's ``cuda_fp16.h``, whose vector types the emulation header
        defines already.
    """
    cccl = toolkit_header_folder("cccl")
    options = _include_options([_HOST_CUDA, cccl])
    return options if cccl is None else [*options, "-DCCCL_DISABLE_FP16_SUPPORT"]


@functools.cache
def headers_text() -> str:
    """The text of the stand-in headers: part of a kernel's cache key."""
    parts = []
    for folder in (_NVRTC_STD, _HOST_CUDA):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                parts.append(f"{path.relative_to(folder)}\n{path.read_text()}")
    return "\n".join(parts)
