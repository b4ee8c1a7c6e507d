"""``ElementwiseKernel``: an elementwise operation in CUDA C++, in CuPy's spec language.

The kernel is not a second elementwise engine: each type signature is
compiled from gpuvec's own elementwise machinery (``gpuvec/map.hpp``) with
the user's operation as its functor (``_map_source``), and a call goes
through the same broadcasting, layout simplification and staging as
gpuvec's own ops (``_core.map_call``, ``gpuvec_map``).
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from gpuvec import _core
from gpuvec.creation import empty
from gpuvec.device_array import DeviceArray
from gpuvec.kernels import _map_source, _module, _raw_params
from gpuvec.kernels._spec import C_TYPES
from gpuvec.kernels._user_kernel import BACKEND_CUDA, UserKernel, _argument

__all__ = ["ElementwiseKernel"]


class ElementwiseKernel(UserKernel):
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

    Notes
    -----
    The output starts as the out array's value when `out` is given and the
    operation reads the output (``y += x``, as in CuPy), else as zero.

    CuPy's language beyond values works too: the element's index ``i``
    (C order over the call's shape) and ``_ind.size()``; ``raw`` parameters,
    whole arrays the operation indexes (``w[i]``, ``w.size()``); several
    outputs, returned as a tuple; and the call's ``size=`` (where only raw
    arrays are given) and ``block_size=``. A kernel that uses them reads
    them as more inputs of gpuvec's engine (docs/kernels.md says how, and
    what differs from CuPy). The dtypes are gpuvec's. An array must have
    its parameter's dtype exactly (``TypeError`` otherwise); a number is
    converted to its parameter's type. Up to 8 inputs, counting those.

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

    The index, a raw array and two outputs:

    >>> flip_add = gpuvec.ElementwiseKernel(
    ...     "T x, raw T w", "T s, T d", "s = x + w[w.size() - 1 - i]; d = x - i"
    ... )
    >>> s, d = flip_add(np.zeros(3), np.array([1.0, 2.0, 3.0]))
    >>> s, d
    (array([3., 2., 1.]), array([ 0., -1., -2.]))

    An operation that reads its output updates out in place:

    >>> accumulate = gpuvec.ElementwiseKernel("T x", "T y", "y += x")
    >>> y = np.full(4, 10.0)
    >>> accumulate(np.arange(4.0), y)
    array([10., 11., 12., 13.])
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
        super().__init__(in_params, out_params, name, options, preamble, "ElementwiseKernel")
        self.operation = operation

    def __call__(self, *args, out=None, size=None, block_size=None, stream=None):
        """Runs the operation on the arguments, broadcast together.

        Parameters
        ----------
        *args
            One per input (NumPy arrays, DeviceArrays or numbers), then,
            optionally, every output array.
        out : numpy.ndarray or DeviceArray, optional
            Where the result goes, of the broadcast shape and the output's
            dtype (a kernel of one output).
        size : int, optional
            The number of elements (``i`` runs over ``range(size)``) where no
            argument that is not raw says it: every array argument is raw.
        block_size : int, optional
            CuPy's threads per block: a positive int, checked; gpuvec's
            launch plan chooses the block itself.
        stream : gpuvec.Stream, optional
            The stream the kernel runs on (by default the current one).

        Returns
        -------
        numpy.ndarray or DeviceArray, or a tuple of them
            A DeviceArray when an argument is device data, else a NumPy
            array (a NumPy scalar for 0-d results), as from gpuvec's ufuncs;
            `out` itself when given; one per output, in a tuple, for a
            kernel of several outputs.

        Raises
        ------
        ValueError
            `size` given where an argument that is not raw decides the
            size, or no size at all; a `block_size` that is not positive.
        """
        _check_block_size(block_size)
        if self._plain and size is None:
            return self._call_plain(args, out, stream)
        return self._call_cupy(args, out, size, stream)

    def _call_plain(self, args, out, stream):
        """A call of one output and values only: gpuvec's elementwise engine as it is."""
        args, out = self._arguments(args, out)
        in_dtypes, out_dtype, placeholders = self._types(args, out)
        backend = _core.backend_of_call(args, out)
        names = tuple(p.name for p in self.inputs)
        # An operation that reads its output (`y += x`) starts from out's
        # values, which it takes as one more input, as CuPy's does.
        reads_out = out is not None and self._reads_output
        if reads_out:
            args, names = (*args, out), (*names, self.output.name)
        kernel = self._kernel(backend, in_dtypes, out_dtype, placeholders, reads_out)
        # On the host backend Ctrl-C stops the operation with KeyboardInterrupt.
        return _module.interruptible(_core.map_call, kernel, args, names, out, stream)

    @property
    def _plain(self) -> bool:
        """Whether the kernel needs nothing but each input's value (gpuvec's fast path)."""
        if len(self.outputs) > 1 or any(p.raw for p in (*self.inputs, *self.outputs)):
            return False
        return not self._used & {_map_source.INDEX, "_ind"}

    @functools.cached_property
    def _used(self) -> set[str]:
        return _raw_params.identifiers(self.operation)

    def _call_cupy(self, args, out, size, stream):
        """A call with raw parameters, indices or several outputs (see _raw_params)."""
        ins, outs = self._split(args, out)
        dtypes, placeholders = _bind(self, ins, outs)
        shape = _loop_shape(self, ins, outs, size)
        device_data = any(isinstance(a, DeviceArray) for a in (*ins, *outs))
        backend = _core.backend_of_call(tuple(a for a in (*ins, *outs) if a is not None), None)
        staging = _raw_params.Staging(backend == BACKEND_CUDA, device_data, stream)
        given = [o is not None for o in outs]
        for k, p in enumerate(self.outputs):
            if outs[k] is None:
                outs[k] = _new_array(shape, dtypes[p.name], device_data)
        values, names, param_dtypes = [], [], []

        def add(value, name, dtype):
            values.append(value)
            names.append(name)
            param_dtypes.append(dtype)

        int64 = np.dtype(np.int64)
        for a, p in zip(ins, self.inputs, strict=True):
            if not p.raw:
                add(a, p.name, dtypes[p.name])
        plain_outs = [k for k, p in enumerate(self.outputs) if not p.raw]
        primary = plain_outs[0] if plain_outs else None
        secondary = plain_outs[1:]
        reads_primary = (
            primary is not None
            and given[primary]
            and _map_source.reads(self.operation, self.outputs[primary].name)
        )
        if reads_primary:
            add(outs[primary], _map_source.PREVIOUS, dtypes[self.outputs[primary].name])
        # The index array also gives the engine its shape where no output is
        # a plain array (all raw or stored: it then writes a bool nobody reads).
        if _map_source.INDEX in self._used or secondary or primary is None:
            add(staging.index(shape), _map_source.INDEX_INPUT, np.dtype(np.float64))
        if "_ind" in self._used:
            add(np.int64(math.prod(shape)), _map_source.SIZE, int64)
        raw = []
        for a, p, writable in [
            *((a, p, False) for a, p in zip(ins, self.inputs, strict=True)),
            *((a, p, True) for a, p in zip(outs, self.outputs, strict=True)),
        ]:
            if p.raw:
                raw.append((p.name, dtypes[p.name], writable))
                add(staging.descriptor(a, writable), f"gpuvec_raw_{p.name}", int64)
        stored = []
        for k in secondary:
            p = self.outputs[k]
            stored.append((p.name, dtypes[p.name], given[k] and self._reads(p.name)))
            add(staging.descriptor(outs[k], True), f"gpuvec_out_{p.name}", int64)
        if len(values) > _core.MAX_MAP_INPUTS:
            raise ValueError(
                f"{self.name}: this call takes {len(values)} inputs with its raw arrays, indices "
                f"and outputs; an ElementwiseKernel takes at most {_core.MAX_MAP_INPUTS}"
            )
        first = self.outputs[primary] if primary is not None else None
        primary_spec = None
        if first is not None:
            c_type = C_TYPES[dtypes[first.name]]
            start = _map_source.PREVIOUS if reads_primary else f"{c_type}()"
            primary_spec = (first.name, dtypes[first.name], start)
        out_dtype = dtypes[first.name] if first is not None else np.dtype(np.bool_)
        key = (
            "cupy",
            backend,
            tuple(param_dtypes),
            tuple(names),
            tuple(raw),
            tuple(stored),
            primary_spec,
            tuple(sorted(placeholders.items())),
        )
        kernel = self._compiled.get(key)
        if kernel is None:
            functor = _map_source.cupy_functor_source(
                self.operation,
                list(zip(names, param_dtypes, strict=True)),
                raw,
                stored,
                primary_spec,
                placeholders,
                self._source_name,
                self.preamble,
            )
            kernel = self._compiled[key] = self._build(backend, functor, param_dtypes, out_dtype)
        target = outs[primary] if primary is not None else None
        try:
            _module.interruptible(
                _core.map_call, kernel, tuple(values), tuple(names), target, stream
            )
        finally:
            staging.finish()
        if shape == () and not device_data:
            # 0-d results as NumPy scalars, as from the plain call and gpuvec's ufuncs.
            outs = [o if g else o[()] for o, g in zip(outs, given, strict=True)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _reads(self, name: str) -> bool:
        return _map_source.reads(self.operation, name)

    def _split(self, args, out):
        """The inputs and the outputs (None for each not given) of a call."""
        n_in, n_out = len(self.inputs), len(self.outputs)
        if len(args) == n_in + n_out and n_out > 0:
            if out is not None:
                raise TypeError(f"{self.name}: the outputs are given both as arguments and out=")
            ins, outs = args[:n_in], list(args[n_in:])
        elif len(args) == n_in:
            ins = args
            if out is None:
                outs = [None] * n_out
            elif n_out == 1:
                outs = [out]
            elif isinstance(out, tuple) and len(out) == n_out:
                outs = list(out)
            else:
                raise TypeError(f"{self.name}: out= takes a tuple of its {n_out} output arrays")
        else:
            raise TypeError(
                f"{self.name} takes {n_in} input{'s' if n_in != 1 else ''} "
                f"({', '.join(p.name for p in self.inputs) or 'none'}) and optionally its "
                f"{n_out} output{'s' if n_out != 1 else ''} "
                f"({', '.join(p.name for p in self.outputs)}), got {len(args)} arguments"
            )
        ins = tuple(_argument(a, p) for a, p in zip(ins, self.inputs, strict=True))
        for a, p in zip(ins, self.inputs, strict=True):
            if p.raw and not isinstance(a, (np.ndarray, DeviceArray)):
                raise TypeError(f"raw parameter {p.name!r} takes an array, got {type(a).__name__}")
        for k, (o, p) in enumerate(zip(outs, self.outputs, strict=True)):
            if o is None:
                continue
            if not isinstance(o, (np.ndarray, DeviceArray)):
                raise TypeError(
                    f"output {p.name!r} must be a numpy.ndarray or a gpuvec.DeviceArray, got "
                    f"{type(o).__name__}"
                )
            outs[k] = _argument(o, p)
        return ins, outs

    # -- compiling -------------------------------------------------------------------------------

    @property
    def _reads_output(self) -> bool:
        return _map_source.reads(self.operation, self.output.name)

    def _kernel(
        self, backend, in_dtypes, out_dtype, placeholders, reads_out=False
    ) -> _core.MapKernel:
        """The kernel compiled for one backend and signature (once per process).

        With `reads_out`, the out array's old values are one more input, the last.
        """
        key = (
            backend,
            tuple(in_dtypes),
            out_dtype,
            tuple(sorted(placeholders.items())),
            reads_out,
        )
        kernel = self._compiled.get(key)
        if kernel is None:
            names = [p.name for p in self.inputs]
            if reads_out:
                in_dtypes = [*in_dtypes, out_dtype]
                names.append(_map_source.PREVIOUS)
            functor = _map_source.functor_source(
                self.operation,
                names,
                in_dtypes,
                self.output.name,
                out_dtype,
                placeholders,
                self._source_name,
                self.preamble,
                _map_source.PREVIOUS if reads_out else None,
            )
            kernel = self._compiled[key] = self._build(backend, functor, in_dtypes, out_dtype)
        return kernel

    def _build(self, backend, functor, in_dtypes, out_dtype) -> _core.MapKernel:
        """The map kernels of `functor` compiled for `backend`."""
        module, symbols = self._compile(
            backend,
            _map_source.cuda_source(functor),
            _map_source.name_expressions(in_dtypes, out_dtype),
            _map_source.host_source(functor, in_dtypes, out_dtype),
            [_map_source.ENTRY],
        )
        return _core.MapKernel(module, symbols, out_dtype, list(in_dtypes))

    def _user_source(self) -> str:
        return self.operation


# CuPy's messages, which its users' code may match.
_SIZE_NOT_ALLOWED = (
    "Specified 'size' can be used only if all of the arrays are 'raw': the other arrays "
    "decide the size"
)
_SIZE_REQUIRED = (
    "Loop size is undecided: every array argument is raw, so give the number of elements "
    "with size="
)


def _check_block_size(block_size) -> None:
    """CuPy's block_size: a positive int of at most 1024 threads, or None."""
    if block_size is None:
        return
    if isinstance(block_size, bool) or not isinstance(block_size, numbers.Integral):
        raise TypeError(f"block_size must be an int, got {type(block_size).__name__}")
    if not 0 < block_size <= 1024:
        raise ValueError(f"block_size must be between 1 and 1024 threads, got {block_size}")


def _bind(kernel: ElementwiseKernel, ins, outs):
    """Each parameter's dtype by name, and the placeholders', from a call's arguments."""
    in_dtypes, first_dtype, placeholders = kernel._types(ins, outs[0])
    dtypes = {p.name: d for p, d in zip(kernel.inputs, in_dtypes, strict=True)}
    dtypes[kernel.outputs[0].name] = first_dtype
    for p, o in zip(kernel.outputs[1:], outs[1:], strict=True):
        dtype = p.dtype or placeholders.get(p.type_name)
        if o is not None and dtype is not None and o.dtype != dtype:
            raise TypeError(f"output {p.name!r} is {dtype}, got an out array of {o.dtype}")
        if dtype is None and o is not None:
            dtype = placeholders[p.type_name] = o.dtype
        if dtype is None:
            raise ValueError(
                f"the type {p.type_name} of output {p.name!r} is not that of any input: pass "
                f"the output arrays to decide it"
            )
        dtypes[p.name] = dtype
    return dtypes, placeholders


def _loop_shape(kernel: ElementwiseKernel, ins, outs, size) -> tuple[int, ...]:
    """The shape the operation runs over: the plain arrays' broadcast, or (size,)."""
    shapes = [a.shape for a, p in zip(ins, kernel.inputs, strict=True) if _sized(a, p)]
    given = [o.shape for o, p in zip(outs, kernel.outputs, strict=True) if _sized(o, p)]
    if shapes or given:
        if size is not None:
            raise ValueError(_SIZE_NOT_ALLOWED)
        shape = np.broadcast_shapes(*shapes, *given)
        for o, p in zip(outs, kernel.outputs, strict=True):
            if _sized(o, p) and tuple(o.shape) != shape:
                raise ValueError(
                    f"output {p.name!r} has shape {tuple(o.shape)}; the call's shape is {shape}"
                )
        return shape
    if size is None:
        raise ValueError(_SIZE_REQUIRED)
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
        raise ValueError(f"size must be a non-negative int, got {size!r}")
    return (int(size),)


def _sized(value, p) -> bool:
    """Whether an argument decides the call's shape: an array of a parameter that is not raw."""
    return isinstance(value, (np.ndarray, DeviceArray)) and not p.raw


def _new_array(shape, dtype, device_data: bool):
    """An output the call allocates: a DeviceArray where an argument is one."""
    return empty(shape, dtype) if device_data else np.empty(shape, dtype)
