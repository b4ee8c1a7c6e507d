"""``gpuvec.fuse``: a function of gpuvec ops, run as a few fused kernels.

The function is traced once per signature of its arguments (each one's kind:
NumPy array, DeviceArray or number; its dtype and number of dimensions; the
backend and the precision) into a :class:`~gpuvec.fusion._plan.Plan`, which
is kept. Later calls with the same signature run the plan's kernels,
compiled once, directly.
"""

from __future__ import annotations

import functools
import inspect
import types

import numpy as np

from gpuvec._backend import backend
from gpuvec._dtypes import get_precision
from gpuvec.device_array import DeviceArray
from gpuvec.fusion._explain import Explanation
from gpuvec.fusion._paired import pair_reductions
from gpuvec.fusion._plan import Mismatch, Plan, make_plan
from gpuvec.fusion._tracer import classify, trace

__all__ = ["FusedFunction", "fuse"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.bool_))
_ORDINARY = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _kind(value):
    """An argument's part of the signature, or None where the call runs as written."""
    t = type(value)
    if t is np.ndarray:
        return ("n", value.dtype, value.ndim) if value.dtype in _FLOATS else None
    if t is DeviceArray:
        if value.dtype not in _FLOATS:
            return None
        return ("d", value.dtype, value.ndim, value._host is not None)
    if t is float or t is int:
        return "w"
    if t is np.float32 or t is np.float64:
        return ("s", value.dtype)
    return None


class FusedFunction:
    """A function whose gpuvec ops run as fused kernels (see :func:`fuse`)."""

    def __init__(self, fn, kernel_name: str | None = None):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"gpuvec.fuse takes a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self._fn = fn
        # What the fused kernels are named after (compile errors, explain, profiles).
        self._kernel_name = fn.__name__ if kernel_name is None else kernel_name
        self._signature = inspect.signature(fn)
        self._parameters = list(self._signature.parameters.values())
        self._names = [p.name for p in self._parameters]
        self._ordinary = all(p.kind in _ORDINARY for p in self._parameters)
        self._plans: dict[tuple, Plan | str] = {}

    def __repr__(self) -> str:
        return f"<gpuvec.fuse {self.__qualname__}: {len(self._plans)} traced signature(s)>"

    def __get__(self, instance, owner=None):
        return self if instance is None else types.MethodType(self, instance)

    def __call__(self, *args, **kwargs):
        arguments = self._arguments(args, kwargs)
        plan = None if arguments is None else self._plan(arguments)
        if isinstance(plan, Plan):
            try:
                return plan.run(arguments)
            except Mismatch:
                pass
        return self._fn(*args, **kwargs)

    def explain(self, *args, **kwargs) -> Explanation:
        """The plan a call on these arguments runs: its kernels and their source,
        what runs op by op and why, and the bytes it moves against the eager
        function's. Prints as text; runs nothing but the trace.

        Returns
        -------
        Explanation
        """
        arguments = self._arguments(args, kwargs)
        if arguments is None:
            shown = list(args) + list(kwargs.values())
            names = [f"arg{k}" for k in range(len(shown))]
            why = "its arguments are not all named parameters of the function"
            return Explanation(self.__name__, shown, names, None, why)
        plan = self._plan(arguments)
        if isinstance(plan, Plan):
            return Explanation(self.__name__, arguments, self._names, plan, None)
        return Explanation(self.__name__, arguments, self._names, None, plan)

    def _arguments(self, args, kwargs):
        """The arguments in the order of the parameters, or None (the call runs as written)."""
        if not kwargs and len(args) == len(self._names) and self._ordinary:
            return args
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in self._parameters):
            return None
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            return None  # the call raises its TypeError as written
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self._names)

    def _plan(self, arguments) -> Plan | str:
        """The plan for these arguments' signature (traced on first use), or why there is none."""
        kinds = tuple(_kind(a) for a in arguments)
        if None in kinds:
            bad = next(n for n, k in zip(self._names, kinds, strict=True) if k is None)
            return (
                f"argument {bad!r} is a {type(arguments[self._names.index(bad)]).__name__} "
                f"of a kind fused kernels do not take (NumPy arrays and DeviceArrays of "
                f"float32, float64 or bool, and Python or NumPy float numbers)"
            )
        if all(k in ("w",) or k[0] == "s" for k in kinds):
            return "no argument is an array"
        key = (kinds, get_precision(), backend())
        plan = self._plans.get(key)
        if plan is None:
            graph, why = trace(self._fn, self._names, [classify(a) for a in arguments])
            plan = why if graph is None else pair_reductions(make_plan(graph, self._kernel_name))
            self._plans[key] = plan
        return plan


def fuse(fn=None, *, kernel_name: str | None = None):
    """Run a function of gpuvec ops as a few fused kernels.

    The function's arithmetic (``+ - * / **``, unary ``-``, ``abs``,
    comparisons), gpuvec's elementwise functions (``gpuvec.exp``,
    ``gpuvec.maximum``, ``gpuvec.where``, ...; NumPy's ufuncs too) and
    reductions (``x.sum(axis=1)``, ``gpuvec.max(x, keepdims=True)``, ...)
    are traced once per signature of the arguments. Each chain of
    elementwise ops becomes one :class:`gpuvec.ElementwiseKernel`, which
    reads its inputs once and writes its result once, where the eager ops
    write and read a temporary array per op. The kernels call the same
    functions as gpuvec's own ops, so the results are the eager ops'
    results: the same dtypes, the same bits for arithmetic and ``sqrt``, the
    same NaN propagation and the same errors. Reductions run as gpuvec's
    eager reductions on the fused kernels' results.

    Parameters
    ----------
    fn : function
        Its parameters are NumPy arrays or DeviceArrays (float32, float64 or
        bool) and numbers; it returns a value, or a tuple or list of values.
    kernel_name : str, optional
        CuPy's name of the fused kernel: the kernels are named
        ``fused_<kernel_name>_<k>`` (by default after the function).

    Returns
    -------
    FusedFunction
        Called like `fn`; ``.explain(*args)`` shows the plan for arguments.

    Notes
    -----
    A call whose arguments are of another kind (lists, ints arrays), and a
    function that does what a trace cannot follow, run as written, op by op:
    Python control flow on array values (``if x.max() > 0``), indexing,
    shapes, in-place updates, arrays that are not arguments, functions that
    are not gpuvec's, and arithmetic on numbers alone. ``explain`` says which
    line did so.

    The trace runs the function once, with stand-ins for the arguments, and
    keeps the plan: numbers the function reads from outside (a global
    ``scale``) are fixed at that point. A function with a side effect runs
    as written, on every call, so that the side effect happens once per
    call, as without ``fuse``: one that calls ``print``, ``list.append`` or
    another built-in that is not pure, directly or in a helper, or assigns
    to an item, an attribute, a global or a nonlocal name. The trace stops
    before the side effect happens. gpuvec's semantics apply to NumPy
    arguments too: ``a + b`` computes as ``gpuvec.add(a, b)`` does, and
    ``numpy.exp(a)`` as ``gpuvec.exp(a)``.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> @gpuvec.fuse
    ... def axpb(a, b):
    ...     return 2.5 * a * b + a - 0.5
    >>> a = np.arange(4, dtype=np.float32)
    >>> axpb(a, np.float32(2.0) * np.ones(4, np.float32))
    array([-0.5,  5.5, 11.5, 17.5], dtype=float32)
    >>> print(axpb.explain(a, a))  # doctest: +ELLIPSIS
    fused function axpb(a: ndarray float32[4], b: ndarray float32[4])
    step 1: fused kernel fused_axpb_0 (line 3): 4 op(s) in one pass (multiply, ...)
    ...
      eager   ...   (3.33x the fused plan's)

    ``gpuvec.fuse()`` with parentheses works too, and a reduction may end
    the function:

    >>> @gpuvec.fuse()
    ... def energy(x):
    ...     return gpuvec.sum(x * x, axis=1)
    >>> energy(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([ 5., 25.])

    CuPy's ``kernel_name`` names the kernels:

    >>> @gpuvec.fuse(kernel_name="squash")
    ... def f(x):
    ...     return x * x + 1.0
    >>> print(f.explain(a))  # doctest: +ELLIPSIS
    fused function f(x: ndarray float32[4])
    step 1: fused kernel fused_squash_0 ...
    ...
    """
    if kernel_name is not None and (
        not isinstance(kernel_name, str) or not kernel_name.isidentifier()
    ):
        raise ValueError(f"kernel_name must be a C identifier, got {kernel_name!r}")
    if fn is None:
        return functools.partial(FusedFunction, kernel_name=kernel_name)
    return FusedFunction(fn, kernel_name)
