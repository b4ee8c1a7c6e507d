"""Compile a kernel's host source into a shared library with the system's C++ compiler.

Without a GPU, gpuvec runs a kernel by compiling it with the machine's C++
compiler (``$CXX``, else ``c++``) against its CUDA emulation header, into a
shared library that it loads. The flags, and why:

``-std=c++17``
    The language NVRTC compiles by default (gpuvec asks it for C++17 too).
``-O2``
    Kernels are loops over many threads: they are worth optimizing.
``-fPIC -shared``
    A shared library that gpuvec loads with ``dlopen``.
``-ffp-contract=off``
    No ``a*b + c`` fused into one rounding. gpuvec's own GPU kernels and the
    NVRTC compiles are built without FMA contraction too, so a kernel gives
    the same bits on both backends (GCC contracts by default where the CPU
    has FMA instructions, as on AArch64).
``-fno-math-errno``
    CUDA's math functions set no ``errno``, and no kernel can read it. GCC
    then computes ``sqrt`` with the CPU's instruction, without a call kept
    only to set ``errno``, and can vectorize loops that use it. No result
    changes: it is not one of ``-ffast-math``'s value-changing flags.
``-fstack-clash-protection``
    A function whose locals span more than a page touches each page as it
    takes them, so that a stack overflow always lands in the guard page
    below a thread's stack (a GPU's 512 KiB) and is reported as a failed
    launch, instead of skipping the guard and writing over what lies below.
    It costs nothing in a function with small frames.
``-x c++``
    The source is named like the user's (``cell_3.cu``), a suffix the
    compiler would not read as C++.

The compiler runs with ``LC_ALL=C``, so that its messages are in the plain
English and ASCII quotes that gpuvec's compile-error summary reads.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["FLAGS", "compile_shared_library", "compiler_command", "compiler_id"]

FLAGS = (
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-shared",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fstack-clash-protection",
    "-x",
    "c++",
)


def compiler_command() -> list[str]:
    """The host C++ compiler's command: ``$CXX`` split as a shell would, else ``c++``."""
    return shlex.split(os.environ.get("CXX", "").strip() or "c++")


def compile_shared_library(
    source_text: str,
    source_name: str,
    output_path: str | os.PathLike,
    options: Sequence[str] = (),
    include_dir: str | os.PathLike | None = None,
) -> tuple[int, str]:
    """Compiles `source_text` into the shared library `output_path`.

    Parameters
    ----------
    source_text : str
        The host source (from ``_source.host_source``).
    source_name : str
        The user's name for the source, such as ``"cell_3.cu"``: the
        temporary file compiled is named so.
    output_path : path-like
        Where the library is written.
    options : sequence of str, optional
        More compiler flags (``-DBLOCK=256``), after gpuvec's own.
    include_dir : path-like, optional
        The folder holding ``gpuvec/cuda_emulation.h``.

    Returns
    -------
    returncode : int
        The compiler's exit status: 0 when it succeeded.
    log : str
        What it printed (errors and warnings), for ``_compile_errors.summarize``.

    Raises
    ------
    FileNotFoundError
        There is no C++ compiler to run; the message says how to install one.
    """
    arguments = [*compiler_command(), *FLAGS]
    if include_dir is not None:
        arguments.append(f"-I{os.path.abspath(include_dir)}")
    # The compiler runs in the current folder, so that a relative path in the
    # options (-Iinclude) means what it means to the user. The source file is
    # named like the user's source, so that even the log's lines about the
    # file itself (not about the code after its #line) speak of cell_3.cu.
    with tempfile.TemporaryDirectory(prefix="gpuvec-kernel-") as folder:
        source_path = Path(folder) / (Path(source_name).name or "kernel.cu")
        source_path.write_text(source_text, encoding="utf-8")
        arguments += [*options, str(source_path), "-o", os.path.abspath(output_path)]
        completed = _run(arguments)
    return completed.returncode, completed.stdout


@functools.cache
def _compiler_id(command: tuple[str, ...]) -> str:
    lines = _run([*command, "--version"]).stdout.strip().splitlines()
    return lines[0] if lines else " ".join(command)


def compiler_id() -> str:
    """The first line of the host compiler's ``--version``: part of a kernel's cache key.

    Returns
    -------
    str
        Such as ``"c++ (Debian 12.2.0-14+deb12u1) 12.2.0"``. Asked once per
        command in a process.

    Raises
    ------
    FileNotFoundError
        There is no C++ compiler to run.
    """
    return _compiler_id(tuple(compiler_command()))


def _run(arguments: list[str]) -> subprocess.CompletedProcess:
    """Runs the compiler, its output and errors together as text."""
    try:
        return subprocess.run(
            arguments,
            env={**os.environ, "LC_ALL": "C"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            check=False,
        )
    except FileNotFoundError:
        raise FileNotFoundError(
            f"gpuvec compiles kernels for the host backend with a C++ compiler, and "
            f"{arguments[0]!r} was not found. Install one (on Debian or Ubuntu: "
            f"apt install g++), or set CXX to the command of the one you have."
        ) from None
