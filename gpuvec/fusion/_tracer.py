"""Tracing a fused function: running it once on stand-ins that record each op.

The function runs with a :class:`Traced` value in place of each argument.
Operators, gpuvec's elementwise functions and reductions, NumPy's ufuncs and
the DeviceArray methods on a traced value add a node to the graph instead of
computing. What the trace cannot represent (a value's truth in an ``if``, its
shape, indexing, in-place updates, arrays that are not arguments, a function
gpuvec does not know) raises :class:`Untraceable`, and the fused function
then runs as written, op by op.

The function's gpuvec functions (``gpuvec.exp`` through the module, or
``exp`` imported from it) are swapped for tracing ones in a copy of its
globals and closure, for this one run; a helper the function calls keeps the
real ones, which refuse a traced value (it has no data), so that call runs
op by op too.

A function with a side effect is not traced either: it runs as written, so
that the side effect happens once per call, the first call included. When a
trace stops half way, the function runs again as written, and a side effect
that the trace had let happen would happen twice. So the trace stops *before*
anything that may have one: an assignment to an item, an attribute, a global
or a nonlocal name (found in the code before it runs), and a call, from the
function or a helper it calls, of a built-in other than the few pure ones
(``print``, ``list.append`` and ``next`` included).
"""

from __future__ import annotations

import builtins
import dis
import math
import os
import sys
import traceback
import types
import warnings

import numpy as np

from gpuvec import elementwise, reductions, ufuncs
from gpuvec._table import ELEMENTWISE_OPS
from gpuvec.creation import asarray
from gpuvec.device_array import DeviceArray
from gpuvec.fusion._graph import Graph, Node
from gpuvec.fusion._ops import BOOL, FLOAT64, OPS, REDUCTIONS, Operand, result_dtype

__all__ = ["Traced", "Untraceable", "classify", "trace"]


class Untraceable(Exception):
    """The function did something the trace cannot represent; it runs op by op.

    Deliberately not a TypeError or ValueError: library code that turns
    those into its own messages lets this one through.
    """


# gpuvec's op of each NumPy ufunc whose name differs (numpy.rint is gpuvec's
# round), from the op table; and divide's name in NumPy 1.x, "true_divide".
_NUMPY_NAMES = {
    row.numpy: row.name
    for row in ELEMENTWISE_OPS.values()
    if row.numpy is not None and row.numpy != row.name
} | {"true_divide": "divide"}
# The reductions' keyword arguments the trace keeps (the rest run op by op).
_REDUCE_KWARGS = frozenset({"axis", "keepdims", "dtype", "ddof"})


class Tracer:
    """The graph of one trace, and the first thing it could not trace."""

    def __init__(self, code: types.CodeType):
        self.graph = Graph()
        self.code = code
        self.problem: str | None = None

    def line(self) -> int | None:
        """The line of the traced function running now."""
        for frame in reversed(traceback.extract_stack()):
            if frame.filename == self.code.co_filename and frame.lineno is not None:
                return frame.lineno
        return None

    def fail(self, message: str):
        if self.problem is None:
            line = self.line()
            self.problem = message if line is None else f"line {line}: {message}"
        raise Untraceable(self.problem)

    # -- operands --------------------------------------------------------------------------------

    def operand(self, value) -> Node:
        """The node of an operand: a traced value, or a number written in the function."""
        if isinstance(value, Traced):
            if value._tracer is not self:
                self.fail("a traced value of another fused function")
            return value._node
        if isinstance(value, (bool, np.bool_)):
            self.fail(f"the truth value {value!r} as an operand")
        if type(value) in (int, float):  # exactly: the eager ops' weak numbers
            try:
                x = float(value)
            except OverflowError:
                self.fail(f"the number {value!r} is too large for a float")
            return self._const(x, FLOAT64, weak=True)
        if isinstance(value, np.floating) and value.dtype in (np.float32, np.float64):
            return self._const(float(value), value.dtype, weak=False)
        if isinstance(value, (np.ndarray, DeviceArray)):
            self.fail(
                "an array that is not an argument of the fused function; pass it as an argument"
            )
        self.fail(f"an operand of type {type(value).__name__}")

    def _const(self, value: float, dtype, weak: bool) -> Node:
        node = Node("const", np.dtype(dtype), weak=weak, scalar=True, value=value)
        return self.graph.add(node)

    # -- ops -------------------------------------------------------------------------------------

    def op(self, name: str, values, dtype=None) -> Traced:
        """A traced elementwise op of the op table (or ``where``, ``copy``) on `values`."""
        nodes = [self.operand(v) for v in values]
        arrays = [n for n in nodes if n.is_array]
        if not arrays:
            self.fail(f"{name} of numbers alone is left to Python")
        if len({n.device for n in arrays}) > 1:
            self.fail(f"{name} mixes NumPy arrays with DeviceArrays")
        if name == "where" and nodes[0].dtype != BOOL:
            self.fail(f"where's condition has dtype {nodes[0].dtype}, not bool")
        if name == "power" and nodes[1].kind == "const":
            nodes[1].kwargs["exponent"] = True  # a parameter of the kernel (_codegen.is_literal)
        typed = [Operand(n.dtype, n.weak) for n in (nodes[1:] if name == "where" else nodes)]
        try:
            compute, result = result_dtype(name, typed, dtype)
        except (TypeError, ValueError) as exc:
            self.fail(f"{name}: {exc}")
        node = Node(
            "op",
            result,
            ndim=builtins.max(n.ndim for n in arrays),
            device=arrays[0].device,
            op=name,
            operands=tuple(nodes),
            compute=compute,
            call_dtype=dtype,
            line=self.line(),
        )
        return Traced(self, self.graph.add(node))

    def reduce(self, name: str, x, kwargs: dict) -> Traced:
        """A traced reduction, run as gpuvec's eager one; its result's kind comes
        from that reduction run on a small array of x's kind."""
        node = self.operand(x)
        if not node.is_array:
            self.fail(f"{name} of a number")
        unknown = {k for k, v in kwargs.items() if v is not None and k not in _REDUCE_KWARGS}
        if unknown:
            self.fail(f"{name} with {', '.join(sorted(unknown))}=")
        kwargs = {k: v for k, v in kwargs.items() if k in _REDUCE_KWARGS}
        sample = np.linspace(1.0, 2.0, 3**node.ndim).reshape((3,) * node.ndim)
        sample = sample.astype(node.dtype)
        if node.device:
            sample = asarray(sample)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kind = classify(getattr(reductions, name)(sample, **kwargs))
        except Exception as exc:  # the eager call raises: it runs op by op and raises there
            self.fail(f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())}): {exc}")
        if kind is None:
            self.fail(f"{name} gives a result that a fused kernel does not read")
        dtype, ndim, device, weak = kind
        eager = Node(
            "eager",
            dtype,
            ndim=ndim,
            device=device,
            weak=weak,
            scalar=ndim < 0,
            op=name,
            operands=(node,),
            kwargs=kwargs,
            line=self.line(),
        )
        eager.ndim = builtins.max(ndim, 0)
        return Traced(self, self.graph.add(eager))


def classify(value):
    """(dtype, ndim, device, weak) of a value a fused kernel can read, ndim -1
    for a number; None for anything else."""
    if isinstance(value, DeviceArray):
        return (value.dtype, value.ndim, True, False) if value.dtype in _ARRAY else None
    if isinstance(value, np.ndarray):
        return (value.dtype, value.ndim, False, False) if value.dtype in _ARRAY else None
    if isinstance(value, np.floating) and value.dtype in _ARRAY:
        return (value.dtype, -1, False, False)  # a strong number (np.float64 is a float too)
    if type(value) in (int, float):
        return (FLOAT64, -1, False, True)
    return None


_ARRAY = (np.dtype(np.float32), FLOAT64, BOOL)


def _binary(name: str, reflected: bool = False):
    def method(self, other):
        values = (other, self) if reflected else (self, other)
        return self._tracer.op(name, values)

    method.__name__ = name
    return method


def _logical(name: str, symbol: str, reflected: bool = False):
    def method(self, other):
        values = (other, self) if reflected else (self, other)
        for v in values:
            dtype = v.dtype if isinstance(v, Traced) else None
            if dtype != BOOL:
                self._tracer.fail(f"{symbol} of a non-bool operand")
        return self._tracer.op(name, values)

    return method


def _refuse(what: str):
    def method(self, *args, **kwargs):
        self._tracer.fail(what)

    return method


def _reduction(name: str):
    def method(self, axis=None, **kwargs):
        return self._tracer.reduce(name, self, {"axis": axis, **kwargs})

    method.__name__ = name
    return method


class Traced:
    """A stand-in for one value of a fused function while it is traced.

    It has a dtype and a number of dimensions, but no shape and no data.
    """

    __array_priority__ = 1000.0  # NumPy defers to it: ndarray + Traced comes here

    def __init__(self, tracer: Tracer, node: Node):
        self._tracer = tracer
        self._node = node

    @property
    def dtype(self) -> np.dtype:
        return self._node.dtype

    @property
    def ndim(self) -> int:
        return self._node.ndim

    def __repr__(self) -> str:
        return f"<traced {self._node.dtype} value of {self._node.ndim} dimensions>"

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("subtract"), _binary("subtract", True)
    __mul__, __rmul__ = _binary("multiply"), _binary("multiply", True)
    __truediv__, __rtruediv__ = _binary("divide"), _binary("divide", True)
    __pow__, __rpow__ = _binary("power"), _binary("power", True)
    __lt__, __le__ = _binary("less"), _binary("less_equal")
    __gt__, __ge__ = _binary("greater"), _binary("greater_equal")
    __and__, __rand__ = _logical("logical_and", "&"), _logical("logical_and", "&", True)
    __or__, __ror__ = _logical("logical_or", "|"), _logical("logical_or", "|", True)
    __xor__, __rxor__ = _logical("logical_xor", "^"), _logical("logical_xor", "^", True)

    def __eq__(self, other):
        return self._tracer.op("equal", (self, other))

    def __ne__(self, other):
        return self._tracer.op("not_equal", (self, other))

    __hash__ = object.__hash__

    def __neg__(self):
        return self._tracer.op("negative", (self,))

    def __pos__(self):
        return self._tracer.op("copy", (self,))

    def __abs__(self):
        return self._tracer.op("absolute", (self,))

    def __invert__(self):
        if self.dtype != BOOL:
            self._tracer.fail("~ of a non-bool value")
        return self._tracer.op("logical_not", (self,))

    sum, mean, max, min = (
        _reduction("sum"),
        _reduction("mean"),
        _reduction("max"),
        _reduction("min"),
    )
    prod, var, std = _reduction("prod"), _reduction("var"), _reduction("std")
    argmax, argmin = _reduction("argmax"), _reduction("argmin")
    any, all = _reduction("any"), _reduction("all")

    # What a trace has no answer for: the function runs op by op.
    __bool__ = _refuse("the truth value of an array (Python control flow on values)")
    __float__ = _refuse("float() of an array")
    __int__ = __index__ = _refuse("int() of an array")
    __complex__ = _refuse("complex() of an array")
    __len__ = _refuse("len() of an array (its shape is not traced)")
    __iter__ = _refuse("iterating over an array")
    __getitem__ = _refuse("indexing an array")
    __setitem__ = _refuse("assigning into an array")
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ipow__ = _refuse(
        "an in-place update (+=, ...), which changes the caller's array"
    )
    __iand__ = __ior__ = __ixor__ = __iadd__
    __matmul__ = __rmatmul__ = _refuse("@ (a dot product)")
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _refuse("// or %")
    __array__ = _refuse("the array's data (a function that is not traced asked for it)")

    def __getattr__(self, name: str):
        if name.startswith("__"):  # protocols the trace does not offer
            raise AttributeError(name)
        self._tracer.fail(f"the attribute .{name} of an array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = _NUMPY_NAMES.get(ufunc.__name__, ufunc.__name__)
        dtype = kwargs.pop("dtype", None)
        if method != "__call__" or kwargs or name not in OPS or OPS[name].arity != len(inputs):
            self._tracer.fail(f"numpy.{ufunc.__name__}.{method} with {sorted(kwargs)}")
        return self._tracer.op(name, inputs, dtype)

    def __array_function__(self, func, types, args, kwargs):
        name = func.__name__
        if name in REDUCTIONS and args:
            rest = dict(zip(("axis",), args[1:], strict=False))
            return self._tracer.reduce(name, args[0], {**rest, **kwargs})
        if name in ("where", "clip") and len(args) == 3 and not kwargs:
            return _traced_function(name)(*args)
        self._tracer.fail(f"numpy.{name}")


def _public(name: str):
    """gpuvec's public function `name`, from the module that defines it."""
    if name in REDUCTIONS:
        return getattr(reductions, name)
    if name in ("where", "clip"):
        return getattr(elementwise, name)
    return ufuncs.FUNCTIONS[name]


def _is_traced(values) -> bool:
    return builtins.any(isinstance(v, Traced) for v in values)


def _traced_function(name: str):
    """gpuvec's function `name`, tracing when it is given a traced value."""
    real = _public(name)

    if name in REDUCTIONS:

        def function(x, axis=None, **kwargs):
            if not isinstance(x, Traced):
                return real(x, axis, **kwargs)
            return x._tracer.reduce(name, x, {"axis": axis, **kwargs})

    else:
        op = ufuncs.ALIASES.get(name, name)

        def function(*args, dtype=None, **kwargs):
            if not _is_traced(args):
                return real(*args, dtype=dtype, **kwargs)
            tracer = next(a._tracer for a in args if isinstance(a, Traced))
            given = [k for k, v in kwargs.items() if v is not None]
            if given or len(args) != OPS[op].arity:
                tracer.fail(f"gpuvec.{name} with {', '.join(given) or 'these arguments'}")
            if op == "clip":
                args = tuple(
                    (-math.inf if k == 1 else math.inf) if v is None else v
                    for k, v in enumerate(args)
                )
            return tracer.op(op, args, dtype)

    function.__name__ = name
    return function


# gpuvec's functions the trace follows: the op table's plain ops, where and
# clip, and the reductions.
_FOLLOWED = sorted(
    {n for n in ufuncs.FUNCTIONS if ufuncs.ALIASES.get(n, n) in OPS}
    | {"where", "clip"}
    | REDUCTIONS
)


class _Namespace(types.ModuleType):
    """The gpuvec module as the traced function sees it."""

    def __init__(self, functions):
        super().__init__("gpuvec")
        self.__dict__.update(functions)

    def __getattr__(self, name):
        return getattr(sys.modules["gpuvec"], name)


def _swapped(value, functions, by_id):
    if isinstance(value, types.ModuleType) and value is sys.modules.get("gpuvec"):
        return _Namespace(functions)
    return by_id.get(id(value), value)


def _traceable_copy(fn: types.FunctionType) -> types.FunctionType:
    """`fn` with gpuvec's functions swapped for tracing ones in its globals and closure."""
    functions = {name: _traced_function(name) for name in _FOLLOWED}
    by_id = {id(_public(name)): functions[name] for name in _FOLLOWED}
    scope = {k: _swapped(v, functions, by_id) for k, v in fn.__globals__.items()}
    closure = None
    if fn.__closure__ is not None:
        cells = []
        for cell in fn.__closure__:
            try:
                cells.append(types.CellType(_swapped(cell.cell_contents, functions, by_id)))
            except ValueError:  # an empty cell
                cells.append(cell)
        closure = tuple(cells)
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, closure)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def trace(fn: types.FunctionType, names, kinds) -> tuple[Graph | None, str | None]:
    """The graph of `fn` on arguments of these kinds, or (None, why not).

    Parameters
    ----------
    fn : function
    names : sequence of str
        The arguments' names, in order.
    kinds : sequence of tuple
        Each argument's (dtype, ndim, device, weak) as :func:`classify` gives
        it (ndim -1 for a number).
    """
    tracer = Tracer(fn.__code__)
    inputs = []
    for index, (name, (dtype, ndim, device, weak)) in enumerate(zip(names, kinds, strict=True)):
        node = Node(
            "arg",
            dtype,
            ndim=builtins.max(ndim, 0),
            weak=weak,
            scalar=ndim < 0,
            device=device,
            name=name,
            index=index,
        )
        inputs.append(Traced(tracer, tracer.graph.add(node)))
    stored = _side_effect_in_code(fn.__code__)
    if stored is not None:
        return None, side_effect_reason(*stored)
    try:
        with _SideEffectGuard(tracer, fn.__code__):
            result = _traceable_copy(fn)(*inputs)
    except Untraceable:
        pass
    except Exception as exc:  # the function raised: eager runs it and raises the same
        if tracer.problem is None:
            tracer.problem = f"tracing raised {type(exc).__name__}: {exc}"
    if tracer.problem is not None:
        return None, tracer.problem
    items = result if isinstance(result, (tuple, list)) else (result,)
    if type(result) not in (tuple, list) and isinstance(result, (tuple, list)):
        return None, f"it returns a {type(result).__name__}"
    nodes = []
    for item in items:
        if not isinstance(item, Traced):
            return (
                None,
                f"it returns a {type(item).__name__}, not a value computed from its arguments",
            )
        nodes.append(item._node)
    tracer.graph.outputs = type(result)(nodes) if isinstance(result, (tuple, list)) else nodes[0]
    return tracer.graph, None


# --- side effects -------------------------------------------------------------------------------

# Instructions that change something outside the function's own frame.
_STORES = {
    "STORE_ATTR": "assigns to an attribute",
    "DELETE_ATTR": "deletes an attribute",
    "STORE_SUBSCR": "assigns to an item",
    "DELETE_SUBSCR": "deletes an item",
    "STORE_GLOBAL": "assigns to a global name",
    "DELETE_GLOBAL": "deletes a global name",
}
_NONLOCAL_STORES = frozenset({"STORE_DEREF", "DELETE_DEREF"})

# Built-in functions without side effects, which a traced function may call.
_PURE_BUILTINS = frozenset(
    getattr(builtins, name)
    for name in (
        "abs", "all", "any", "callable", "divmod", "getattr", "hasattr", "hash", "isinstance",
        "issubclass", "len", "max", "min", "pow", "repr", "round", "sorted", "sum",
    )
)  # fmt: skip
# Python code whose calls are not watched: gpuvec's own (the trace's
# operators and tracing functions among it) and NumPy's (np.ones(3) builds
# an array, which the trace then refuses as not an argument, with that reason).
_TRUSTED_FOLDERS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,  # gpuvec/
    os.path.dirname(os.path.abspath(np.__file__)) + os.sep,
)


def _side_effect_in_code(code: types.CodeType) -> tuple[int, str] | None:
    """(line, what) of the first instruction of `code` that may change something
    outside its frame, or None."""
    line = code.co_firstlineno
    for instruction in dis.get_instructions(code):
        # The line: from positions on Python 3.11+, from starts_line on 3.10.
        lineno = getattr(getattr(instruction, "positions", None), "lineno", None)
        if lineno is None and type(instruction.starts_line) is int:
            lineno = instruction.starts_line
        line = lineno or line
        what = _STORES.get(instruction.opname)
        if what is None and instruction.opname in _NONLOCAL_STORES:
            if instruction.argval in code.co_freevars:
                what = "assigns to a nonlocal name"
        if what is not None:
            return line, what
    return None


def side_effect_reason(line: int, what: str) -> str:
    """The reason a function with a side effect runs as written, as explain() shows it."""
    return (
        f"line {line}: {what}, which may be a side effect: the function runs as written, "
        f"so that it happens once per call"
    )


class _SideEffectGuard:
    """Stops a trace before the traced function, or a helper it calls, calls
    something that may have a side effect: a profile hook sees each call
    before it happens, and raising there stops it."""

    def __init__(self, tracer: Tracer, code: types.CodeType):
        self.tracer = tracer
        self.root = code
        self.user_code = {code}  # the function's code and its helpers'
        self.previous = None

    def __enter__(self):
        self.previous = sys.getprofile()
        if self.previous is None or callable(self.previous):
            sys.setprofile(self._hook)
        # Else a profiler written in C (cProfile before Python 3.12), which
        # sys.setprofile could not put back: the trace runs unguarded.
        return self

    def __exit__(self, *exc):
        if self.previous is None or callable(self.previous):
            sys.setprofile(self.previous)
        return False

    def _hook(self, frame, event, arg):
        if self.previous is not None:
            self.previous(frame, event, arg)
        if event == "call":
            caller = frame.f_back
            code = frame.f_code
            if caller is None or caller.f_code not in self.user_code or code in self.user_code:
                return
            if code.co_filename.startswith(_TRUSTED_FOLDERS):
                return
            found = _side_effect_in_code(code)
            if found is not None:
                self._stop(caller, f"calls {code.co_name}(), which {found[1]}")
            self.user_code.add(code)  # a helper: its calls are watched too
        elif event == "c_call" and frame.f_code in self.user_code:
            if arg in _PURE_BUILTINS or getattr(arg, "__module__", None) == "math":
                return
            name = getattr(arg, "__qualname__", None) or getattr(arg, "__name__", repr(arg))
            self._stop(frame, f"calls {name}()")

    def _stop(self, frame, what: str):
        """Stops the trace where `frame` is, naming the line of the traced function."""
        inner = frame
        while frame.f_back is not None and frame.f_code is not self.root:
            frame = frame.f_back
        if inner is not frame:
            what = f"{what} in {inner.f_code.co_name}()"
        if self.tracer.problem is None:
            self.tracer.problem = side_effect_reason(frame.f_lineno, what)
        raise Untraceable(self.tracer.problem)
