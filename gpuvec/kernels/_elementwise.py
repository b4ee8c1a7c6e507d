"""``ElementwiseKernel``: an elementwise operation in CUDA C++, in CuPy's spec language.

The kernel is not a second elementwise engine: each type signature is
compiled from gpuvec's own elementwise machinery (``gpuvec/map.hpp``) with
the user's operation as its functor (``_map_source``), and a call goes
through the same broadcasting, layout simplification and staging as
gpuvec's own ops (``_core.map_call``, ``gpuvec_map``).
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import numpy as np

from gpuvec import _core
from gpuvec._dtypes import ARRAY_DTYPES
from gpuvec._errors import CompileError
from gpuvec.creation import asarray
from gpuvec.device_array import DeviceArray
from gpuvec.kernels import _compile_errors, _map_source, _module, _spec

__all__ = ["ElementwiseKernel"]

_BACKEND_HOST = 0
_BACKEND_CUDA = 1

# The installed headers a compiled kernel is made of: their text is part of
# its cache key, so that a change to them compiles the kernel again.
_HEADERS = (
    "limits.h",
    "portable.hpp",
    "layout.hpp",
    "operand.hpp",
    "walk.hpp",
    "map.hpp",
    "ops.hpp",  # the functors of gpuvec's ops, which fused kernels call (gpuvec/fusion)
    "cuda_emulation.h",
    "emulation.h",
)
_headers_text: str | None = None

# The host compiler may vectorize the contiguous loop's `omp simd` without
# OpenMP's runtime. That loop tests each operand for a scalar; the tests are
# loop invariant, and -funswitch-loops (not in -O2) hoists them out, which is
# what lets it vectorize: 2.5x faster for a fused chain of 4 ops, in cache.
_HOST_OPTIONS = ("-DGPUVEC_EMULATION=1", "-fopenmp-simd", "-funswitch-loops")


def _headers() -> str:
    global _headers_text
    if _headers_text is None:
        folder = Path(_module._INCLUDE_DIR) / "gpuvec"
        _headers_text = "".join((folder / h).read_text() for h in _HEADERS)
    return _headers_text


class ElementwiseKernel:
    """An elementwise operation written in CUDA C++, run on arrays of any shape.

    CuPy's ``ElementwiseKernel``: the same parameter lists and operation run
    here, on a GPU (compiled by NVRTC) and without one (compiled by the host
    C++ compiler), with gpuvec's own elementwise kernels around the operation:
    16-byte loads where the arrays are contiguous, any strides, broadcasting.

    Parameters
    ----------
    in_params : str
        The inputs, ``"type name"`` each, separated by commas: ``"float32 a,
        float32 b"``. A type is ``float32``, ``float64``, ``bool``, or a type
        placeholder of one letter (``"T a, T b"``), which each call resolves
        from the dtypes of its arguments.
    out_params : str
        The output, likewise: ``"float32 c"`` or ``"T c"``.
    operation : str
        CUDA C++ statements that assign the output from the inputs, such as
        ``"c = 2.5f * a * b + a - 0.5f"``. The inputs are values (``const``),
        the output a variable that starts at zero and is written to the
        result; placeholders are types there too (``T t = a * a;``).
    name : str, optional
        The kernel's name: compile errors are reported in ``name.cu``.
    options : sequence of str, optional
        More compiler options (``-D`` and ``-I`` mean the same to both compilers).
    preamble : str, optional
        Code before the operation: device functions, constants.

    Raises
    ------
    ValueError
        A parameter list that is not ``type name, ...``, an unknown type, a
        name used twice, or no output; the message names the parameter.
    NotImplementedError
        ``raw`` parameters, or more than one output (not supported yet).

    Notes
    -----
    Differences from CuPy's: the index ``i`` of the element and ``_ind``
    are not available in the operation, nor are ``raw`` parameters; there is
    one output, which does not read the out array's previous values; and the
    dtypes are gpuvec's (float32, float64, bool). An array must have its
    parameter's dtype exactly (``TypeError`` otherwise); a number is
    converted to its parameter's type. Up to 8 inputs.

    Each type signature is compiled once, on its first call, and kept in the
    kernel cache on disk; a compile error raises :class:`gpuvec.CompileError`
    naming the line of the operation. Both compilers run without FMA
    contraction, so a kernel gives the same bits on both backends, and as
    NumPy's arithmetic in the same dtype.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec
    >>> k = gpuvec.ElementwiseKernel(
    ...     "float32 a, float32 b", "float32 c", "c = 2.5f * a * b + a - 0.5f", "fma_like"
    ... )
    >>> a = np.arange(4, dtype=np.float32)
    >>> k(a, np.float32(2.0))
    array([-0.5,  5.5, 11.5, 17.5], dtype=float32)

    With type placeholders, broadcasting, and into an existing array:

    >>> square_diff = gpuvec.ElementwiseKernel("T x, T y", "T z", "T d = x - y; z = d * d")
    >>> out = np.empty((2, 4))
    >>> square_diff(np.ones((2, 1)), np.arange(4.0), out=out)
    array([[1., 0., 1., 4.],
           [1., 0., 1., 4.]])
    """

    def __init__(
        self,
        in_params: str,
        out_params: str,
        operation: str,
        name: str = "kernel",
        options=(),
        *,
        preamble: str = "",
    ):
        if not isinstance(operation, str):
            raise TypeError(f"operation must be a str of CUDA C++, got {type(operation).__name__}")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"name must be a C identifier, got {name!r}")
        self.inputs = _spec.parse_parameters(in_params, "in_params")
        outputs = _spec.parse_parameters(out_params, "out_params")
        if not outputs:
            raise ValueError("out_params declares no output: give one, such as 'float32 c'")
        if len(outputs) > 1:
            raise NotImplementedError(
                f"out_params declares {len(outputs)} outputs; gpuvec's ElementwiseKernel "
                f"has one output for now"
            )
        if len(self.inputs) > _core.MAX_MAP_INPUTS:
            raise ValueError(
                f"in_params declares {len(self.inputs)} inputs; an ElementwiseKernel takes at "
                f"most {_core.MAX_MAP_INPUTS}"
            )
        self.output = outputs[0]
        seen = set()
        for p in (*self.inputs, self.output):
            if p.name in seen:
                raise ValueError(f"parameter name {p.name!r} is used twice")
            seen.add(p.name)
        self.in_params = in_params
        self.out_params = out_params
        self.operation = operation
        self.name = name
        self.options = tuple(options)
        self.preamble = preamble
        self._compiled: dict[tuple, _core.MapKernel] = {}

    def __repr__(self) -> str:
        return f"<gpuvec.ElementwiseKernel {self.name}({self.in_params}) -> ({self.out_params})>"

    def __call__(self, *args, out=None, stream=None):
        """Runs the operation on the arguments, broadcast together.

        Parameters
        ----------
        *args
            One per input (NumPy arrays, DeviceArrays or numbers), then,
            optionally, the output array.
        out : numpy.ndarray or DeviceArray, optional
            Where the result goes, of the broadcast shape and the output's dtype.
        stream : gpuvec.Stream, optional
            The stream the kernel runs on (by default the current one).

        Returns
        -------
        numpy.ndarray or DeviceArray
            A DeviceArray when an argument is device data, else a NumPy
            array (a NumPy scalar for 0-d results), as from gpuvec's ufuncs;
            `out` itself when given.
        """
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
        in_dtypes, out_dtype, placeholders = self._types(args, out)
        backend = _core.backend_of_call(args, out)
        kernel = self._kernel(backend, in_dtypes, out_dtype, placeholders)
        names = tuple(p.name for p in self.inputs)
        return _core.map_call(kernel, args, names, out, stream)

    # -- types -----------------------------------------------------------------------------------

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
                    f"parameter {p.name!r} got {what} of {dtype}; gpuvec works on float32, "
                    f"float64 and bool"
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

    # -- compiling -------------------------------------------------------------------------------

    def _kernel(self, backend, in_dtypes, out_dtype, placeholders) -> _core.MapKernel:
        """The kernel compiled for one backend and signature (once per process)."""
        key = (backend, tuple(in_dtypes), out_dtype, tuple(sorted(placeholders.items())))
        kernel = self._compiled.get(key)
        if kernel is None:
            functor = _map_source.functor_source(
                self.operation,
                [p.name for p in self.inputs],
                in_dtypes,
                self.output.name,
                out_dtype,
                placeholders,
                self._source_name,
                self.preamble,
            )
            if backend == _BACKEND_CUDA:
                module, symbols = self._compile_nvrtc(functor, in_dtypes, out_dtype)
            else:
                module, symbols = self._compile_host(functor, in_dtypes, out_dtype)
            kernel = self._compiled[key] = _core.MapKernel(module, symbols, out_dtype, in_dtypes)
        return kernel

    @property
    def _source_name(self) -> str:
        return f"{self.name}.cu"

    def _compile_nvrtc(self, functor, in_dtypes, out_dtype):
        expressions = _map_source.name_expressions(in_dtypes, out_dtype)
        image, lowered = _module.compile_nvrtc(
            _map_source.cuda_source(functor),
            self._source_name,
            [*_module._NVRTC_OPTIONS, f"-I{_module._INCLUDE_DIR}", *self.options],
            expressions,
            self._compile_error,
            header=_headers(),
        )
        return _core.LoadedModule(_BACKEND_CUDA, image=image), list(lowered)

    def _compile_host(self, functor, in_dtypes, out_dtype):
        path = _module.compile_host(
            _map_source.host_source(functor, in_dtypes, out_dtype),
            self._source_name,
            [*_HOST_OPTIONS, *self.options],
            self._compile_error,
            key_names=[_map_source.ENTRY],
            checked=False,
            header=_headers(),
        )
        return _core.LoadedModule(_BACKEND_HOST, path=str(path)), [_map_source.ENTRY]

    def _compile_error(self, log: str, compiler: str) -> CompileError:
        message = _compile_errors.summarize(log, self.operation, self._source_name, compiler)
        return CompileError(message, log=log, source_name=self._source_name)


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Number, np.generic))


def _argument(value, p: _spec.Parameter):
    """An argument as the call takes it: an array (another library's GPU array as a
    DeviceArray) or a number."""
    if isinstance(value, (np.ndarray, DeviceArray)) or _is_number(value):
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
