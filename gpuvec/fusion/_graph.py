"""The traced expression: a list of nodes in the order they were made.

Each node is one value of the fused function: an argument, a number written
in the function, an elementwise op of the op table, or an eager step (a
reduction) whose result later ops may use. The order is topological, since
an op's operands exist before it.

Examples
--------
>>> import numpy as np
>>> g = Graph()
>>> a = g.add(Node("arg", np.dtype(np.float32), ndim=1, name="a", index=0))
>>> c = g.add(Node("const", np.dtype(np.float64), weak=True, value=2.5))
>>> g.add(Node("op", np.dtype(np.float32), ndim=1, op="multiply", operands=(c, a)))
Node(#2 multiply(#1, #0) -> float32)
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Graph", "Node", "normalized_axes", "reduced_shape", "shapes"]


@dataclass(eq=False)
class Node:
    """One value of the trace.

    Attributes
    ----------
    kind : {"arg", "const", "op", "eager"}
    dtype : numpy.dtype
        The value's dtype (float64 for a Python number).
    ndim : int
        0 for a number.
    weak : bool
        A Python number: it does not take part in the dtype policy.
    scalar : bool
        A number (an argument or a constant), not an array.
    device : bool
        Device data (a DeviceArray), else NumPy data or a number.
    name, index
        An argument's name and position.
    value
        A constant's value.
    op, operands, compute, call_dtype
        An op's name (a row of the op table, ``where`` or ``copy``), its
        operand nodes, the dtype it computes in, and its ``dtype=``.
    kwargs
        An eager step's keyword arguments (axis, keepdims, ...).
    line : int or None
        The line of the fused function that made it.
    """

    kind: str
    dtype: np.dtype
    ndim: int = 0
    weak: bool = False
    scalar: bool = False
    device: bool = False
    name: str = ""
    index: int = -1
    value: object = None
    op: str = ""
    operands: tuple = ()
    compute: np.dtype | None = None
    call_dtype: object = None
    kwargs: dict = field(default_factory=dict)
    line: int | None = None
    id: int = -1

    def __repr__(self) -> str:
        if self.kind == "arg":
            what = f"argument {self.name}"
        elif self.kind == "const":
            what = f"constant {self.value!r}"
        else:
            what = f"{self.op}({', '.join(f'#{o.id}' for o in self.operands)})"
        return f"Node(#{self.id} {what} -> {self.dtype})"

    @property
    def is_array(self) -> bool:
        return not self.scalar


class Graph:
    """The nodes of one trace, and the values the function returns."""

    def __init__(self):
        self.nodes: list[Node] = []
        self.outputs = None  # a node, or a tuple/list of nodes, as the function returned

    def add(self, node: Node) -> Node:
        node.id = len(self.nodes)
        self.nodes.append(node)
        return node

    def output_nodes(self) -> list[Node]:
        """The returned nodes, in order, each once."""
        items = self.outputs if isinstance(self.outputs, (tuple, list)) else (self.outputs,)
        seen: dict[int, Node] = {}
        for item in items:
            seen.setdefault(item.id, item)
        return list(seen.values())

    def consumers(self) -> dict[int, list[Node]]:
        """For each node's id, the nodes that use it."""
        users: dict[int, list[Node]] = {n.id: [] for n in self.nodes}
        for n in self.nodes:
            for o in n.operands:
                users[o.id].append(n)
        return users


def normalized_axes(axis, ndim: int) -> tuple:
    """A reduction's axis= as sorted non-negative axes: every axis for None,
    none of a 0-d value's."""
    if axis is None:
        return tuple(range(ndim))
    if not ndim:
        return ()
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted({operator.index(a) % ndim for a in axes}))


def reduced_shape(shape: tuple, axis, keepdims: bool) -> tuple:
    """The shape of a reduction's result."""
    axes = normalized_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def shapes(graph: Graph, arguments) -> dict[int, tuple | None]:
    """Each node's shape on these arguments (None for a number).

    Raises
    ------
    ValueError
        Where the arguments' shapes do not broadcast as the ops need.
    """
    found: dict[int, tuple | None] = {}
    for node in graph.nodes:
        if node.kind == "arg":
            found[node.id] = None if node.scalar else tuple(np.shape(arguments[node.index]))
        elif node.kind == "const":
            found[node.id] = None
        elif node.kind == "op":
            found[node.id] = np.broadcast_shapes(
                *(found[o.id] for o in node.operands if found[o.id] is not None)
            )
        else:
            shape = reduced_shape(
                found[node.operands[0].id],
                node.kwargs.get("axis"),
                bool(node.kwargs.get("keepdims", False)),
            )
            found[node.id] = None if node.scalar else shape
    return found
