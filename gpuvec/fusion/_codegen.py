"""The source of one fused kernel: an ElementwiseKernel whose operation calls
the op table's functors (``gpuvec/ops.hpp``) one after the other.

Each op becomes one line, ``const T vN = gpuvec::ops::Functor{}(x, y);``,
with its operands converted to the dtype it computes in, as the eager op
converts them; a number written in the function is a hexadecimal literal,
exact, rounded to that dtype as the eager op rounds it.

Examples
--------
>>> import numpy as np
>>> from gpuvec.fusion._graph import Graph, Node
>>> f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
>>> g = Graph()
>>> a = g.add(Node("arg", f32, ndim=1, name="a"))
>>> c = g.add(Node("const", f64, weak=True, scalar=True, value=2.5))
>>> m = g.add(Node("op", f32, ndim=1, op="multiply", operands=(c, a), compute=f32))
>>> print(operation(m, {a.id: "a"}, "out"))
const float v2 = gpuvec::ops::Multiply{}(static_cast<float>(0x1.4000000000000p+1), a);
out = v2;
"""

from __future__ import annotations

import math
import re

import numpy as np

from gpuvec.fusion._graph import Node
from gpuvec.fusion._ops import BOOL, OPS
from gpuvec.kernels._spec import C_TYPES

__all__ = ["PREAMBLE", "expression", "inlined", "is_literal", "operation", "parameter_names"]

# The functors of gpuvec's own ops, which the fused kernels call.
PREAMBLE = "#include <gpuvec/ops.hpp>"

_CPP_WORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
    char32_t class compl const constexpr const_cast continue decltype default delete do double
    dynamic_cast else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast return short signed sizeof static static_assert static_cast struct
    switch template this thread_local throw true try typedef typeid typename union unsigned using
    virtual void volatile wchar_t while xor xor_eq gpuvec std uint8_t size_t out T""".split()
)
_GENERATED = re.compile(r"[vtc]\d+")


def is_literal(node: Node) -> bool:
    """A constant written into the source: a finite number (inf and NaN come
    as parameters, and so does a power's exponent: a compiler that sees
    ``pow(x, 3.0)`` may compute it otherwise than the math library's pow, as
    it computes ``pow(x, 2.0)`` as ``x * x``, and the fused power must be the
    eager one's bits)."""
    return node.kind == "const" and math.isfinite(node.value) and not node.kwargs.get("exponent")


def inlined(root: Node, materialized: set[int]) -> tuple[list[Node], list[Node]]:
    """The op nodes computed inside root's kernel (root last) and the leaves it
    reads (arguments, constants that are not literals, materialized values),
    each in the order of the trace."""
    ops: dict[int, Node] = {}
    leaves: dict[int, Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == "op" and (node is root or node.id not in materialized):
            if node.id not in ops:
                ops[node.id] = node
                stack.extend(node.operands)
        elif not is_literal(node):
            leaves[node.id] = node
    return [ops[k] for k in sorted(ops)], [leaves[k] for k in sorted(leaves)]


def parameter_names(leaves: list[Node]) -> dict[int, str]:
    """Each leaf's parameter name: an argument's own name where C++ takes it."""
    names = {}
    for leaf in leaves:
        name = leaf.name
        if leaf.kind != "arg":
            name = ("c" if leaf.kind == "const" else "t") + str(leaf.id)
        elif name in _CPP_WORDS or _GENERATED.fullmatch(name) or name.startswith("gpuvec_"):
            name = f"arg_{name}"
        names[leaf.id] = name
    return names


def _literal(value: float, dtype: np.dtype) -> str:
    text = float(value).hex()
    return f"static_cast<{C_TYPES[dtype]}>({text})" if dtype != np.float64 else text


def _convert(expr: str, source: np.dtype, target: np.dtype) -> str:
    return expr if source == target else f"static_cast<{C_TYPES[target]}>({expr})"


def _operand(node: Node, target: np.dtype, names: dict[int, str], ops: set[int]) -> str:
    if node.id in ops:
        return _convert(f"v{node.id}", node.dtype, target)
    if is_literal(node):
        return _literal(node.value, target)
    return _convert(names[node.id], node.dtype, target)


def expression(node: Node, names: dict[int, str], ops: set[int]) -> str:
    """One op's call of its functor, on its operands as `names` and `ops` say
    (an op in `ops` is the line's variable vN; see operation)."""
    if node.op == "copy":
        return _operand(node.operands[0], node.dtype, names, ops)
    if node.op == "where":
        cond, a, b = node.operands
        args = [
            f"static_cast<uint8_t>({_operand(cond, BOOL, names, ops)})",
            _operand(a, node.compute, names, ops),
            _operand(b, node.compute, names, ops),
        ]
    else:
        args = [_operand(o, node.compute, names, ops) for o in node.operands]
    return f"gpuvec::ops::{OPS[node.op].functor}{{}}({', '.join(args)})"


def operation(root: Node, names: dict[int, str], out: str) -> str:
    """The kernel's operation: one line per op, then the output's assignment.

    Parameters
    ----------
    root : Node
        The value the kernel writes.
    names : dict
        Each leaf's parameter name, by node id.
    out : str
        The output's name.
    """
    materialized = set(names)
    ops, _ = inlined(root, materialized)
    done = {n.id for n in ops}
    lines = [f"const {C_TYPES[n.dtype]} v{n.id} = {expression(n, names, done)};" for n in ops]
    lines.append(f"{out} = v{root.id};")
    return "\n".join(lines)
