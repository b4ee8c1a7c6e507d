"""What ``ElementwiseKernel`` and ``ReductionKernel`` share.

Both take CuPy's parameter lists (``_spec``), resolve their type placeholders
from each call's arguments, compile one source per signature on the call's
backend (NVRTC on a GPU, the host compiler without one, through the kernel
cache) and report compile errors at the user's line. What differs is the
engine their source instantiates: ``gpuvec/map.hpp`` for an elementwise
operation, ``gpuvec/reduce.hpp`` for a reduction.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import numpy as np

from gpuvec import _core
from gpuvec._dtypes import KERNEL_DTYPE_NAMES as ARRAY_DTYPE_NAMES
from gpuvec._dtypes import KERNEL_DTYPES as ARRAY_DTYPES
from gpuvec._dtypes import native_byte_order
from gpuvec._errors import CompileError
from gpuvec.creation import asarray
from gpuvec.device_array import DeviceArray
from gpuvec.kernels import _compile_errors, _frontend, _headers, _module, _options, _spec

__all__ = ["BACKEND_CUDA", "BACKEND_HOST", "UserKernel", "headers_text"]

BACKEND_HOST = 0
BACKEND_CUDA = 1

# The installed headers a compiled kernel is made of: their text is part of
# its cache key, so that a change to them compiles the kernel again.
_HEADERS = (
    "limits.h",
    "portable.hpp",
    "layout.hpp",
    "operand.hpp",
    "walk.hpp",
    "map.hpp",
    "reduce_ops.hpp",
    "reduce.hpp",
    "ops.hpp",  # the functors of gpuvec's ops, which fused kernels call (gpuvec/fusion)
    "sort_keys.hpp",  # with scan_kernels.hpp: gpuvec's own scans, sorts and counts
    "scan_kernels.hpp",
    "cuda_emulation.h",
    "emulation.h",
)
_headers_text: str | None = None

# The host compiler may vectorize the loops' `omp simd` without OpenMP's runtime.
# The contiguous loop tests each operand for a scalar; the tests are loop
# invariant, and -funswitch-loops (not in -O2) hoists them out, which is what
# lets it vectorize: 2.5x faster for a fused chain of 4 ops, in cache.
_HOST_OPTIONS = ("-DGPUVEC_EMULATION=1", "-fopenmp-simd", "-funswitch-loops")


def headers_text() -> str:
    """The text of the installed headers that compiled kernels are made of, for cache keys."""
    global _headers_text
    if _headers_text is None:
        folder = Path(_module._INCLUDE_DIR) / "gpuvec"
        _headers_text = "".join((folder / h).read_text() for h in _HEADERS) + (
            _headers.headers_text()
        )
    return _headers_text


class UserKernel:
    """A kernel in CuPy's spec language: its parameters, types and compiled instances.

    Parameters
    ----------
    in_params, out_params : str
        CuPy's parameter lists; at least one output.
    name : str
        A C identifier: compile errors are reported in ``name.cu``.
    options : sequence of str
        More compiler options.
    preamble : str
        Code before the generated source.
    kind : str
        ``"ElementwiseKernel"`` or ``"ReductionKernel"``, for messages.
    """

    def __init__(self, in_params, out_params, name, options, preamble, kind):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"name must be a C identifier, got {name!r}")
        if not isinstance(preamble, str):
            raise TypeError(f"preamble must be a str of CUDA C++, got {type(preamble).__name__}")
        self.inputs = _spec.parse_parameters(in_params, "in_params")
        outputs = _spec.parse_parameters(out_params, "out_params")
        if not outputs:
            raise ValueError("out_params declares no output: give one, such as 'float32 c'")
        if len(self.inputs) > _core.MAX_MAP_INPUTS:
            raise ValueError(
                f"in_params declares {len(self.inputs)} inputs; a {kind} takes at most "
                f"{_core.MAX_MAP_INPUTS}"
            )
        self.outputs = outputs
        self.output = outputs[0]
        seen = set()
        for p in (*self.inputs, *self.outputs):
            if p.name in seen:
                raise ValueError(f"parameter name {p.name!r} is used twice")
            seen.add(p.name)
        self.in_params = in_params
        self.out_params = out_params
        self.name = name
        self.options = tuple(options)
        self.preamble = preamble
        self._kind = kind
        self._compiled: dict[tuple, object] = {}
        self._front_end_check = _frontend.applies()  # not for gpuvec's host-only kernels

    def __repr__(self) -> str:
        return f"<gpuvec.{self._kind} {self.name}({self.in_params}) -> ({self.out_params})>"

    @property
    def _source_name(self) -> str:
        return f"{self.name}.cu"

    # -- arguments and types -----------------------------------------------------------------

    def _arguments(self, args, out):
        """The inputs as the call takes them, and out (given last or as out=)."""
        n = len(self.inputs)
        if len(args) == n + 1:
            if out is not None:
                raise TypeError(
                    f"{self.name}: the output is given both as an argument and as out="
                )
            args, out = args[:n], args[n]
        elif len(args) != n:
            raise TypeError(
                f"{self.name} takes {n} input{'s' if n != 1 else ''} "
                f"({', '.join(p.name for p in self.inputs) or 'none'}) and optionally the "
                f"output {self.output.name!r}, got {len(args)} arguments"
            )
        args = tuple(_argument(a, p) for a, p in zip(args, self.inputs, strict=True))
        if out is not None and not isinstance(out, (np.ndarray, DeviceArray)):
            raise TypeError(
                f"output {self.output.name!r} must be a numpy.ndarray or a gpuvec.DeviceArray, "
                f"got {type(out).__name__}"
            )
        if isinstance(out, np.ndarray) and not out.dtype.isnative:
            # The kernel writes native numbers; inputs are converted, an out cannot be.
            raise TypeError(
                f"out (output {self.output.name!r}) has dtype {out.dtype}, in the other byte "
                f"order: {self.name} writes the machine's; pass an array of dtype "
                f"{out.dtype.newbyteorder('=')}"
            )
        return args, out

    def _types(self, args, out):
        """Each input's dtype, the output's, and the placeholders' from the arguments."""
        placeholders: dict[str, np.dtype] = {}
        origin: dict[str, str] = {}

        def bind(p: _spec.Parameter, dtype: np.dtype, what: str) -> None:
            if p.dtype is not None:
                if dtype != p.dtype:
                    raise TypeError(
                        f"parameter {p.name!r} is {p.dtype}, got {what} of {dtype}; convert "
                        f"it with .astype(np.{p.dtype})"
                    )
                return
            if dtype not in ARRAY_DTYPES:
                raise TypeError(
                    f"parameter {p.name!r} got {what} of {dtype}; gpuvec holds {ARRAY_DTYPE_NAMES}"
                )
            known = placeholders.setdefault(p.type_name, dtype)
            origin.setdefault(p.type_name, p.name)
            if known != dtype:
                raise TypeError(
                    f"parameter {p.name!r} of type {p.type_name} got {what} of {dtype}, but "
                    f"{p.type_name} is {known} from parameter {origin[p.type_name]!r}"
                )

        # Arrays decide the placeholders first; numbers follow them, as in NumPy.
        for a, p in zip(args, self.inputs, strict=True):
            if not _is_number(a):
                bind(p, a.dtype, "an array")
        if out is not None:
            bind(self.output, out.dtype, "an out array")
        for a, p in zip(args, self.inputs, strict=True):
            if _is_number(a) and p.is_placeholder and p.type_name not in placeholders:
                placeholders[p.type_name] = _number_dtype(a)
                origin[p.type_name] = p.name
        in_dtypes = [
            p.dtype if p.dtype is not None else placeholders[p.type_name] for p in self.inputs
        ]
        for a, p, dtype in zip(args, self.inputs, in_dtypes, strict=True):
            if _is_number(a):
                _check_number(a, p, dtype)
        out_dtype = self.output.dtype or placeholders.get(self.output.type_name)
        if out_dtype is None:
            raise ValueError(
                f"the type {self.output.type_name} of output {self.output.name!r} is not that of "
                f"any input: pass the output array (out=) to decide it"
            )
        return in_dtypes, out_dtype, placeholders

    # -- compiling ---------------------------------------------------------------------------

    def _compile(self, backend, cuda_source, expressions, host_source, entries):
        """A source compiled for `backend`: the loaded module and its symbols, in order.

        NVRTC compiles `cuda_source` with the instances named by `expressions`;
        the host compiler `host_source`, whose exported `entries` are the symbols.
        """
        nvrtc_options = [
            *_module._NVRTC_OPTIONS,
            f"-I{_module._INCLUDE_DIR}",
            *self.options,
            *_headers.nvrtc_include_options(),
        ]
        if backend == BACKEND_CUDA:
            image, lowered = _module.compile_nvrtc(
                cuda_source,
                self._source_name,
                nvrtc_options,
                expressions,
                self._compile_error,
                header=headers_text(),
            )
            return _core.LoadedModule(BACKEND_CUDA, image=image), list(lowered)
        if self._front_end_check:
            # NVRTC reads the source first, as on a GPU: what a GPU rejects fails here too.
            _frontend.check(
                cuda_source,
                self._source_name,
                nvrtc_options,
                expressions,
                self._compile_error,
                _module.kernel_cache(),
                header=headers_text(),
            )
        path = _module.compile_host(
            host_source,
            self._source_name,
            [
                *_HOST_OPTIONS,
                *_options.host_options(self.options),
                *_headers.host_include_options(),
            ],
            self._compile_error,
            key_names=list(entries),
            checked=False,
            header=headers_text(),
        )
        return _core.LoadedModule(BACKEND_HOST, path=str(path)), list(entries)

    def _user_source(self) -> str:
        """The user's code as the compile errors' line numbers count it."""
        raise NotImplementedError

    def _compile_error(self, log: str, compiler: str) -> CompileError:
        message = _compile_errors.summarize(log, self._user_source(), self._source_name, compiler)
        return CompileError(message, log=log, source_name=self._source_name)


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Number, np.generic))


def _argument(value, p: _spec.Parameter):
    """An argument as the call takes it: an array (another library's GPU array as a
    DeviceArray; a NumPy array in the machine's byte order, converted where it is not) or a
    number."""
    if isinstance(value, np.ndarray):
        return native_byte_order(value)
    if isinstance(value, DeviceArray) or _is_number(value):
        return value
    if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
        return asarray(value)
    raise TypeError(
        f"parameter {p.name!r} takes an array (NumPy, gpuvec.DeviceArray or another library's "
        f"GPU array) or a number, got {type(value).__name__}"
    )


def _number_dtype(value) -> np.dtype:
    """The dtype a number gives a placeholder that no array decided: a NumPy scalar's
    own, bool for a bool, else float64 (gpuvec computes in floats)."""
    if isinstance(value, np.generic):
        return value.dtype if value.dtype in ARRAY_DTYPES else np.dtype(np.float64)
    return np.dtype(np.bool_) if isinstance(value, bool) else np.dtype(np.float64)


def _check_number(value, p: _spec.Parameter, dtype: np.dtype) -> None:
    """A number must be real, and fit its parameter's type."""
    if dtype == np.bool_:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"parameter {p.name!r} is bool and takes True or False, got {value!r}")
        return
    if isinstance(value, (complex, np.complexfloating)) or not isinstance(
        value, (numbers.Real, np.generic)
    ):
        raise TypeError(f"parameter {p.name!r} is {dtype} and takes a real number, got {value!r}")
    x = float(value)
    if dtype == np.float32 and math.isfinite(x) and abs(x) > float(np.finfo(np.float32).max):
        raise TypeError(f"parameter {p.name!r} is float32, and {value!r} is too large for it")
