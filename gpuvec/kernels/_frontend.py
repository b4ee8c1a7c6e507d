"""NVRTC's front end on the host backend: what a GPU would reject is rejected here too.

Without a GPU, gpuvec compiles a user's kernel with the host C++ compiler
against its CUDA emulation header. A C++ compiler accepts more than a GPU
does: a call to a host function (``rand()``, or a helper not marked
``__device__``), ``std::vector`` or ``<stdio.h>`` in a kernel, a ``throw``.
A kernel that passes a lab's tests on a laptop would then fail on the
course's GPU.

So before the host compile, gpuvec has NVRTC, CUDA's own compiler, read the
source as the ``cuda`` backend would give it to NVRTC: the same text
(``_source.nvrtc_source``, or the full kernel an ``ElementwiseKernel`` or a
``ReductionKernel`` generates), under the same name, with the same options,
include path and template instances, for a GPU of compute capability 7.5
(``GPUVEC_ARCH`` picks another: ``8.6``, ``86``, ``sm_86``). What NVRTC
rejects raises the :class:`gpuvec.CompileError` a GPU would give, in the
same format as the host compiler's errors: the user's line, with a caret.

NVRTC runs without a GPU or a driver: its library is all it needs, found as
``gpuvec.kernels._nvrtc`` finds it for the ``cuda`` backend (``GPUVEC_NVRTC``,
the ``nvidia-cuda-nvrtc`` wheel through ``cuda-pathfinder``, the CUDA
toolkit, the loader's path) and called here through ``ctypes``: the
host-only build of gpuvec has no C++ binding of NVRTC.

Only the front end runs (``--fdevice-syntax-only``, where NVRTC knows it):
everything this check is for is found there (names, execution spaces,
headers, exception handling), and the code generation that would follow
finds none of it. Measured with the wheel's NVRTC 13.5 on 2 cores, in CPU
time: 30-50 ms for a ``SourceModule`` of a tutorial kernel (about what a
compile to PTX costs), 50-100 ms for an ``ElementwiseKernel`` or a
``ReductionKernel``, whose generated source includes gpuvec's engine and
instantiates its kernels (0.5-0.9 s to PTX). Loading NVRTC costs about
0.1 s, once per process.

A passed check is kept in the kernel cache, keyed by the text, the options,
the template instances, the architecture and NVRTC's version, and in memory
for the rest of the process: it is never repeated. ``GPUVEC_NVRTC_CHECK=0``
turns the check off. Where no NVRTC can be loaded, the first kernel compiled
says so once, with a :class:`gpuvec.HostFallbackWarning`, and the host
compile goes on unchecked.

Examples
--------
>>> from gpuvec.kernels import _frontend
>>> _frontend.architecture()  # GPUVEC_ARCH unset
75
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import functools
import os
import re
import warnings
from collections.abc import Callable, Sequence

from gpuvec._errors import CompileError, HostFallbackWarning
from gpuvec.kernels import _cache, _nvrtc

__all__ = ["DEFAULT_ARCH", "applies", "architecture", "check", "enabled", "library", "skipped"]

# Compute capability 7.5 (Turing: the T4 of Colab and many course clusters),
# the oldest that CUDA 13 compiles for: what it accepts, newer GPUs accept.
DEFAULT_ARCH = 75

# nvrtcResult codes (nvrtc.h) that this module tells apart.
_SUCCESS = 0
_INVALID_OPTION = 5
_COMPILATION = 6

_SYNTAX_ONLY = "--fdevice-syntax-only"
_ARCH_TEXT = re.compile(r"(?:sm_|compute_)?(?:(\d+)\.(\d)|(\d{2,3}))")

# The checks passed in this process, by cache key: a kernel compiled again
# (a new SourceModule of the same source) costs no disk lookup.
_passed: set[str] = set()
_said_skipped = False
_skipping = contextvars.ContextVar("gpuvec_frontend_skipped", default=False)


class _Nvrtc:
    """The NVRTC functions the check calls, bound with ctypes from the library at `path`."""

    def __init__(self, path: str):
        lib = ctypes.CDLL(path)
        self.path = path
        size_p = ctypes.POINTER(ctypes.c_size_t)
        int_p = ctypes.POINTER(ctypes.c_int)
        program_p = ctypes.POINTER(ctypes.c_void_p)
        text, void = ctypes.c_char_p, ctypes.c_void_p
        for function, arguments in (
            ("nvrtcVersion", [int_p, int_p]),
            ("nvrtcGetNumSupportedArchs", [int_p]),
            ("nvrtcGetSupportedArchs", [int_p]),
            # (program, source, name, number of headers, headers, their names)
            ("nvrtcCreateProgram", [program_p, text, text, ctypes.c_int, void, void]),
            ("nvrtcAddNameExpression", [void, text]),
            ("nvrtcCompileProgram", [void, ctypes.c_int, void]),
            ("nvrtcGetProgramLogSize", [void, size_p]),
            ("nvrtcGetProgramLog", [void, text]),
            ("nvrtcDestroyProgram", [program_p]),
        ):
            bound = getattr(lib, function)  # AttributeError: not an NVRTC gpuvec can use
            bound.argtypes = arguments
            bound.restype = ctypes.c_int
        lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        self._lib = lib
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = (major.value, minor.value)
        count = ctypes.c_int()
        self._check(
            lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)), "nvrtcGetNumSupportedArchs"
        )
        archs = (ctypes.c_int * count.value)()
        if count.value:
            self._check(lib.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs")
        self.archs = tuple(archs)
        self.syntax_only = True  # until this NVRTC says it does not know the option

    def _check(self, result: int, what: str) -> None:
        if result != _SUCCESS:
            why = self._lib.nvrtcGetErrorString(result) or b"unknown error"
            raise OSError(f"{what} failed: {why.decode()} ({result})")

    def compile(
        self, source: str, name: str, options: Sequence[str], expressions: Sequence[str]
    ) -> tuple[int, str]:
        """Compiles `source`; returns NVRTC's result code and its log.

        Raises
        ------
        OSError
            NVRTC failed for a reason other than the source or an option.
        """
        lib = self._lib
        program = ctypes.c_void_p()
        self._check(
            lib.nvrtcCreateProgram(
                ctypes.byref(program), source.encode(), name.encode(), 0, None, None
            ),
            "nvrtcCreateProgram",
        )
        try:
            for expression in expressions:
                self._check(
                    lib.nvrtcAddNameExpression(program, expression.encode()),
                    "nvrtcAddNameExpression",
                )
            encoded = [o.encode() for o in options]
            result = lib.nvrtcCompileProgram(
                program, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded)
            )
            size = ctypes.c_size_t()
            self._check(lib.nvrtcGetProgramLogSize(program, ctypes.byref(size)), "log size")
            log = ctypes.create_string_buffer(max(size.value, 1))
            self._check(lib.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(program))
        if result not in (_SUCCESS, _INVALID_OPTION, _COMPILATION):
            self._check(result, "nvrtcCompileProgram")
        return result, log.value.decode("utf-8", "replace")


def enabled() -> bool:
    """Whether the check runs: unless ``GPUVEC_NVRTC_CHECK`` is ``0``.

    Examples
    --------
    >>> import os
    >>> enabled() == (os.environ.get("GPUVEC_NVRTC_CHECK") != "0")
    True
    """
    return os.environ.get("GPUVEC_NVRTC_CHECK", "") != "0"


@contextlib.contextmanager
def skipped():
    """Kernels made inside this block are never checked.

    For gpuvec's own generated kernels that are written for the host backend
    alone, such as the fused row kernels' ``"buffers"`` mode, which a GPU
    never runs.

    Examples
    --------
    >>> with skipped():
    ...     applies()
    False
    >>> applies()
    True
    """
    token = _skipping.set(True)
    try:
        yield
    finally:
        _skipping.reset(token)


def applies() -> bool:
    """Whether a kernel made now is to be checked: False inside :func:`skipped`."""
    return not _skipping.get()


def architecture() -> int:
    """The compute capability the check compiles for, as NVRTC numbers it: 75 for 7.5.

    ``GPUVEC_ARCH`` if set (``8.6``, ``86``, ``sm_86`` or ``compute_86``), else 7.5.

    Raises
    ------
    ValueError
        ``GPUVEC_ARCH`` is not a compute capability.
    """
    text = os.environ.get("GPUVEC_ARCH", "").strip()
    if not text:
        return DEFAULT_ARCH
    match = _ARCH_TEXT.fullmatch(text)
    if match is None:
        raise ValueError(
            f"GPUVEC_ARCH must be a GPU's compute capability, such as 7.5, 86 or sm_90, "
            f"not {text!r}"
        )
    if match[3]:
        return int(match[3])
    return 10 * int(match[1]) + int(match[2])


def library() -> _Nvrtc | None:
    """NVRTC, loaded for the check; None where there is none to load.

    Looked for as the ``cuda`` backend looks for it (``gpuvec.kernels._nvrtc``),
    once per value of ``GPUVEC_NVRTC``.
    """
    return _load(os.environ.get("GPUVEC_NVRTC", ""))


@functools.cache
def _load(explicit: str) -> _Nvrtc | None:
    if explicit:
        candidates = [explicit]
    else:
        candidates = [p for p in (_nvrtc._from_pathfinder(), _nvrtc._from_toolkit()) if p]
        candidates += _nvrtc._SONAMES
    for candidate in candidates:
        try:
            return _Nvrtc(candidate)
        except (OSError, AttributeError):  # not there, not loadable, or not NVRTC
            continue
    return None


def check(
    source: str,
    name: str,
    options: Sequence[str],
    expressions: Sequence[str],
    compile_error: Callable[[str, str], CompileError],
    cache: _cache.KernelCache,
    *,
    header: str | None = None,
) -> None:
    """Has NVRTC's front end read `source` as the ``cuda`` backend would compile it.

    Parameters
    ----------
    source : str
        The text NVRTC compiles on a GPU.
    name : str
        Its name in NVRTC's messages, such as ``"cell_3.cu"``.
    options : sequence of str
        NVRTC's options on a GPU: gpuvec's own, its include folder and the user's.
    expressions : sequence of str
        The name expressions of the template instances compiled.
    compile_error : callable
        ``compile_error(log, "nvrtc")`` makes the exception a rejection raises.
    cache : KernelCache
        Where a passed check is kept.
    header : str, optional
        The text of the gpuvec headers the source includes, for the cache key.

    Raises
    ------
    CompileError
        NVRTC rejects the source, or an option; the message names the line.
    ValueError
        ``GPUVEC_ARCH`` is not a compute capability this NVRTC knows.

    Examples
    --------
    >>> import tempfile
    >>> from gpuvec.kernels import _cache
    >>> cache = _cache.KernelCache(tempfile.mkdtemp())
    >>> def error(log, compiler):
    ...     return CompileError(log)
    >>> check("__global__ void k(float* a) { a[0] = 1; }", "k.cu", [], [], error, cache)
    """
    if not enabled():
        return
    nvrtc = library()
    if nvrtc is None:
        _say_skipped(
            "NVRTC (CUDA's compiler) was not found, so kernels compiled for the host backend "
            "are not checked for what a GPU would reject (such as a call to a host function). "
            "To check them: python3 -m pip install nvidia-cuda-nvrtc cuda-pathfinder "
            "(gpuvec's extra 'nvrtc'), or point GPUVEC_NVRTC at libnvrtc.so"
        )
        return
    arch = _supported(nvrtc, architecture())
    everything = [*options, f"--gpu-architecture=compute_{arch}"]
    key = _cache.cache_key(
        source=source,
        options=everything,
        names=list(expressions),
        architecture=f"compute_{arch}",
        compiler=f"nvrtc {nvrtc.version[0]}.{nvrtc.version[1]}",
        backend="nvrtc front end",
        checked=False,
        **({"header": header} if header is not None else {}),
    )
    if key in _passed or cache.get(key) is not None:
        _passed.add(key)
        return
    try:
        result, log = _compile(nvrtc, source, name, everything, expressions)
    except OSError as error:  # NVRTC itself failed (say, its builtins library is missing)
        _say_skipped(f"NVRTC at {nvrtc.path} failed ({error}), so kernels are not checked")
        return
    if result != _SUCCESS:
        rejection = compile_error(log, "nvrtc")
        raise CompileError(
            f"{rejection}\n(NVRTC's check for a GPU of compute capability "
            f"{arch // 10}.{arch % 10}, before the host compile; GPUVEC_NVRTC_CHECK=0 skips it)",
            log=rejection.log,
            source_name=rejection.source_name,
        )
    cache.put(key, b"", {"nvrtc": nvrtc.path}, suffix=".ok")
    _passed.add(key)


def _compile(
    nvrtc: _Nvrtc, source: str, name: str, options: list[str], expressions: Sequence[str]
) -> tuple[int, str]:
    """NVRTC's result and log for `source`, its front end alone where it knows the option."""
    if nvrtc.syntax_only:
        result, log = nvrtc.compile(source, name, [*options, _SYNTAX_ONLY], expressions)
        if result != _INVALID_OPTION or _SYNTAX_ONLY not in log:
            return result, log
        nvrtc.syntax_only = False  # an NVRTC older than the option: compile to PTX
    return nvrtc.compile(source, name, options, expressions)


def _supported(nvrtc: _Nvrtc, arch: int) -> int:
    """`arch`, checked against those this NVRTC compiles for.

    Without ``GPUVEC_ARCH``, an NVRTC that no longer knows 7.5 checks for the
    oldest architecture it knows.
    """
    if not nvrtc.archs or arch in nvrtc.archs:
        return arch
    if not os.environ.get("GPUVEC_ARCH", "").strip():
        return min(nvrtc.archs, key=lambda a: (a < arch, abs(a - arch)))
    known = ", ".join(f"{a // 10}.{a % 10}" for a in nvrtc.archs)
    raise ValueError(
        f"GPUVEC_ARCH asks for compute capability {arch // 10}.{arch % 10}, which NVRTC "
        f"{nvrtc.version[0]}.{nvrtc.version[1]} ({nvrtc.path}) cannot compile for; it knows "
        f"{known}"
    )


def _say_skipped(why: str) -> None:
    """Warns, once per process, that kernels are compiled for the host unchecked."""
    global _said_skipped
    if _said_skipped:
        return
    _said_skipped = True
    warnings.warn(
        f"{why}. GPUVEC_NVRTC_CHECK=0 turns the check off, and this warning with it.",
        HostFallbackWarning,
        stacklevel=3,
    )
