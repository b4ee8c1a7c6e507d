"""``SourceModule``, ``RawKernel`` and ``Kernel``: users' own CUDA kernels.

One source runs on both backends. On a GPU, NVRTC compiles it to a CUBIN for
the device; without one, the host C++ compiler builds it against gpuvec's CUDA
emulation header (``gpuvec/include/gpuvec/cuda_emulation.h``), and gpuvec's
host runtime runs its blocks in parallel and its threads as fibers. Both go
through the same C entry, ``gpuvec_kernel_launch``, and the same cache.

Each launch checks every argument against the kernel's own signature: a
pointer parameter takes an array of its element type (a NumPy array, a
``DeviceArray``, or another library's GPU array), a scalar parameter a number
that fits its C type.
"""

from __future__ import annotations

import ctypes
import numbers
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpuvec import _core
from gpuvec._errors import CompileError, CudaError
from gpuvec.device_array import DeviceArray
from gpuvec.kernels import (
    _cache,
    _compile_errors,
    _frontend,
    _headers,
    _host_compiler,
    _nvrtc,
    _options,
    _signature,
    _source,
)

__all__ = ["Kernel", "RawKernel", "SourceModule"]

# Both backends compile without contracting a*b + c into one rounding (an
# FMA): gpuvec's own kernels are built the same way, and a kernel then gives
# the same bits on the GPU and in the host emulation.
_NVRTC_OPTIONS = ("--std=c++17", "--fmad=false")
_HOST_OPTIONS = ("-DGPUVEC_EMULATION=1",)

# gpuvec's headers, installed beside the compiled core (what gpuvec.get_include()
# returns). Not found from this file: run in a source checkout, Python imports
# this module from the checkout, whose gpuvec/ holds no headers, and the
# compiled core (and its headers) from the installed package.
_INCLUDE_DIR = Path(_core.include_dir())

_cache_instance: _cache.KernelCache | None = None


def kernel_cache() -> _cache.KernelCache:
    """The kernel cache: compiled kernels on disk, shared by both backends.

    Its folder is ``GPUVEC_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/gpuvec/kernels``
    or ``~/.cache/gpuvec/kernels``, created private to you (mode 0700). It
    holds native code that gpuvec loads and runs, so gpuvec refuses a folder
    that another user owns or may write to, and checks each entry's hash
    before loading it. Where the folder cannot be created or written (a
    read-only home), gpuvec warns, naming it and ``GPUVEC_CACHE_DIR``, and
    caches in a temporary folder for the rest of the process.

    Returns
    -------
    KernelCache
        With ``stats()`` (entries, bytes, and this process's hits and misses)
        and ``clear()``.

    Raises
    ------
    PermissionError
        The folder is not private to you; the message says how to fix it.

    Examples
    --------
    >>> from gpuvec.kernels import kernel_cache
    >>> kernel_cache().stats().entries >= 0
    True
    """
    global _cache_instance
    folder = _cache.cache_dir()
    if _cache_instance is None or _cache_instance.requested != folder:
        _cache_instance = _cache.KernelCache(folder, fallback=True)
    return _cache_instance


@dataclass(frozen=True)
class _Compiled:
    """A source compiled and loaded for one backend: its module and each kernel's symbol."""

    module: _core.LoadedModule
    symbols: dict[str, str]
    flags: int


class SourceModule:
    """CUDA C++ source, compiled once, whose ``__global__`` functions you launch.

    Parameters
    ----------
    source : str
        CUDA C++: one or more ``__global__`` functions and what they use.
    options : sequence of str, optional
        NVRTC's options, such as ``("-DBLOCK=256", "-std=c++11", "-lineinfo")``:
        NVRTC reads them on a GPU; without one the host compiler gets their
        meaning (``-D``, ``-U``, ``-I``, ``-include``; NVRTC's code-generation
        options, such as ``-lineinfo`` or ``-arch``, mean nothing to it).
        gpuvec's own headers are on both compilers' include path: a kernel may
        ``#include <gpuvec/ops.hpp>`` to call the functors of gpuvec's ops.
    name_expressions : sequence of str, optional
        Template instances to compile, such as ``("scale<float>",)``; each is
        then a kernel name. A template kernel compiles only for the instances
        named here: the source alone does not say which types to use.
    name : str, optional
        The source's name in compiler messages, such as ``"cell_3.cu"``.

    Raises
    ------
    CompileError
        When the source does not compile; the message names the line of your
        source and shows it.

    Notes
    -----
    The compiled code is cached on disk (see ``GPUVEC_CACHE_DIR``), so a
    second run of the same source loads in milliseconds. NVRTC compiles with
    ``--fmad=false`` and the host with ``-ffp-contract=off``: no ``a*b + c``
    is fused into an FMA, and both backends give the same bits. Without a
    GPU, NVRTC (where installed: it needs no GPU) checks the source before
    the host compile, so that what a GPU rejects, such as a call to a host
    function, raises ``CompileError`` there too (``GPUVEC_NVRTC_CHECK=0``
    turns it off).

    Examples
    --------
    PyCUDA's first example, on either backend:

    >>> import numpy as np
    >>> import gpuvec
    >>> mod = gpuvec.SourceModule('''
    ... __global__ void doublify(float* a) {
    ...     int idx = threadIdx.x + threadIdx.y * 4;
    ...     a[idx] *= 2;
    ... }''')
    >>> a = np.arange(16, dtype=np.float32).reshape(4, 4)
    >>> mod.doublify(a, grid=1, block=(4, 4, 1))
    >>> a[1]
    array([ 8., 10., 12., 14.], dtype=float32)
    """

    def __init__(self, source: str, options=(), name_expressions=(), *, name: str = "kernel.cu"):
        if not isinstance(source, str):
            raise TypeError(f"source must be a str of CUDA C++, got {type(source).__name__}")
        self.source = source
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions)
        self.name = name
        kernels = _signature.parse_kernels(source)
        # The kernels to launch: each plain __global__ function by its name,
        # each template instance by its name expression; bound signatures.
        plain = [k.name for k in kernels if not k.is_template and k.template_arguments is None]
        self._signatures = {
            kernel: _signature.find_kernel(kernels, kernel)
            for kernel in [*dict.fromkeys(plain), *self.name_expressions]
        }
        # The template kernels by name: a template compiles only for the
        # instances name_expressions names, and asking for one by its bare
        # name says so.
        self._templates = {
            name: k
            for k in kernels
            if k.is_template and k.template_arguments is None
            for name in (k.name, k.qualified_name)
        }
        self._cooperative = _signature.uses_cooperation(source)
        self._front_end_check = _frontend.applies()  # not for gpuvec's host-only kernels
        self._compiled: dict[tuple[int, bool], _Compiled] = {}
        self._functions: dict[str, Kernel] = {}
        self._compiled_for(_core.backend_code(), False)  # compile errors show up here

    @property
    def kernel_names(self) -> tuple[str, ...]:
        """The kernels you can launch: the plain ones by name, templates by expression."""
        return tuple(self._signatures)

    def get_function(self, name: str) -> Kernel:
        """The kernel `name` (a ``__global__`` function, or a name expression).

        Raises
        ------
        ValueError
            When the source has no such kernel; the message lists those it
            has, and for a template kernel asked for by its bare name, says
            to name its instances with ``name_expressions``.

        Examples
        --------
        >>> import gpuvec
        >>> from gpuvec.kernels.classics import DOUBLIFY
        >>> gpuvec.SourceModule(DOUBLIFY).get_function("doublify")
        <gpuvec.Kernel doublify(float* a)>
        """
        kernel = self._functions.get(name)
        if kernel is None:
            if name not in self._signatures:
                raise ValueError(self._missing(name))
            kernel = self._functions[name] = Kernel(self, name, self._signatures[name])
        return kernel

    def __getattr__(self, name: str) -> Kernel:
        # Only the kernels are attributes; private names (and any lookup
        # before __init__ set _signatures, as in copy or pickle) are not.
        if name.startswith("_") or "_signatures" not in self.__dict__:
            raise AttributeError(name)
        if name not in self._signatures:
            raise AttributeError(self._missing(name))
        return self.get_function(name)

    def _missing(self, name: str, raw: bool = False) -> str:
        """Why `name` is no kernel of this module: the kernels it has, or how
        to compile the template `name` (with RawKernel's spelling if `raw`)."""
        template = self._templates.get(name)
        if template is not None:
            example = _signature.example_expression(template)
            how = (
                f"RawKernel(code, {example!r})"
                if raw
                else f"SourceModule(source, name_expressions=[{example!r}]), then "
                f"get_function({example!r})"
            )
            return (
                f"{name} is a template kernel, and a template is compiled only for the "
                f"instances that name_expressions=[...] names, with their template "
                f"arguments: such as {how}"
            )
        text = f"{self.name} has no kernel named {name!r}; its kernels: "
        text += ", ".join(self._signatures) or "none"
        if self._templates:
            templates = ", ".join(dict.fromkeys(k.name for k in self._templates.values()))
            text += (
                f" (and the template kernels {templates}, which compile only for the "
                f"instances that name_expressions=[...] names)"
            )
        return text

    def __dir__(self):
        return [*super().__dir__(), *(n for n in self._signatures if n.isidentifier())]

    def __repr__(self) -> str:
        kernels = ", ".join(self._signatures) or "no kernels"
        return f"<gpuvec.SourceModule {self.name!r}: {kernels}>"

    def _compiled_for(self, backend: int, checked: bool) -> _Compiled:
        """The source compiled and loaded for one backend (and checked mode)."""
        key = (backend, checked)
        compiled = self._compiled.get(key)
        if compiled is None:
            if backend == _BACKEND_CUDA:
                compiled = self._compile_nvrtc()
            else:
                compiled = self._compile_host(checked)
            self._compiled[key] = compiled
        return compiled

    def _nvrtc_options(self) -> list[str]:
        # gpuvec's headers, as the host compiler has them: one source for both
        return [
            *_NVRTC_OPTIONS,
            f"-I{_INCLUDE_DIR}",
            *self.options,
            *_headers.nvrtc_include_options(),
        ]

    def _compile_nvrtc(self) -> _Compiled:
        names = list(self._signatures)
        # NVRTC takes the full C++ expressions (namespaces included).
        expressions = [self._signatures[n].expression for n in names]
        image, lowered = compile_nvrtc(
            _source.nvrtc_source(self.source),
            self.name,
            self._nvrtc_options(),
            expressions,
            self._compile_error,
            key_source=self.source,
        )
        module = _core.LoadedModule(_BACKEND_CUDA, image=image)
        return _Compiled(module, dict(zip(names, lowered, strict=True)), 0)

    def _compile_host(self, checked: bool) -> _Compiled:
        names = list(self._signatures)
        # NVRTC reads the source first, as on a GPU: what a GPU rejects fails here too
        # (unless NVRTC has compiled it for the GPU already).
        if self._front_end_check and (_BACKEND_CUDA, False) not in self._compiled:
            _frontend.check(
                _source.nvrtc_source(self.source),
                self.name,
                self._nvrtc_options(),
                [self._signatures[n].expression for n in names],
                self._compile_error,
                kernel_cache(),
            )
        text, symbols = _source.host_source(self.source, names, self.name, checked)
        path = compile_host(
            text,
            self.name,
            [
                *_HOST_OPTIONS,
                *_options.host_options(self.options),
                *_headers.host_include_options(),
            ],
            self._compile_error,
            key_names=names,
            checked=checked,
            header=_emulation_header(),
        )
        flags = (_core.KERNEL_COOPERATIVE if self._cooperative else 0) | (
            _core.KERNEL_CHECKED if checked else 0
        )
        module = _core.LoadedModule(_BACKEND_HOST, path=str(path))
        return _Compiled(module, symbols, flags)

    def _compile_error(self, log: str, compiler: str) -> CompileError:
        message = _compile_errors.summarize(log, self.source, self.name, compiler)
        return CompileError(message, log=log, source_name=self.name)


def compile_nvrtc(
    source: str,
    name: str,
    options: list[str],
    expressions: list[str],
    compile_error,
    *,
    key_source: str | None = None,
    header: str | None = None,
) -> tuple[bytes, list[str]]:
    """A source compiled by NVRTC for the current device, through the kernel cache.

    Parameters
    ----------
    source : str
        The text NVRTC compiles.
    name : str
        The source's name in NVRTC's messages.
    options : list of str
        NVRTC's options.
    expressions : list of str
        The name expressions whose lowered names are wanted.
    compile_error : callable
        ``compile_error(log, "nvrtc")`` makes the exception a failed compile raises.
    key_source : str, optional
        What stands for the source in the cache key (by default the source).
    header : str, optional
        The text of the gpuvec headers the source includes, for the cache key.

    Returns
    -------
    image : bytes
        A CUBIN or PTX image, for ``_core.LoadedModule``.
    lowered : list of str
        Each name expression's lowered name.
    """
    path = _nvrtc.nvrtc_path()
    major, minor = _core.nvrtc_version(path)
    arch = _device_arch()
    parts = {"header": header} if header is not None else {}
    key = _cache.cache_key(
        source=source if key_source is None else key_source,
        options=options,
        names=expressions,
        architecture=arch,
        compiler=f"nvrtc {major}.{minor}",
        backend="cuda",
        checked=False,
        **parts,
    )
    cache = kernel_cache()
    entry = cache.get(key)
    if entry is not None:
        return entry.payload, entry.metadata["lowered"]
    ok, log, image, is_cubin, lowered = _core.nvrtc_compile(
        path, source, name, arch, options, expressions
    )
    if not ok:
        raise compile_error(log, "nvrtc")
    cache.put(key, image, {"lowered": lowered, "is_cubin": is_cubin})
    return image, lowered


def compile_host(
    text: str,
    name: str,
    options: list[str],
    compile_error,
    *,
    key_names: list[str],
    checked: bool,
    header: str,
) -> Path:
    """A host source compiled into a shared library, through the kernel cache.

    Parameters
    ----------
    text : str
        The host compiler's source.
    name : str
        The source's name in the compiler's messages.
    options : list of str
        The compiler's options, after gpuvec's own (``_host_compiler.FLAGS``).
    compile_error : callable
        ``compile_error(log, "host")`` makes the exception a failed compile raises.
    key_names : list of str
        The kernels compiled, for the cache key.
    checked : bool
        Checked mode, for the cache key.
    header : str
        The text of the gpuvec headers the source includes, for the cache key.

    Returns
    -------
    pathlib.Path
        The library in the cache, its hash checked; its folder is private to
        the user, so the file loaded is the file checked.
    """
    key = _cache.cache_key(
        source=text,
        options=[*_host_compiler.FLAGS, *options],  # gpuvec's own flags change the code too
        names=key_names,
        architecture="host",
        compiler=_host_compiler.compiler_id(),
        backend="host",
        checked=checked,
        header=header,
    )
    cache = kernel_cache()
    entry = cache.get(key)
    if entry is None:
        with tempfile.TemporaryDirectory(prefix="gpuvec-kernel-") as folder:
            library = Path(folder) / "kernel.so"
            returncode, log = _host_compiler.compile_shared_library(
                text, name, library, options, _INCLUDE_DIR
            )
            if returncode != 0:
                raise compile_error(log, "host")
            entry = cache.put(key, library.read_bytes(), {}, suffix=".so")
    return entry.path


_BACKEND_HOST = 0
_BACKEND_CUDA = 1


def _device_arch() -> int:
    """The current device's compute capability as NVRTC wants it: 90 for 9.0."""
    major, minor = _core.cuda_device_info(_core.cuda_get_device())["compute_capability"]
    return 10 * major + minor


_header_text: str | None = None


def _emulation_header() -> str:
    """The emulation header's text: part of a host kernel's cache key."""
    global _header_text
    if _header_text is None:
        _header_text = (_INCLUDE_DIR / "gpuvec" / "cuda_emulation.h").read_text() + (
            _headers.headers_text()
        )
    return _header_text


# Runs the handlers of the signals that came while the GIL was released, as
# the interpreter does between bytecodes: a KeyboardInterrupt is raised here.
_check_signals = ctypes.pythonapi.PyErr_CheckSignals
_check_signals.argtypes = ()
_check_signals.restype = ctypes.c_int


def interruptible(call, *args):
    """Runs ``call(*args)``, a launch in the host emulation that Ctrl-C may stop.

    Ctrl-C (SIGINT) stops such a launch, which then fails with ``CudaError``,
    and raises SIGINT again for Python once the launch is over. Its handler
    (by default, the one that raises ``KeyboardInterrupt``) runs here, before
    the error is raised: a ``KeyboardInterrupt`` replaces it.

    Returns
    -------
    object
        What the call returned.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C stopped the launch.
    CudaError
        The launch failed.

    Examples
    --------
    >>> interruptible(sum, [1, 2, 3])
    6
    """
    try:
        return call(*args)
    except CudaError as error:
        failure = error
    # Outside the except clause: the KeyboardInterrupt does not say that it
    # happened while handling the launch's error.
    _check_signals()
    raise failure


def _cupy_launch(args: tuple, name: str) -> tuple[tuple, object, object]:
    """CuPy's ``kernel(grid, block, args)`` as (args, grid, block)."""
    shape = (int, tuple, list)
    if len(args) == 3 and isinstance(args[0], shape) and isinstance(args[1], shape):
        if isinstance(args[2], (tuple, list)):
            return tuple(args[2]), args[0], args[1]
    raise TypeError(
        f"{name}() needs its block: kernel(*args, block=(x, y, z), grid=...), or CuPy's "
        f"kernel(grid, block, (args...))"
    )


def _timeout_seconds(timeout) -> float:
    """A launch's ``timeout=`` as the launch configuration takes it: 0.0 for None."""
    if timeout is None:
        return 0.0
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise TypeError(f"timeout must be a number of seconds or None, got {timeout!r}")
    seconds = float(timeout)
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"timeout must be a positive, finite number of seconds, got {timeout!r}")
    return seconds


class Kernel:
    """One ``__global__`` function of a :class:`SourceModule`, ready to launch.

    Launch it PyCUDA's way, ``k(*args, block=..., grid=(1, 1, 1), shared_mem=0,
    stream=None)``, or Numba's, ``k[grid, block, stream, shared_mem](*args)``.
    ``grid`` and ``block`` take an int or a tuple of 1 to 3 ints (missing
    ones are 1); as in PyCUDA, ``grid`` is one block when left out.

    Arguments are checked against the kernel's signature:

    - a pointer parameter (``float* a``) takes a C-contiguous array of its
      element type: a ``DeviceArray`` or another library's GPU array
      (CuPy, PyTorch, Numba: zero-copy), or a NumPy array, which is copied to
      the device and, unless the pointer is ``const``, copied back after the
      launch, so the kernel's writes land in it (PyCUDA's ``InOut``);
    - a scalar parameter (``int n``) takes a Python or NumPy number that fits
      its C type.

    A mismatch raises ``TypeError`` naming the parameter (a float64 array for
    a ``float*``, a float for an ``int``); a non-contiguous array raises
    ``ValueError``, since the kernel sees memory, not a view.

    On the host backend a launch runs checked by default (``check=False`` or
    ``GPUVEC_KERNEL_CHECK=0`` turns it off; an unchecked kernel that indexes
    outside an array can corrupt the process). On a GPU ``check=True`` (or
    ``GPUVEC_KERNEL_CHECK=1``) runs the kernel checked in the host emulation,
    on copies of device arrays. Checked, an index outside a pointer's array
    or a ``__shared__`` array raises ``OutOfBoundsError`` (an ``IndexError``),
    a shared memory race ``RaceError``, threads that do not all reach the
    same ``__syncthreads()`` ``BarrierDivergenceError``, a read of shared
    memory never written ``UninitializedReadError``, and a warp intrinsic's
    mask that leaves out its caller or names returned lanes ``WarpMaskError``:
    all ``KernelBugError``, a ``CudaError``, whose message names the kernel,
    the line, the thread and the block. Nothing is corrupted.

    In the host emulation nothing a kernel does ends the process: a failed
    ``assert`` raises ``CudaError`` named ``cudaErrorAssert`` (with the
    expression, file and line), ``__trap()`` or a C++ exception
    ``cudaErrorLaunchFailure``, a thread that overflows its 512 KiB stack
    (a GPU's limit) ``cudaErrorLaunchFailure`` too, and an access to
    ``extern __shared__`` memory beyond the launch's ``shared_mem``
    ``cudaErrorIllegalAddress``. Ctrl-C stops a running kernel with
    ``KeyboardInterrupt``, and ``timeout=`` (or ``GPUVEC_KERNEL_TIMEOUT``,
    in seconds) stops one that runs longer with ``CudaError`` named
    ``cudaErrorLaunchTimeout``: a kernel that spins forever on a flag that
    no thread sets does not hang the process.
    """

    def __init__(self, module: SourceModule, name: str, signature: _signature.KernelSignature):
        self.module = module
        self.name = name
        self.parameters = signature.parameters
        self.signature = str(signature)
        self._launchers: dict[tuple[int, bool], _core.KernelLauncher] = {}
        self._configured: dict[tuple, _ConfiguredKernel] = {}

    def _launcher(self, backend: int, checked: bool) -> _core.KernelLauncher:
        launcher = self._launchers.get((backend, checked))
        if launcher is None:
            compiled = self.module._compiled_for(backend, checked)
            launcher = _core.KernelLauncher(
                compiled.module,
                compiled.symbols[self.name],
                compiled.flags,
                [
                    (p.name, p.c_type, p.is_pointer, p.is_const, p.dtype, p.lanes)
                    for p in self.parameters
                ],
                self.signature,
            )
            self._launchers[(backend, checked)] = launcher
        return launcher

    def __call__(
        self,
        *args,
        block=None,
        grid=(1, 1, 1),
        shared_mem=0,
        stream=None,
        check=None,
        timeout=None,
    ):
        """Launches the kernel on ``grid`` blocks of ``block`` threads.

        Also takes CuPy's launch, ``kernel(grid, block, args)``: the grid and
        the block first, then the arguments as one tuple.

        Parameters
        ----------
        *args
            The kernel's arguments, in the order of its parameters.
        block : int or tuple of int
            Threads per block: ``256`` or ``(16, 16, 1)``.
        grid : int or tuple of int, optional
            Blocks in the grid; one block, ``(1, 1, 1)``, as in PyCUDA, when
            left out.
        shared_mem : int, optional
            Bytes of dynamic shared memory per block (``extern __shared__``).
        stream : gpuvec.Stream, optional
            The stream to launch on; the current stream by default.
        check : bool, optional
            Run checked in the host emulation (see the class's notes); by
            default, as ``GPUVEC_KERNEL_CHECK`` says, else checked on the
            host backend and unchecked on a GPU.
        timeout : float, optional
            Seconds the kernel may run in the host emulation before it is
            stopped with ``CudaError`` (``cudaErrorLaunchTimeout``); by
            default ``GPUVEC_KERNEL_TIMEOUT``, else none. A launch on a GPU
            cannot be stopped once queued: there it is ignored.

        Raises
        ------
        KernelBugError
            Checked mode found a bug (see the class's notes).
        CudaError
            The kernel failed in the host emulation (see the class's notes),
            or ran past its timeout.
        KeyboardInterrupt
            Ctrl-C stopped the kernel (the host emulation).

        Examples
        --------
        PyCUDA's tutorial launch, one block of 4x4 threads:

        >>> import numpy as np, gpuvec
        >>> from gpuvec.kernels.classics import DOUBLIFY
        >>> doublify = gpuvec.SourceModule(DOUBLIFY).get_function("doublify")
        >>> a = np.ones((4, 4), np.float32)
        >>> doublify(a, block=(4, 4, 1))
        >>> float(a.sum())
        32.0

        CuPy's launch of the same kernel:

        >>> doublify((1,), (4, 4), (a,))
        >>> float(a.sum())
        64.0
        """
        if block is None:
            args, grid, block = _cupy_launch(args, self.name)
        self._launch(args, grid, block, shared_mem, stream, check, timeout)

    def __getitem__(self, config) -> _ConfiguredKernel:
        """Numba's launch: ``k[grid, block]``, ``k[grid, block, stream]``, or with shared_mem."""
        try:
            return self._configured[config]  # the same configuration, launch after launch
        except (KeyError, TypeError):  # new, or unhashable (a list)
            pass
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError(
                "a launch configuration is k[grid, block], k[grid, block, stream] or "
                "k[grid, block, stream, shared_mem]"
            )
        configured = _ConfiguredKernel(self, *config)
        if len(self._configured) < 64:
            try:
                self._configured[config] = configured
            except TypeError:
                pass
        return configured

    def _launch(self, args: tuple, grid, block, shared_mem, stream, check, timeout=None) -> None:
        seconds = _timeout_seconds(timeout)
        backend = _core.backend_code()
        if check is None:
            # GPUVEC_KERNEL_CHECK, else checked on the host backend, where it
            # costs little, and unchecked on a GPU, where it means the host.
            check = _core.kernel_check_requested(backend == _BACKEND_HOST)
        if check and backend == _BACKEND_CUDA:
            return interruptible(self._checked_on_host, args, grid, block, shared_mem, seconds)
        launcher = self._launchers.get((backend, check))
        if launcher is None:
            launcher = self._launcher(backend, bool(check))
        try:
            launcher.launch(args, grid, block, shared_mem, stream, seconds)
        except CudaError as error:
            failure = error
        else:
            return None
        # Outside the except clause (see interruptible).
        _check_signals()
        raise failure

    @property
    def attributes(self) -> dict:
        """Registers, threads per block, shared and local bytes, where the backend can tell."""
        return self._launcher(_core.backend_code(), False).attributes()

    def _checked_on_host(self, args, grid, block, shared_mem, timeout) -> None:
        """Runs the checked kernel in the host emulation, on host copies of DeviceArrays
        (copied back where the pointer is not const)."""
        host_args = []
        write_back = []
        for arg, p in zip(args, self.parameters, strict=False):
            if p.is_pointer and isinstance(arg, DeviceArray):
                copy = arg.to_host()
                host_args.append(copy)
                if not p.is_const:
                    write_back.append((arg, copy))
            else:
                host_args.append(arg)
        self._launcher(_BACKEND_HOST, True).launch(
            tuple(host_args), grid, block, shared_mem, None, timeout
        )
        for target, copy in write_back:
            _core.copy_into(target, copy)

    def __repr__(self) -> str:
        return f"<gpuvec.Kernel {self.signature}>"


class _ConfiguredKernel:
    """A kernel with its launch configuration: ``k[grid, block](*args)``."""

    __slots__ = ("block", "grid", "kernel", "shared_mem", "stream")

    def __init__(self, kernel: Kernel, grid, block, stream=None, shared_mem=0):
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.stream = stream
        self.shared_mem = shared_mem

    def __call__(self, *args, check=None, timeout=None):
        self.kernel._launch(
            args, self.grid, self.block, self.shared_mem, self.stream, check, timeout
        )


class RawKernel(Kernel):
    """One kernel from its source: CuPy's ``RawKernel(code, name)``.

    Parameters
    ----------
    code : str
        CUDA C++ defining the ``__global__`` function `name`.
    name : str
        The kernel's name, or a template instance such as ``"scale<float>"``.
    options : sequence of str, optional
        Extra compiler options.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec
    >>> add = gpuvec.RawKernel('''
    ... extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
    ...     int i = blockIdx.x * blockDim.x + threadIdx.x;
    ...     if (i < n) c[i] = a[i] + b[i];
    ... }''', "vecadd")
    >>> a = np.ones(1000, np.float32); c = np.empty_like(a)
    >>> add(a, a, c, 1000, grid=(1000 + 255) // 256, block=256)
    >>> float(c.sum())
    2000.0
    """

    def __init__(self, code: str, name: str, options=(), *, source_name: str = "kernel.cu"):
        expressions = (name,) if "<" in name else ()
        module = SourceModule(code, options, expressions, name=source_name)
        if name not in module.kernel_names:
            raise ValueError(module._missing(name, raw=True))
        super().__init__(module, name, module._signatures[name])
