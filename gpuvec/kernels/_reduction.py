"""``ReductionKernel``: a reduction in CUDA C++, in CuPy's spec language.

The kernel is not a second reduction engine: each type signature is compiled
from gpuvec's own reduction engine (``gpuvec/reduce.hpp``), those that
``gpuvec.sum`` and the other reductions run, with the user's expressions as
its policy (``_reduction_source``), and a call goes through the same
broadcasting, layout simplification and launch plan (``_core.map_reduce_call``,
``gpuvec_map_reduce``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from gpuvec import _core
from gpuvec.device_array import DeviceArray
from gpuvec.kernels import _module, _raw_params, _reduction_source, _spec
from gpuvec.kernels._spec import C_TYPES
from gpuvec.kernels._user_kernel import BACKEND_CUDA, UserKernel

__all__ = ["ReductionKernel"]


class ReductionKernel(UserKernel):
    """A reduction written in CUDA C++: map each element, combine, map the result.

    CuPy's ``ReductionKernel``: the same parameter lists and expressions run
    here, on a GPU (compiled by NVRTC) and without one (compiled by the host
    C++ compiler), inside gpuvec's own reduction engine: one pass over the
    data, 16-byte loads where it is contiguous, the shape of the launch
    chosen from the rows and how they lie, the last block finishing the
    grid; on the host, gpuvec's thread pool.

    Parameters
    ----------
    in_params : str
        The inputs, ``"type name"`` each, separated by commas: ``"float32 x,
        float32 y"``. A type is ``float32``, ``float64``, ``bool``, or a type
        placeholder of one letter (``"T x"``), resolved from each call's
        arguments. The inputs broadcast together.
    out_params : str
        The output, likewise: ``"float32 z"`` or ``"T z"``.
    map_expr : str
        A CUDA C++ expression of the inputs: each element's value in the
        reduction, such as ``"x * x"``.
    reduce_expr : str
        An expression that combines two values ``a`` and ``b``, such as
        ``"a + b"`` or ``"max(a, b)"``. The engine combines values in a tree
        of its own choosing, so the expression must be associative and
        commutative.
    post_map_expr : str
        A statement that writes the output from the reduced value ``a``,
        such as ``"z = sqrt(a)"``.
    identity : str or None
        The value of no elements, as CUDA C++ (``"0"``, ``"-INFINITY"``); it
        starts each partial reduction, so it must leave any value unchanged.
        None for a reduction without one: a reduction of no elements then
        raises ValueError, as NumPy's ``max`` of an empty array does.
    name : str, optional
        The kernel's name: compile errors are reported in ``name.cu``.
    reduce_type : str, optional
        The type of ``a`` and ``b`` (``_type_reduce`` in the expressions):
        float32, float64, bool, an integer type such as ``int64``, or a
        placeholder. By default the output's type.
    options : sequence of str, optional
        More compiler options (``-D`` and ``-I`` mean the same to both compilers).
    preamble : str, optional
        Code before the expressions: device functions, constants.

    Raises
    ------
    ValueError
        A parameter list that is not ``type name, ...``, an unknown type, a
        name used twice, no input or no output, an empty expression, or a
        bad reduce_type; the message names the parameter.
    TypeError
        An expression or identity that is not a str.
    NotImplementedError
        More than one output, or a raw output.

    Notes
    -----
    A call, ``k(*args, axis=None, keepdims=False, out=None, stream=None)``,
    reduces over `axis` (an int, a tuple of ints, negative ones counted from
    the end; every axis by default) of the inputs broadcast together, and
    takes any strides, numbers, DeviceArrays and NumPy arrays, as
    :func:`gpuvec.sum` does.

    ``map_expr`` may use CuPy's ``_J`` (the element's index in C order
    over the reduced axes), ``_i`` (the output's index), ``_in_ind.size()``,
    ``_out_ind.size()`` and ``raw`` inputs (whole arrays it indexes); they
    come in as more inputs of gpuvec's engine (docs/kernels.md). There is
    one output; the dtypes are gpuvec's. An array must have its
    parameter's dtype exactly (``TypeError`` otherwise); a number is
    converted to its parameter's type. Up to 8 inputs, counting those. Each
    type signature is compiled once, on its first call, and kept in the
    kernel cache on disk; a compile error raises
    :class:`gpuvec.CompileError` naming the line of the expression.

    Examples
    --------
    The Euclidean norm of each row:

    >>> import numpy as np
    >>> import gpuvec
    >>> l2norm = gpuvec.ReductionKernel(
    ...     "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm"
    ... )
    >>> x = np.array([[3.0, 4.0], [5.0, 12.0]])
    >>> l2norm(x, axis=1)
    array([ 5., 13.])

    A dot product, of two inputs, and a maximum without an identity:

    >>> dot = gpuvec.ReductionKernel(
    ...     "T x, T y", "T z", "x * y", "a + b", "z = a", "0", "dot"
    ... )
    >>> float(dot(np.arange(4.0), np.ones(4)))
    6.0
    >>> largest = gpuvec.ReductionKernel(
    ...     "T x", "T m", "x", "a > b ? a : b", "m = a", None, "largest"
    ... )
    >>> largest(np.array([[1.0, 7.0], [9.0, 2.0]]), axis=0, keepdims=True)
    array([[9., 7.]])
    """

    def __init__(
        self,
        in_params: str,
        out_params: str,
        map_expr: str,
        reduce_expr: str,
        post_map_expr: str,
        identity,
        name: str = "reduce_kernel",
        reduce_type: str | None = None,
        options=(),
        *,
        preamble: str = "",
    ):
        for what, value in (
            ("map_expr", map_expr),
            ("reduce_expr", reduce_expr),
            ("post_map_expr", post_map_expr),
        ):
            if not isinstance(value, str):
                raise TypeError(f"{what} must be a str of CUDA C++, got {type(value).__name__}")
            if not value.strip():
                raise ValueError(f"{what} is empty: give CUDA C++, such as 'a + b'")
        if identity is not None and not isinstance(identity, str):
            raise TypeError(
                f"identity must be a str of CUDA C++ (such as '0') or None, got "
                f"{type(identity).__name__}"
            )
        if identity is not None and not identity.strip():
            raise ValueError("identity is empty: give a value such as '0', or None for none")
        super().__init__(in_params, out_params, name, options, preamble, "ReductionKernel")
        if not any(not p.raw for p in self.inputs):
            raise ValueError(
                "in_params declares no input that is not raw: give one, such as 'float32 x'"
            )
        if len(self.outputs) > 1 or self.output.raw:
            raise NotImplementedError(
                f"out_params {out_params!r}: gpuvec's ReductionKernel writes one output, not raw"
            )
        if self.output.name in ("a", "b"):
            raise ValueError(
                f"out_params: the output may not be named {self.output.name!r}, which "
                f"post_map_expr reads as the reduced value"
            )
        self._reduce_param = _reduce_type(reduce_type)
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = identity
        self.reduce_type = reduce_type

    def __call__(self, *args, axis=None, keepdims=False, out=None, stream=None):
        """Reduces the arguments, broadcast together, over `axis`.

        Parameters
        ----------
        *args
            One per input (NumPy arrays, DeviceArrays or numbers), then,
            optionally, the output array.
        axis : int or tuple of int, optional
            The axes reduced; every axis by default.
        keepdims : bool, optional
            Keep the reduced axes, with length 1.
        out : numpy.ndarray or DeviceArray, optional
            Where the result goes, of the result's shape and the output's dtype.
        stream : gpuvec.Stream, optional
            The stream the kernel runs on (by default the current one).

        Returns
        -------
        numpy.ndarray or DeviceArray
            A DeviceArray when an argument is device data, else a NumPy
            array (a NumPy scalar for a 0-d result); `out` itself when given.

        Raises
        ------
        ValueError
            A reduction of no elements by a kernel without an identity.
        """
        args, out = self._arguments(args, out)
        in_dtypes, out_dtype, placeholders = self._types(args, out)
        reduce_dtype = self._reduce_dtype(out_dtype, placeholders)
        names = [p.name for p in self.inputs]
        staging = None
        raw: list[tuple[str, np.dtype]] = []
        if self._extras or any(p.raw for p in self.inputs):
            args, names, in_dtypes, staging, raw = self._with_extras(
                args, out, names, in_dtypes, axis, stream
            )
        backend = _core.backend_of_call(args, out)
        kernel = self._kernel(
            backend, in_dtypes, out_dtype, reduce_dtype, placeholders, tuple(names), tuple(raw)
        )
        # On the host backend Ctrl-C stops the reduction with KeyboardInterrupt.
        try:
            return _module.interruptible(
                _core.map_reduce_call,
                kernel,
                args,
                tuple(names),
                self.name,
                axis,
                bool(keepdims),
                out,
                stream,
            )
        finally:
            if staging is not None:
                staging.finish()

    @functools.cached_property
    def _extras(self) -> set[str]:
        """CuPy's names map_expr uses besides values: _J, _i, _in_ind, _out_ind."""
        return _raw_params.identifiers(self.map_expr) & {"_J", "_i", "_in_ind", "_out_ind"}

    def _with_extras(self, args, out, names, in_dtypes, axis, stream):
        """The call's inputs with what map_expr sees besides values (see _raw_params):
        the arguments, their names and dtypes, the staging to finish, the raw parameters."""
        plain = [a for a, p in zip(args, self.inputs, strict=True) if not p.raw]
        shape = np.broadcast_shapes(*(np.shape(a) for a in plain))
        axes = _normalized_axes(axis, len(shape))
        device_data = any(isinstance(a, DeviceArray) for a in (*args, out))
        on_gpu = _core.backend_of_call(tuple(args), out) == BACKEND_CUDA
        staging = _raw_params.Staging(on_gpu, device_data, stream)
        int64 = np.dtype(np.int64)
        values, value_names, dtypes, raw = [], [], [], []
        for a, p, dtype in zip(args, self.inputs, in_dtypes, strict=True):
            if p.raw:
                if not isinstance(a, (np.ndarray, DeviceArray)):
                    raise TypeError(
                        f"raw parameter {p.name!r} takes an array, got {type(a).__name__}"
                    )
                raw.append((p.name, dtype))
                a, name, dtype = staging.descriptor(a, False), f"gpuvec_raw_{p.name}", int64
            else:
                name = p.name
            values.append(a)
            value_names.append(name)
            dtypes.append(dtype)
        reduced = tuple(n if d in axes else 1 for d, n in enumerate(shape))
        kept = tuple(1 if d in axes else n for d, n in enumerate(shape))
        extras = {
            "_J": lambda: staging.index(reduced),
            "_i": lambda: staging.index(kept),
            "_in_ind": lambda: np.int64(math.prod(shape)),
            "_out_ind": lambda: np.int64(math.prod(kept)),
        }
        extra_names = {
            "_J": _reduction_source.J_INPUT,
            "_i": _reduction_source.I_INPUT,
            "_in_ind": _reduction_source.IN_SIZE,
            "_out_ind": _reduction_source.OUT_SIZE,
        }
        for used in sorted(self._extras):
            values.append(extras[used]())
            value_names.append(extra_names[used])
            # The indices come as float64 arrays (see _raw_params.Staging.index).
            dtypes.append(np.dtype(np.float64) if used in ("_J", "_i") else int64)
        if len(values) > _core.MAX_MAP_INPUTS:
            raise ValueError(
                f"{self.name}: this call takes {len(values)} inputs with its raw arrays and "
                f"indices; a ReductionKernel takes at most {_core.MAX_MAP_INPUTS}"
            )
        return tuple(values), value_names, dtypes, staging, raw

    def _reduce_dtype(self, out_dtype, placeholders) -> np.dtype:
        """The dtype of ``a`` and ``b``: reduce_type's, a placeholder's, or the output's."""
        param = self._reduce_param
        if param is None:
            return out_dtype
        if param.dtype is not None:
            return param.dtype
        dtype = placeholders.get(param.type_name)
        if dtype is None:
            raise ValueError(
                f"reduce_type {param.type_name} is not the type of any parameter of this call"
            )
        return dtype

    # -- compiling -------------------------------------------------------------------------------

    def _kernel(self, backend, in_dtypes, out_dtype, reduce_dtype, placeholders, names, raw=()):
        """The kernel compiled for one backend and signature (once per process)."""
        key = (
            backend,
            tuple(in_dtypes),
            out_dtype,
            reduce_dtype,
            tuple(sorted(placeholders.items())),
            names,
            raw,
        )
        kernel = self._compiled.get(key)
        if kernel is None:
            policy = _reduction_source.policy_source(
                (self.map_expr, self.reduce_expr, self.post_map_expr, self.identity),
                list(names),
                in_dtypes,
                self.output.name,
                out_dtype,
                reduce_dtype,
                placeholders,
                self._source_name,
                self.preamble,
                raw,
            )
            module, symbols = self._compile(
                backend,
                _reduction_source.cuda_source(policy),
                _reduction_source.name_expressions(in_dtypes, out_dtype),
                _reduction_source.host_source(policy, in_dtypes, out_dtype),
                [_reduction_source.ENTRY],
            )
            kernel = self._compiled[key] = _core.MapReduceKernel(
                module,
                symbols,
                out_dtype,
                in_dtypes,
                _reduction_source.state_size(reduce_dtype, self.identity is not None),
                self.identity is not None,
            )
        return kernel

    def _user_source(self) -> str:
        return _reduction_source.user_source(
            self.map_expr, self.reduce_expr, self.post_map_expr, self.identity
        )


def _reduce_type(reduce_type) -> _spec.Parameter | None:
    """reduce_type as a parameter's type: a dtype of C_TYPES, or a placeholder."""
    if reduce_type is None:
        return None
    if not isinstance(reduce_type, str):
        raise TypeError(f"reduce_type must be a str such as 'float64', got {type(reduce_type)}")
    name = reduce_type.strip()
    if len(name) == 1 and name.isalpha():
        return _spec.Parameter("_type_reduce", name, None)
    try:
        dtype = np.dtype(name)
    except TypeError:
        dtype = None
    if dtype is None or dtype.name != name or dtype not in C_TYPES:
        known = ", ".join(sorted(d.name for d in C_TYPES))
        raise ValueError(
            f"reduce_type {reduce_type!r} is not a type gpuvec knows: {known}, or a placeholder "
            f"of one letter such as T"
        )
    return _spec.Parameter("_type_reduce", name, dtype)


def _normalized_axes(axis, ndim: int) -> tuple[int, ...]:
    """`axis` as sorted non-negative ints (every axis for None), as NumPy checks it."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(np.lib.array_utils.normalize_axis_tuple(axis, ndim)))
