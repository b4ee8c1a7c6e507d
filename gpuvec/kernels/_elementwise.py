"""``ElementwiseKernel``: an elementwise operation in CUDA C++, in CuPy's spec language.

The kernel is not a second elementwise engine: each type signature is
compiled from gpuvec's own elementwise machinery (``gpuvec/map.hpp``) with
the user's operation as its functor (``_map_source``), and a call goes
through the same broadcasting, layout simplification and staging as
gpuvec's own ops (``_core.map_call``, ``gpuvec_map``).
"""

from __future__ import annotations

from gpuvec import _core
from gpuvec.kernels import _map_source, _module
from gpuvec.kernels._user_kernel import UserKernel

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
    NotImplementedError
        ``raw`` parameters, or more than one output (not supported yet).

    Notes
    -----
    The output starts as the out array's value when `out` is given and the
    operation reads the output (``y += x``, as in CuPy), else as zero.

    Differences from CuPy's: the index ``i`` of the element and ``_ind``
    are not available in the operation, nor are ``raw`` parameters; there is
    one output; and the dtypes are gpuvec's (float32, float64, bool). An
    array must have its parameter's dtype exactly (``TypeError``
    otherwise); a number is converted to its parameter's type. Up to 8
    inputs, 7 when the operation reads its output.

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
            module, symbols = self._compile(
                backend,
                _map_source.cuda_source(functor),
                _map_source.name_expressions(in_dtypes, out_dtype),
                _map_source.host_source(functor, in_dtypes, out_dtype),
                [_map_source.ENTRY],
            )
            kernel = self._compiled[key] = _core.MapKernel(module, symbols, out_dtype, in_dtypes)
        return kernel

    def _user_source(self) -> str:
        return self.operation
