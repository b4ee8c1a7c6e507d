"""The plan of a traced function: which values are kernels' outputs, and the
steps that compute them.

A value is *materialized* (written to memory) when the function returns it,
when an eager step (a reduction) reads it, or when nothing reads it (the
eager function computes it anyway, and raises where it would raise). Each
materialized op is one fused kernel, which computes every op between it and
the materialized values it reads, in registers. A kernel reads at most 8
values; beyond that the largest inner value is materialized too.

Where the function's reductions run along the last axis and feed back into
it (softmax), the whole function is one row kernel (``_rows.py``) on
arguments whose layout allows it; the steps below run the others.

A reduction runs as gpuvec's eager reduction, on the materialized value it
reads. Where that value feeds nothing else, the kernel and the reduction are
one map-and-reduce step (:attr:`ReduceStep.map`): the place where one
reduction kernel will replace the two.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

from gpuvec import _core, reductions
from gpuvec.fusion import _codegen
from gpuvec.fusion._graph import Graph, Node
from gpuvec.fusion._rows import RowKernel, row_kernel
from gpuvec.fusion._tracer import classify
from gpuvec.kernels import ElementwiseKernel

__all__ = ["KernelStep", "Mismatch", "Plan", "ReduceStep", "checked", "make_plan"]


class Mismatch(Exception):
    """An eager step's result is not of the kind the trace saw: this call runs as written."""


@dataclass
class KernelStep:
    """One fused kernel: it writes `node` from `leaves`, computing `ops` inside.

    The plan is of one signature, so the leaves' dtypes and the backend are
    known: the first run compiles the kernel (``ElementwiseKernel``'s own
    compile and cache), and every run calls the compiled kernel with no
    more checks of its arguments than gpuvec's own ops make.
    """

    node: Node
    ops: list[Node]
    leaves: list[Node]
    kernel: ElementwiseKernel
    compiled: object = None  # the _core.MapKernel, once compiled
    names: tuple = ()

    def run(self, values: dict[int, object]) -> None:
        args = tuple(values[leaf.id] for leaf in self.leaves)
        if self.compiled is None:
            k = self.kernel
            in_dtypes = [p.dtype for p in k.inputs]
            backend = _core.backend_of_call(args, None)
            self.compiled = k._kernel(backend, in_dtypes, k.output.dtype, {})
            self.names = tuple(p.name for p in k.inputs)
        values[self.node.id] = _core.map_call(self.compiled, args, self.names)


@dataclass
class ReduceStep:
    """A reduction run as gpuvec's eager one; `map` is the kernel that wrote its
    input when that input feeds nothing else (a map-and-reduce pair)."""

    node: Node
    map: KernelStep | None = None

    def run(self, values: dict[int, object]) -> None:
        function = getattr(reductions, self.node.op)
        result = function(values[self.node.operands[0].id], **self.node.kwargs)
        values[self.node.id] = checked(self.node, result)


def checked(node: Node, result):
    """An eager step's `result` for `node`, which must be of the kind the trace saw."""
    expected = (node.dtype, -1 if node.scalar else node.ndim, node.device, node.weak)
    if classify(result) != expected:
        raise Mismatch(f"{node.op} gave {type(result).__name__}")
    return result


class Plan:
    """The steps of a traced function, and how to run them on its arguments."""

    def __init__(self, graph: Graph, steps: list, name: str, rows: RowKernel | None = None):
        self.graph = graph
        self.steps = steps
        self.name = name
        self.rows = rows

    def row_call(self, arguments):
        """How the row kernel runs on `arguments`, or None where the steps do."""
        if self.rows is None or _core.backend_of_call(arguments, None) != _core.backend_code():
            return None
        return self.rows.layout(arguments)

    @property
    def kernels(self) -> list[KernelStep]:
        return [s for s in self.steps if isinstance(s, KernelStep)]

    def run(self, arguments):
        """The function's result on `arguments` (in the order of its parameters)."""
        call = self.row_call(arguments)
        if call is not None:
            return self.rows.run(arguments, call)
        values: dict[int, object] = {}
        for node in self.graph.nodes:
            if node.kind == "arg":
                values[node.id] = arguments[node.index]
            elif node.kind == "const":
                values[node.id] = node.value
        for step in self.steps:
            step.run(values)
        out = self.graph.outputs
        if isinstance(out, (tuple, list)):
            return type(out)(values[n.id] for n in out)
        return values[out.id]


def _kernel_name(name: str, k: int) -> str:
    base = re.sub(r"\W", "_", name).strip("_") or "function"
    if not base[0].isalpha():
        base = f"f_{base}"
    return f"fused_{base}_{k}"


def _materialized(graph: Graph) -> set[int]:
    """The op nodes written to memory (see the module's documentation)."""
    users = graph.consumers()
    keep = {n.id for n in graph.output_nodes() if n.kind == "op"}
    for node in graph.nodes:
        if node.kind == "op" and not users[node.id]:
            keep.add(node.id)  # unused: computed all the same, as the eager function does
        if node.kind == "eager":
            keep.update(o.id for o in node.operands if o.kind == "op")
    # At most MAX_MAP_INPUTS leaves a kernel: materialize the inner value with most leaves.
    changed = True
    while changed:
        changed = False
        for root in [n for n in graph.nodes if n.id in keep]:
            ops, leaves = _codegen.inlined(root, keep)
            if len(leaves) <= _core.MAX_MAP_INPUTS:
                continue
            inner = [n for n in ops if n is not root]
            widest = builtins.max(inner, key=lambda n: len(_codegen.inlined(n, keep)[1]))
            keep.add(widest.id)
            changed = True
            break
    return keep


def make_plan(graph: Graph, name: str) -> Plan:
    """The steps that compute `graph`, in the order of the trace."""
    keep = _materialized(graph)
    users = graph.consumers()
    steps: list = []
    kernels: dict[int, KernelStep] = {}
    for node in graph.nodes:
        if node.kind == "op" and node.id in keep:
            ops, leaves = _codegen.inlined(node, keep)
            names = _codegen.parameter_names(leaves)
            out = "out" if "out" not in names.values() else "out_"
            kernel = ElementwiseKernel(
                ", ".join(f"{leaf.dtype.name} {names[leaf.id]}" for leaf in leaves),
                f"{node.dtype.name} {out}",
                _codegen.operation(node, names, out),
                _kernel_name(name, len(kernels)),
                preamble=_codegen.PREAMBLE,
            )
            kernels[node.id] = KernelStep(node, ops, leaves, kernel)
            steps.append(kernels[node.id])
        elif node.kind == "eager":
            source = node.operands[0]
            alone = source.id in kernels and len(users[source.id]) == 1
            alone = alone and source not in graph.output_nodes()
            steps.append(ReduceStep(node, kernels[source.id] if alone else None))
    return Plan(graph, steps, name, row_kernel(graph, name))
