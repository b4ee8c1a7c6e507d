"""What ``fn.explain(*args)`` shows: the plan's steps, each kernel's source,
what runs op by op and why, and the bytes the plan moves against the eager
function's.

Bytes are counted as the kernels read and write them: each array a step
reads, once, and the array it writes. The eager function runs one op at a
time, each writing a temporary that the next op reads again; the fused plan
keeps those temporaries in registers.
"""

from __future__ import annotations

import math
import textwrap

from gpuvec.fusion._graph import Graph, shapes
from gpuvec.fusion._paired import PairedStep
from gpuvec.fusion._plan import KernelStep, Plan

__all__ = ["Explanation"]


def _nbytes(shape, dtype) -> int:
    return 0 if shape is None else math.prod(shape) * dtype.itemsize


def _describe_arg(value) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is None or not hasattr(value, "shape"):
        return type(value).__name__
    where = "DeviceArray" if type(value).__name__ == "DeviceArray" else "ndarray"
    return f"{where} {dtype}{list(value.shape)}" if value.shape else f"{where} {dtype}"


def _kwargs(kwargs: dict) -> list[str]:
    return [f"{k}={v!r}" for k, v in kwargs.items() if v is not None]


class Explanation:
    """The plan of a fused function on given arguments, as text.

    Attributes
    ----------
    fused : bool
        Whether the call runs as the plan (False: as written, op by op).
    reason : str or None
        Why it runs op by op.
    kernels : list of gpuvec.ElementwiseKernel or gpuvec.RawKernel
        The plan's kernels, in the order they run: for a row kernel, its
        RawKernel.
    fused_bytes, eager_bytes : int or None
        The bytes read and written by the plan's steps and by the eager ops.
    """

    def __init__(self, name: str, arguments, names, plan: Plan | None, reason: str | None):
        self.name = name
        self.fused = plan is not None
        self.reason = reason
        self.kernels = [] if plan is None else [s.kernel for s in plan.kernels]
        described = (f"{n}: {_describe_arg(a)}" for n, a in zip(names, arguments, strict=True))
        self._header = f"{name}({', '.join(described)})"
        self.fused_bytes = self.eager_bytes = None
        self._steps: list[str] = []
        if plan is not None:
            sizes = shapes(plan.graph, arguments)
            self.fused_bytes, self.eager_bytes = _bytes(plan, sizes)
            call = plan.row_call(arguments)
            if call is None:
                self._steps = _steps(plan)
            else:
                self.fused_bytes = _row_bytes(plan, sizes)
                self._steps = [_row_step(plan, call)]
                self.kernels = [call.kernel]

    def __str__(self) -> str:
        lines = [f"fused function {self._header}"]
        if not self.fused:
            lines += ["  runs op by op, as written:", f"  {self.reason}"]
            return "\n".join(lines)
        for k, text in enumerate(self._steps, 1):
            lines.append(f"step {k}: " + text)
        ratio = self.eager_bytes / self.fused_bytes if self.fused_bytes else 1.0
        lines += [
            "bytes moved (each array read once and written once per step):",
            f"  fused   {self.fused_bytes:>14,}",
            f"  eager   {self.eager_bytes:>14,}   ({ratio:.2f}x the fused plan's)",
        ]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))


def _bytes(plan: Plan, sizes) -> tuple[int, int]:
    """(fused, eager) bytes: each step's (each op's) array reads and its write."""

    def step_bytes(node, reads) -> int:
        return _nbytes(sizes[node.id], node.dtype) + sum(
            _nbytes(sizes[r.id], r.dtype) for r in reads
        )

    fused = 0
    for step in plan.steps:
        reads = step.leaves if isinstance(step, KernelStep) else step.node.operands
        fused += step_bytes(step.node, {r.id: r for r in reads}.values())
        if isinstance(step, PairedStep):  # its second result, from the same read
            fused += _nbytes(sizes[step.deviation.id], step.deviation.dtype)
    eager = sum(
        step_bytes(n, {o.id: o for o in n.operands}.values())
        for n in plan.graph.nodes
        if n.kind in ("op", "eager")
    )
    return fused, eager


def _row_bytes(plan: Plan, sizes) -> int:
    """A row kernel's bytes: each argument read once, each result written once."""
    graph = plan.graph
    read = sum(_nbytes(sizes[n.id], n.dtype) for n in graph.nodes if n.kind == "arg")
    return read + sum(_nbytes(sizes[n.id], n.dtype) for n in graph.output_nodes())


def _row_step(plan: Plan, call) -> str:
    rows = plan.rows
    passes = "; ".join(", ".join(n.op for n in p) for p in rows.passes)
    source = rows.source_for(call)
    return (
        f"row kernel {rows.name}: each of the {call.rows:,} rows of {call.cols:,} elements in "
        f"{len(rows.passes) + 1} passes over the row while it is in cache ({passes}; then the "
        f"results)\n" + textwrap.indent(source.rstrip(), " " * 4)
    )


def _op_name(node) -> str:
    return node.op if node.op != "copy" else "+x (a copy)"


def _steps(plan: Plan) -> list[str]:
    graph: Graph = plan.graph
    written = {s.node.id: k for k, s in enumerate(plan.steps, 1)}
    written.update(
        {s.deviation.id: written[s.node.id] for s in plan.steps if isinstance(s, PairedStep)}
    )
    texts = []
    for step in plan.steps:
        node = step.node
        where = f" (line {node.line})" if node.line is not None else ""
        if isinstance(step, KernelStep):
            k = step.kernel
            names = ", ".join(_op_name(n) for n in step.ops)
            body = textwrap.indent(k.operation, " " * 8)
            texts.append(
                f"fused kernel {k.name}{where}: {len(step.ops)} op(s) in one pass ({names})\n"
                f"    gpuvec.ElementwiseKernel(\n"
                f'        "{k.in_params}",\n'
                f'        "{k.out_params}",\n'
                f'        """\n{body}\n        """,\n'
                f'        "{k.name}",\n'
                f"        preamble={k.preamble!r},\n"
                f"    )"
            )
        elif isinstance(step, PairedStep):
            source = node.operands[0]
            of = f"step {written[source.id]}'s result" if source.id in written else source.name
            calls = " and ".join(
                f"gpuvec.{n.op}({', '.join([of, *_kwargs(n.kwargs)])})" for n in step.nodes
            )
            texts.append(
                f"eager {calls}{where}: one reduction pass, reading {of} once "
                f"(gpuvec's mean and deviation of each row together)"
            )
        else:
            source = node.operands[0]
            of = f"step {written[source.id]}'s result" if source.id in written else source.name
            arguments = ", ".join([of, *_kwargs(node.kwargs)])
            text = f"eager gpuvec.{node.op}({arguments}){where}: runs as gpuvec's reduction"
            if step.map is not None:
                text += (
                    f"\n    a map-and-reduce pair with step {written[source.id]}: its result is a "
                    f"temporary that one reduction kernel would not need"
                )
            texts.append(text)
    unused = [n for n in graph.nodes if n.kind == "op" and n not in graph.output_nodes()]
    unused = [n for n in unused if n.id in written and not _read(graph, n)]
    for n in unused:
        texts[written[n.id] - 1] += (
            "\n    its result is unused, but computed as the eager function would"
        )
    return texts


def _read(graph: Graph, node) -> bool:
    return any(node in n.operands for n in graph.nodes)
