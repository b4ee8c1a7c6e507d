"""Row kernels: a fused function whose reductions run along the last axis
and feed back into it, as one kernel that takes each row in passes.

Softmax is the pattern::

    e = gpuvec.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

Op by op it reads and writes the whole array five times; as a plan of
elementwise kernels and eager reductions, four. A row kernel gives each row
to one warp (a block for rows of more than 2048 elements, one thread on the
host) and walks it three times: the first pass folds the row into the max's
state, the second computes ``exp(x - max)`` and folds it into the sum's, the
third writes ``exp(x - max) / sum``. The later passes read the row from
registers (rows of up to 2048 float32 or 1024 float64 elements, by a kernel
compiled for the row length) or from cache, so memory sees one read and one
write.

A function takes this form when every reduction in it is one of
:data:`POLICIES` over the last axis with ``keepdims=True``, the values it
returns are of the full shape or of the shape of a reduction's result, and,
on the arguments of the call, each array's rows sit at one stride from each
other (any C-ordered array, and any that broadcasts along whole rows or
columns). Reductions that need nothing of each other's results share a pass
(a mean and a std of the same row). On a GPU each element value is computed
in the pass that needs it, and again in a later pass where that needs it
too, which costs less than a write and a read; on the host a pass keeps such
values in a buffer of its thread (see :meth:`RowKernel.source`).

The reductions are the eager ones' policies (``gpuvec/reduce_ops.hpp``):
the same states, NaN propagation and double sums, combined in another order,
so sums may differ from the eager ones in the last bits. The elementwise
ops are the op table's functors, as in every fused kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpuvec import _core
from gpuvec.creation import empty
from gpuvec.device_array import DeviceArray
from gpuvec.fusion import _codegen
from gpuvec.fusion._graph import Graph, Node, shapes
from gpuvec.kernels import RawKernel, _frontend
from gpuvec.kernels._spec import C_TYPES

__all__ = ["POLICIES", "RowKernel", "row_kernel"]

# The reductions a row kernel runs, by the name of their policy in
# gpuvec/reduce_ops.hpp (var and std are Variance, made with ddof).
POLICIES = {
    "sum": "Sum",
    "mean": "Mean",
    "max": "Max",
    "min": "Min",
    "prod": "Prod",
    "var": "Variance",
    "std": "Variance",
}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Rows longer than this go to a row kernel only when there are enough of
# them to keep a GPU busy: one block per row.
_LONG_ROW = 1 << 16
_ENOUGH_ROWS = 256
# On a GPU, a row of up to _LANE_BYTES per lane of its warp is kept in
# registers, by a kernel compiled for its length; rows up to _WARP_ROW long go
# to one warp each, reading the row again in each pass; longer ones to a block.
# Measured on an H100 (softmax, float32, 8192 rows of 1024): 26.9 us from
# registers (56 registers a thread, 45% occupancy), 52.2 reading again, and
# 59-74 from registers with the row length unknown to the compiler (80-128
# registers: every element's bounds check and address is a register).
_LANE_BYTES = 256
_WARP_ROW = 2048
# How the threads of a GPU block take rows: a warp per row (4 rows at once)
# or the whole block per row. The host runs one thread per block.
_WALKS = {
    "warps": {
        "rows": (
            "const int64_t per_block = blockDim.x / 32;",
            "for (int64_t r = blockIdx.x * per_block + threadIdx.x / 32; r < rows;"
            " r += gridDim.x * per_block) {",
        ),
        "lane": "threadIdx.x % 32",
        "width": "32",
        "total": "gpuvec::warp_row_total",
    },
    "blocks": {
        "rows": ("for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {",),
        "lane": "threadIdx.x",
        "width": "blockDim.x",
        "total": "gpuvec::row_total",
    },
}
_WALKS["registers"] = _WALKS["warps"]
_WALKS["buffers"] = _WALKS["blocks"]


def _row_reduction(node: Node) -> bool:
    """A reduction over the last axis, with keepdims, that a row kernel runs."""
    kwargs = node.kwargs
    source = node.operands[0]
    if node.op not in POLICIES or source.dtype not in _FLOATS or node.dtype != source.dtype:
        return False
    if not kwargs.get("keepdims") or kwargs.get("dtype") is not None or source.ndim < 1:
        return False
    if "ddof" in kwargs and node.op not in ("var", "std"):
        return False
    axis = kwargs.get("axis")
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if type(axis) is not int or not -source.ndim <= axis < source.ndim:
        return False
    return axis % source.ndim == source.ndim - 1 and node.ndim == source.ndim


@dataclass
class _Call:
    """How a row kernel runs on arguments of one layout, on one backend."""

    rows: int
    cols: int
    shape: tuple  # the full shape
    row_args: frozenset  # the argument indices read once per row
    strides: dict  # argument index -> its row stride, in elements
    mode: str  # how threads take rows and keep values (RowKernel.source)
    fixed: int  # "registers": the row length the kernel is compiled for, else 0
    outputs: list  # (shape, dtype) of each result
    kernel: RawKernel | None = None
    grid: int = 1
    block: int = 1


class RowKernel:
    """A fused function as one row kernel (see the module's documentation).

    Attributes
    ----------
    source : str
        The kernel's CUDA C++ source, for both backends.
    passes : list of list of Node
        The reductions each pass folds, in order.
    """

    def __init__(self, graph: Graph, name: str):
        self.graph = graph
        self.name = f"fused_{name}_rows"
        self.outputs = graph.output_nodes()
        self.passes = self._passes()
        self.leaves = [n for n in graph.nodes if n.kind == "arg" or _is_param(n)]
        self.itemsize = max(n.dtype.itemsize for n in graph.nodes)  # what a kept value may take
        self._calls: dict[tuple, _Call | None] = {}
        self._kernels: dict[tuple, RawKernel] = {}

    # -- the plan --------------------------------------------------------------------------------

    def _passes(self) -> list[list[Node]]:
        """The reductions, grouped into passes: each after the passes whose
        results it reads."""
        level: dict[int, int] = {}  # each reduction's pass, from 1
        for node in self.graph.nodes:
            if node.kind == "eager":
                level[node.id] = 1 + _deepest(node.operands[0], level)
        passes: dict[int, list[Node]] = {}
        for node in self.graph.nodes:
            if node.kind == "eager":
                passes.setdefault(level[node.id], []).append(node)
        return [passes[k] for k in sorted(passes)]

    def layout(self, arguments) -> _Call | None:
        """How the kernel runs on `arguments`, or None where the plan of
        elementwise kernels and eager reductions runs them instead."""
        key = (
            _core.backend_code(),
            *((a.shape, a.strides) if not _is_number(a) else None for a in arguments),
        )
        try:
            return self._calls[key]
        except KeyError:
            pass
        call = self._layout(arguments)
        if len(self._calls) < 64:
            self._calls[key] = call
        return call

    def _layout(self, arguments) -> _Call | None:
        try:
            from_plan = shapes(self.graph, arguments)
        except ValueError:  # they do not broadcast: the steps raise as the eager function would
            return None
        reduced = [from_plan[n.operands[0].id] for p in self.passes for n in p]
        shape = reduced[0]
        if any(s != shape for s in reduced):
            return None
        cols = shape[-1]
        rows = math.prod(shape[:-1])
        if cols < 2 or rows < 1 or (cols > _LONG_ROW and rows < _ENOUGH_ROWS):
            return None
        row_shape = (*shape[:-1], 1)
        row_args: set[int] = set()
        for node in self.graph.nodes:
            s = from_plan[node.id]
            if s is None:
                continue
            if len(s) > len(shape) or np.broadcast_shapes(s, shape) != shape:
                return None
            if node.kind == "arg" and s[-1:] != (cols,):
                row_args.add(node.index)
        row_valued = _row_valued(self.graph, row_args)
        outputs = [(row_shape if n.id in row_valued else shape, n.dtype) for n in self.outputs]
        if any(
            from_plan[n.id] != wanted for n, (wanted, _) in zip(self.outputs, outputs, strict=True)
        ):
            return None
        strides = {}
        for node in self.graph.nodes:
            if node.kind == "arg" and not node.scalar:
                found = _row_stride(from_plan[node.id], shape)
                if found is None:
                    return None
                strides[node.index] = found
        mode = _mode(cols, self.itemsize)
        fixed = cols if mode == "registers" else 0
        call = _Call(rows, cols, shape, frozenset(row_args), strides, mode, fixed, outputs)
        call.kernel = self.kernel(call.row_args, mode, fixed)
        call.block = _threads(mode)
        rows_per_block = 1 if mode in ("blocks", "buffers") else call.block // 32
        call.grid = min(-(-rows // rows_per_block), 1 << 20) if mode != "buffers" else rows
        return call

    # -- running it ------------------------------------------------------------------------------

    def run(self, arguments, call: _Call):
        """The function's result on `arguments`, laid out as `call` says."""
        values = []
        for node in self.leaves:
            if node.kind == "const":
                values.append(node.dtype.type(node.value))
            elif node.scalar:
                values.append(node.dtype.type(arguments[node.index]))
            else:
                values.append(_contiguous(arguments[node.index]))
                values.append(call.strides[node.index])
        device = any(type(a) is DeviceArray for a in arguments)
        make = empty if device else np.empty
        results = [make(shape, dtype) for shape, dtype in call.outputs]
        call.kernel(call.rows, call.cols, *values, *results, grid=call.grid, block=call.block)
        out = self.graph.outputs
        if not isinstance(out, (tuple, list)):
            return results[0]
        by_id = {n.id: r for n, r in zip(self.outputs, results, strict=True)}
        return type(out)(by_id[n.id] for n in out)

    def source_for(self, call: _Call) -> str:
        """The source of the kernel that runs a call laid out as `call`."""
        return self.source(call.row_args, call.mode, call.fixed)

    def kernel(self, row_args: frozenset, mode: str, fixed: int = 0) -> RawKernel:
        """The kernel for arguments read once per row at `row_args`, in `mode`
        (see :meth:`source`)."""
        kernel = self._kernels.get((row_args, mode, fixed))
        if kernel is None:
            source = self.source(row_args, mode, fixed)
            # gpuvec's own code, whose "buffers" mode is for the host alone:
            # NVRTC's check of users' kernels (kernels/_frontend.py) is not for it.
            with _frontend.skipped():
                kernel = RawKernel(source, self.name, source_name=f"{self.name}.cu")
            self._kernels[(row_args, mode, fixed)] = kernel
        return kernel

    # -- the source ------------------------------------------------------------------------------

    def source(
        self, row_args: frozenset = frozenset(), mode: str = "warps", fixed: int = 0
    ) -> str:
        """The kernel's source, for arguments read once per row at `row_args`.

        `mode` says how threads take rows, and where a pass finds the element
        values of an earlier pass. On a GPU: ``"registers"`` (rows of up to
        2048 float32 or 1024 float64 elements: a warp per row, whose shuffles
        combine the states; each lane keeps its elements of the row in
        registers from the pass that first reads or computes them; compiled
        for rows of exactly `fixed` elements, so that every index is known and
        every loop is unrolled), ``"warps"`` (rows of up to 2048: a warp per
        row, each pass reading again, from cache, and computing again what it
        needs) or ``"blocks"`` (longer rows: a block per row, likewise).
        ``"buffers"``: the host, a thread per row, which keeps the values later
        passes need in buffers of its own.
        """
        return _Source(self, row_args, mode, fixed).text()


def _deepest(node: Node, level: dict[int, int]) -> int:
    """The last pass whose result `node` reads (0: none)."""
    found = 0
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        if n.kind == "eager":
            found = max(found, level[n.id])
        else:
            stack.extend(n.operands)
    return found


def _row_valued(graph: Graph, row_args) -> set[int]:
    """The nodes that are one value per row: the arguments at `row_args`, the
    reductions' results, and the ops of such values and numbers."""
    found: set[int] = set()
    for node in graph.nodes:  # in the order of the trace: operands first
        if node.kind == "eager" or (node.kind == "arg" and node.index in row_args):
            found.add(node.id)
        elif node.kind == "op" and all(o.scalar or o.id in found for o in node.operands):
            found.add(node.id)
    return found


def _is_param(node: Node) -> bool:
    """A number the kernel takes as a parameter (inf and NaN; see _codegen.is_literal)."""
    return node.kind == "const" and not _codegen.is_literal(node)


def _is_number(value) -> bool:
    return type(value) in (int, float) or isinstance(value, np.floating)


def _row_stride(shape: tuple, full: tuple) -> int | None:
    """The row stride in elements of a C-ordered array of `shape` read at
    every element of `full`: None where its rows are not at one stride from
    each other (it broadcasts along some leading axes only). Its column
    stride is 1 where it has the full row, else it is read once per row."""
    shape = (1,) * (len(full) - len(shape)) + shape
    strides = [0] * len(shape)
    step = 1
    for k in range(len(shape) - 1, -1, -1):
        strides[k] = step if shape[k] > 1 else 0  # 0: the axis broadcasts
        step *= shape[k]
    # Row r of `full` is at sum(i_k * strides[k]) over its leading axes, where
    # r = sum(i_k * span[k]): one row stride fits where strides[k] = row * span[k].
    row = None
    span = 1
    for k in range(len(full) - 2, -1, -1):
        if full[k] > 1:
            row = strides[k] if row is None else row
            if strides[k] != row * span:
                return None
        span *= full[k]
    return row or 0


def _contiguous(value):
    """`value` as a C-ordered array, as the kernel reads memory."""
    if type(value) is DeviceArray:
        return value if value.is_c_contiguous else value.copy()
    return np.ascontiguousarray(value)


def _mode(cols: int, itemsize: int) -> str:
    """How the backend in use runs rows of `cols` elements, whose widest values
    have `itemsize` bytes (see :meth:`RowKernel.source`)."""
    if _core.backend_code() != _core.BACKEND_CUDA:
        return "buffers"
    if cols * itemsize <= 32 * _LANE_BYTES:
        return "registers"
    return "warps" if cols <= _WARP_ROW else "blocks"


def _threads(mode: str) -> int:
    """Threads per block: one on the host (a block is a row); on a GPU, 4
    warps, each a row (measured best for a softmax of 1024 columns on an
    H200 among 1 to 16 warps), or 1024 threads per long row, with the most
    loads in flight for its one block."""
    return {"buffers": 1, "blocks": 1024}.get(mode, 128)


class _Source:
    """The text of one row kernel, in one of RowKernel.source's modes."""

    def __init__(self, kernel: RowKernel, row_args: frozenset, mode: str, fixed: int):
        self.k = kernel
        self.graph = kernel.graph
        self.mode = mode
        self.fixed = fixed
        self.slots = -(-fixed // 32)  # "registers": a lane's elements of the row
        row_valued = _row_valued(kernel.graph, row_args)
        self.row = {n.id: n.id in row_valued for n in kernel.graph.nodes if n.kind != "const"}
        self.names = _codegen.parameter_names(kernel.leaves)
        self.element_outputs = [n for n in kernel.outputs if not self.row[n.id]]
        roots = [[n.operands[0] for n in p] for p in kernel.passes] + [self.element_outputs]
        # Registers keep the arguments' elements too; on the host an argument's
        # element is as near as a buffer's.
        kinds = {"registers": ("op", "arg"), "buffers": ("op",)}.get(mode, ())
        self.stored, self.last_read = self._stored(roots, kinds)
        self.array = self._arrays()
        self.at = "k" if mode == "registers" else "j"  # a kept value's element j
        self.walk = _WALKS[mode]

    def text(self) -> str:
        lines = [
            _codegen.PREAMBLE,
            "#include <gpuvec/reduce_ops.hpp>",
            "#include <gpuvec/rows.hpp>",
            "",
            # the registers a thread may have in a block of this size (a
            # block of 1024 threads: 64; of 128, with a row in registers: 255)
            f'extern "C" __global__ void __launch_bounds__({_threads(self.mode)}) '
            f"{self.k.name}({self._parameters()}) {{",
        ]
        kept = sorted(
            {(self.array[i], C_TYPES[self.graph.nodes[i].dtype]) for i in self.stored},
            key=lambda pair: int(pair[0].removeprefix("keep")),
        )
        if self.mode == "buffers":
            lines += [
                f"  {ctype}* const {array} = gpuvec::row_buffer<{ctype}, {slot}>(cols);"
                for slot, (array, ctype) in enumerate(kept)
            ]
        if self.fixed:
            lines += ["  (void)row_length;", f"  constexpr int64_t cols = {self.fixed};"]
        lines += ["  " + line for line in self.walk["rows"]]
        body: list[str] = []
        if self.mode == "registers":
            body += [f"{ctype} {array}[{self.slots}];" for array, ctype in kept]
        known: set[int] = set()  # the row values computed so far
        self._row_values(body, known)
        for k, reductions in enumerate(self.k.passes):
            body += self._pass(reductions, known, k)
            known.update(n.id for n in reductions)
            self._row_values(body, known)
        body += self._last_pass(known)
        lines += ["    " + line for line in body]
        lines += ["  }", "}", ""]
        return "\n".join(lines)

    def _loop(self, body: list[str]) -> list[str]:
        """A pass's loop over the thread's elements j of the row."""
        lane, width = self.walk["lane"], self.walk["width"]
        if self.mode == "registers":  # unrolled: k is known, so keepN[k] is a register
            head = [
                "#pragma unroll",
                f"for (int k = 0; k < {self.slots}; ++k) {{",
                f"  const int64_t j = {lane} + {width} * k;",
                "  if (j >= cols) continue;",
            ]
        else:
            head = ["GPUVEC_ROW_PASS", f"for (int64_t j = {lane}; j < cols; j += {width}) {{"]
        return head + ["  " + line for line in body] + ["}"]

    def _closure(self, roots: list[Node], stop) -> dict[int, Node]:
        """The element values (arguments and ops) that computing `roots` needs,
        short of the row values and of the nodes `stop` accepts."""
        needed: dict[int, Node] = {}
        stack = list(roots)
        while stack:
            node = stack.pop()
            if node.id in needed or node.kind == "const" or node.scalar or self.row.get(node.id):
                continue
            needed[node.id] = node
            if node.kind == "op" and not stop(node):
                stack.extend(node.operands)
        return needed

    def _stored(
        self, roots: list[list[Node]], kinds: tuple
    ) -> tuple[dict[int, int], dict[int, int]]:
        """The values to keep (of node kinds `kinds`), each with the pass that
        first has it: those a later pass reaches first among the values of
        earlier passes; and each one's last pass that reads it."""
        stored: dict[int, int] = {}
        computed: dict[int, int] = {}  # node id -> the first pass that has it
        last_read: dict[int, int] = {}
        for k, pass_roots in enumerate(roots):
            earlier = set(computed)
            reached = self._closure(pass_roots, lambda n, earlier=earlier: n.id in earlier)
            for node_id, node in reached.items():
                if node.kind not in kinds:
                    continue
                if node_id in earlier:
                    stored.setdefault(node_id, computed[node_id])
                    last_read[node_id] = k
                else:
                    computed[node_id] = k
        return stored, last_read

    def _arrays(self) -> dict[int, str]:
        """Each kept value's array. In registers, a value takes over the array of
        one of its dtype whose last read is in the pass that stores it, where the
        read comes first (a node of a smaller id: lines go in the order of ids):
        softmax keeps exp(x - max) where x was, 32 registers where 64 would cost
        the GPU half the warps it could hold."""
        arrays: dict[int, str] = {}
        free: list[tuple[int, int]] = []  # (node id, pass after which its array is free)
        for node_id in sorted(self.stored, key=lambda i: (self.stored[i], i)):
            dtype = self.graph.nodes[node_id].dtype
            donor = next(
                (
                    d
                    for d, until in free
                    if until == self.stored[node_id]
                    and d < node_id
                    and self.graph.nodes[d].dtype == dtype
                ),
                None,
            )
            if self.mode == "registers" and donor is not None:
                free = [(d, u) for d, u in free if d != donor]
                arrays[node_id] = arrays[donor]
            else:
                arrays[node_id] = f"keep{node_id}"
            free.append((node_id, self.last_read[node_id]))
        return arrays

    def _parameters(self) -> str:
        # A kernel compiled for one row length has it as a constant (text()).
        params = ["int64_t rows", "int64_t row_length" if self.fixed else "int64_t cols"]
        for leaf in self.k.leaves:
            ctype = C_TYPES[leaf.dtype]
            name = self.names[leaf.id]
            if leaf.scalar:
                params.append(f"{ctype} {name}")
            else:
                params += [f"const {ctype}* {name}", f"int64_t {name}_r"]
        for k, node in enumerate(self.k.outputs):
            params.append(f"{C_TYPES[node.dtype]}* out{k}")
        return ", ".join(params)

    def _leaf(self, node: Node, at: str) -> str:
        name = self.names[node.id]
        return f"{name}[r * {name}_r{at}]"

    def _row_values(self, body: list[str], known: set[int]) -> None:
        """The row values that the known ones now allow: row arguments, ops of them."""
        for node in self.graph.nodes:
            if node.id in known or not self.row.get(node.id) or node.kind == "eager":
                continue
            if node.kind == "arg":
                if not node.scalar:
                    body.append(
                        f"const {C_TYPES[node.dtype]} v{node.id} = {self._leaf(node, '')};"
                    )
                known.add(node.id)
            elif all(o.id in known or o.kind == "const" or o.scalar for o in node.operands):
                expr = _codegen.expression(node, self._names(known), set())
                body.append(f"const {C_TYPES[node.dtype]} v{node.id} = {expr};")
                known.add(node.id)

    def _names(self, known: set[int]) -> dict[int, str]:
        """What each leaf and known row value is called in an expression."""
        names = dict(self.names)
        for node_id in known:
            if not self.graph.nodes[node_id].scalar:
                names[node_id] = f"v{node_id}"
        return names

    def _elements(self, roots: list[Node], known: set[int], k: int) -> list[str]:
        """The lines of pass k that compute `roots` at element j of the row."""
        loaded = {i for i, p in self.stored.items() if p < k}
        needed = self._closure(roots, lambda n: n.id in loaded)
        names = self._names(known)
        lines = []
        done: set[int] = set()
        for node_id in sorted(needed):
            node = needed[node_id]
            ctype = C_TYPES[node.dtype]
            if node_id in loaded:
                value = f"{self.array[node_id]}[{self.at}]"
            elif node.kind == "arg":
                value = self._leaf(node, " + j")  # C-ordered: its row's elements are side by side
            else:
                value = _codegen.expression(node, names, done)
                done.add(node_id)
            lines.append(f"const {ctype} v{node_id} = {value};")
            names[node_id] = f"v{node_id}"
            if self.stored.get(node_id) == k:
                lines.append(f"{self.array[node_id]}[{self.at}] = v{node_id};")
        return lines

    def _policy(self, node: Node) -> str:
        policy = f"gpuvec::ops::reduce::{POLICIES[node.op]}"
        if node.op in ("var", "std"):
            ddof = float(node.kwargs.get("ddof") or 0)
            root = "true" if node.op == "std" else "false"
            return f"{policy}{{{ddof.hex()}, {root}}}"
        return f"{policy}{{}}"

    def _pass(self, reductions: list[Node], known: set[int], k: int) -> list[str]:
        lines = [f"// pass {k + 1}: {', '.join(n.op for n in reductions)}"]
        for n in reductions:
            lines.append(f"const auto p{n.id} = {self._policy(n)};")
            lines.append(f"auto s{n.id} = p{n.id}.identity();")
        loop = self._elements([n.operands[0] for n in reductions], known, k)
        for n in reductions:
            term = f"p{n.id}.term(v{n.operands[0].id}, j)"
            loop.append(f"s{n.id} = p{n.id}.combine(s{n.id}, {term});")
        lines += self._loop(loop)
        for n in reductions:
            ctype = C_TYPES[n.dtype]
            total = f"{self.walk['total']}(p{n.id}, s{n.id})"
            lines.append(
                f"const {ctype} v{n.id} = p{n.id}.template finish<{ctype}>({total}, cols);"
            )
        return lines

    def _last_pass(self, known: set[int]) -> list[str]:
        lines = []
        if self.element_outputs:
            loop = self._elements(self.element_outputs, known, len(self.k.passes))
            for k, node in enumerate(self.k.outputs):
                if not self.row[node.id]:
                    loop.append(f"out{k}[r * cols + j] = v{node.id};")
            lines.append("// the last pass: the results")
            lines += self._loop(loop)
        for k, node in enumerate(self.k.outputs):
            if self.row[node.id]:
                lines.append(f"if ({self.walk['lane']} == 0) out{k}[r] = v{node.id};")
        return lines


def row_kernel(graph: Graph, name: str) -> RowKernel | None:
    """The row kernel of a traced function, or None where it has none: some
    reduction is not over the last axis with keepdims, or a value it returns
    is an argument or a number."""
    eager = [n for n in graph.nodes if n.kind == "eager"]
    if not eager or not all(_row_reduction(n) for n in eager):
        return None
    if any(n.kind not in ("op", "eager") or n.scalar for n in graph.output_nodes()):
        return None
    # Some reduction must feed an op of elements: otherwise the reductions
    # alone are better run by the reduction engine, which picks their shape.
    of_reduction: set[int] = set()
    of_elements: set[int] = set()
    for node in graph.nodes:
        if node.kind == "eager":
            of_reduction.add(node.id)
        elif node.kind == "arg" and not node.scalar:
            of_elements.add(node.id)
        elif node.kind == "op":
            ids = {o.id for o in node.operands}
            if ids & of_reduction:
                of_reduction.add(node.id)
            if ids & of_elements:
                of_elements.add(node.id)
    if not of_reduction & of_elements:
        return None
    return RowKernel(graph, name)
