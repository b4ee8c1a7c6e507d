"""The libraries measured, gpuvec and its peers, each behind one small interface.

Every library gets the same data: CuPy and PyTorch share gpuvec's device
memory through ``__cuda_array_interface__`` (no copy, so the same bytes at
the same alignment), NumPy works on host copies of it. Each op is the call a
user of that library would write for the job.

The group "what users write" (:data:`WORKLOADS`) declares each of its ops
once, as every library's code in text, which :func:`load` compiles into each
library's ``ops``.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
import textwrap
from collections.abc import Callable

import numpy as np

import gpuvec as gv
from gpuvec.bench._timing import EventClock, WallClock

PEERS = ("cupy", "torch", "numpy")


@dataclasses.dataclass
class Library:
    """One library under test.

    Attributes
    ----------
    name : str
        ``"gpuvec"``, ``"cupy"``, ``"torch"`` or ``"numpy"``.
    version : str
        Its version, for the report.
    on_device : bool
        Whether its arrays live on the GPU (NumPy's never do).
    clock : callable
        A new clock (:class:`~gpuvec.bench._timing.EventClock` or
        :class:`~gpuvec.bench._timing.WallClock`) for timing one call.
    synchronize : callable
        Waits until the library's queued work has finished.
    adopt : callable
        ``adopt(device_array, host_array, fresh)``: this library's array for
        a gpuvec DeviceArray, whose contents ``host_array`` holds (None for
        an output). ``fresh`` asks for memory of its own, not shared with
        ``host_array``, as the rotating input sets need.
    release : callable
        Gives the library's cached memory back, between sizes.
    ops : dict
        Benchmark name to callable, see :data:`gpuvec.bench.OPS`.
    how : dict
        Benchmark name to the code that it times, for the report.
    notes : list of str
        Anything the report should mention (a fallback taken, say).
    module, alias : module, str
        The library's module and the name the code of the workloads calls it
        by (``gv``, ``cp``, ``torch``, ``np``; see :class:`Workload`).
    setup : dict
        Workload name to the code run once per operand set (filled by :func:`load`).
    """

    name: str
    version: str
    on_device: bool
    clock: Callable[[], object]
    synchronize: Callable[[], None]
    adopt: Callable
    release: Callable[[], None]
    ops: dict[str, Callable]
    how: dict[str, str]
    notes: list[str] = dataclasses.field(default_factory=list)
    module: object = None
    alias: str = ""
    setup: dict[str, str | None] = dataclasses.field(default_factory=dict)

    @property
    def namespace(self) -> dict:
        """The names the workloads' code may use: the library's module, and NumPy."""
        return {self.alias: self.module, "np": np}


def _how(prefix: str, **special: str) -> dict[str, str]:
    """The code each benchmark runs, for libraries whose calls read alike."""
    how = {
        "copy": "y[...] = x",
        "add": f"{prefix}.add(x, y, out=z)",
        "sum": "x.sum()",
        "dot": f"{prefix}.dot(x, y)",
        "add_step2": f"{prefix}.add(X[::2], Y[::2], out=z)",
        "sum_axis1": "m.sum(axis=1)",
        "tiny_add": f"{prefix}.add(x, y, out=z)",
        "tiny_sum": "float(x.sum())",
    }
    how.update(special)
    return how


def gpuvec_library() -> Library:
    """gpuvec itself, timed with :class:`gpuvec.Event` (host clock on the host backend)."""

    def clock():
        return EventClock(gv.Event(), gv.Event(), lambda start, end: start.elapsed_time(end))

    # Each op looks its function up on the module when called, so the tests
    # can swap one for a broken version and see the harness catch it.
    ops = {
        "copy": lambda x, y: gv.scale(x, 1.0, out=y),  # multiplying by 1.0 is exact: a copy
        "add": lambda x, y, z: gv.add(x, y, out=z),
        "axpy": lambda x, y, z: gv.axpy(2.0, x, y, out=z),
        "sum": lambda x: gv.sum(x),
        "dot": lambda x, y: gv.dot(x, y),
        "norm": lambda x: gv.norm(x),
        "add_step2": lambda x, y, z: gv.add(x, y, out=z),
        "sum_axis1": lambda m: gv.sum(m, axis=1),
        "tiny_add": lambda x, y, z: gv.add(x, y, out=z),
        "tiny_sum": lambda x: float(gv.sum(x)),
        "roundtrip_add": lambda a, b, dtype: gv.add(a, b, dtype=dtype),
        "roundtrip_sum": lambda a, dtype: gv.sum(a, dtype=dtype),
    }
    how = _how(
        "gpuvec",
        copy="gpuvec.scale(x, 1.0, out=y)",
        axpy="gpuvec.axpy(2.0, x, y, out=z)",
        sum="gpuvec.sum(x)",
        norm="gpuvec.norm(x)",
        sum_axis1="gpuvec.sum(m, axis=1)",
        tiny_sum="float(gpuvec.sum(x))",
        roundtrip_add="gpuvec.add(a, b[, dtype=np.float32])",
        roundtrip_sum="gpuvec.sum(a[, dtype=np.float32])",
    )
    return Library(
        name="gpuvec",
        version=gv.__version__,
        on_device=gv.backend() == "cuda",
        clock=clock,
        synchronize=gv.synchronize,
        adopt=lambda device, host, fresh: device,
        release=gv.free_cached,
        ops=ops,
        how=how,
        module=gv,
        alias="gv",
    )


def numpy_library() -> Library:
    """NumPy on host copies of the data, timed with the wall clock."""

    def adopt(device, host, fresh):
        if host is None:
            return np.empty(device.shape, device.dtype)
        return host.copy() if fresh else host

    def axpy(x, y, z):
        # NumPy has no fused axpy: this is the two-pass code users write.
        np.multiply(x, 2.0, out=z)
        return np.add(z, y, out=z)

    ops = {
        "copy": lambda x, y: np.copyto(y, x),
        "add": lambda x, y, z: np.add(x, y, out=z),
        "axpy": axpy,
        "sum": lambda x: x.sum(),
        "dot": np.dot,
        "norm": np.linalg.norm,
        "add_step2": lambda x, y, z: np.add(x, y, out=z),
        "sum_axis1": lambda m: m.sum(axis=1),
        "tiny_add": lambda x, y, z: np.add(x, y, out=z),
        "tiny_sum": lambda x: float(x.sum()),
        "roundtrip_add": lambda a, b, dtype: np.add(a, b, dtype=dtype),
        "roundtrip_sum": lambda a, dtype: float(np.sum(a, dtype=dtype)),
    }
    how = _how(
        "np",
        copy="np.copyto(y, x)",
        axpy="np.multiply(x, 2.0, out=z); np.add(z, y, out=z)",
        norm="np.linalg.norm(x)",
        roundtrip_add="np.add(a, b[, dtype=np.float32])",
        roundtrip_sum="np.sum(a[, dtype=np.float32])",
    )
    return Library(
        name="numpy",
        version=np.__version__,
        on_device=False,
        clock=WallClock,
        synchronize=lambda: None,
        adopt=adopt,
        release=lambda: None,
        ops=ops,
        how=how,
        module=np,
        alias="np",
    )


def _sharing_adopt(
    name: str, share: Callable, pointer: Callable, upload: Callable, empty: Callable, notes: list
):
    """An ``adopt`` that shares gpuvec's memory, or copies the host data where it cannot.

    ``pointer(array)`` is the device address of the peer's array: where it
    differs from gpuvec's, the peer made a copy after all, and a note says so.
    """

    def adopt(device, host, fresh):
        try:
            shared = share(device)
        except Exception as exc:  # interop is what failed; the benchmark can still run
            if not notes:
                notes.append(
                    f"{name} could not share gpuvec's device memory "
                    f"({type(exc).__name__}: {exc}); it got its own copies"
                )
            return upload(host) if host is not None else empty(device.shape, device.dtype)
        if pointer(shared) != device.__cuda_array_interface__["data"][0] and not notes:
            notes.append(f"{name} copied gpuvec's arrays rather than sharing them")
        return shared

    return adopt


def cupy_library() -> Library:
    """CuPy, timed with ``cupy.cuda.Event``."""
    import cupy as cp

    cp.cuda.runtime.getDeviceCount()  # raises where CuPy cannot use a GPU
    # CuPy fuses a*x + y only in a kernel of one's own: the idiomatic way to write axpy.
    axpy_kernel = cp.ElementwiseKernel(
        "T a, T x, T y", "T z", "z = a * x + y", "gpuvec_bench_axpy"
    )

    def copy(x, y):
        y[...] = x

    def roundtrip_add(a, b, dtype):
        if dtype is not None:  # the classic tutorials cast on the host, then upload
            a, b = a.astype(dtype), b.astype(dtype)
        return cp.asnumpy(cp.add(cp.asarray(a), cp.asarray(b)))

    def roundtrip_sum(a, dtype):
        if dtype is not None:
            a = a.astype(dtype)
        return float(cp.asarray(a).sum())

    ops = {
        "copy": copy,
        "add": lambda x, y, z: cp.add(x, y, out=z),
        "axpy": lambda x, y, z: axpy_kernel(x.dtype.type(2.0), x, y, z),
        "sum": lambda x: x.sum(),
        "dot": cp.dot,
        "norm": cp.linalg.norm,
        "add_step2": lambda x, y, z: cp.add(x, y, out=z),
        "sum_axis1": lambda m: m.sum(axis=1),
        "tiny_add": lambda x, y, z: cp.add(x, y, out=z),
        "tiny_sum": lambda x: float(x.sum()),
        "roundtrip_add": roundtrip_add,
        "roundtrip_sum": roundtrip_sum,
    }
    how = _how(
        "cp",
        axpy="ElementwiseKernel('z = a * x + y')(2.0, x, y, z)",
        norm="cp.linalg.norm(x)",
        roundtrip_add="cp.asnumpy(cp.add(cp.asarray(a), cp.asarray(b))) [a, b cast first]",
        roundtrip_sum="float(cp.asarray(a).sum()) [a cast first]",
    )
    notes: list[str] = []
    return Library(
        name="cupy",
        version=cp.__version__,
        on_device=True,
        clock=lambda: EventClock(cp.cuda.Event(), cp.cuda.Event(), cp.cuda.get_elapsed_time),
        synchronize=lambda: cp.cuda.Device().synchronize(),
        adopt=_sharing_adopt(
            "cupy", cp.asarray, lambda a: a.data.ptr, cp.asarray, cp.empty, notes
        ),
        release=lambda: cp.get_default_memory_pool().free_all_blocks(),
        ops=ops,
        how=how,
        notes=notes,
        module=cp,
        alias="cp",
    )


def torch_library() -> Library:
    """PyTorch, timed with ``torch.cuda.Event``."""
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("PyTorch sees no usable CUDA device")
    dtypes = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}

    def share(device):
        return torch.as_tensor(device, device="cuda")  # via __cuda_array_interface__, no copy

    def upload(host):
        return torch.from_numpy(np.ascontiguousarray(host)).cuda()

    def empty(shape, dtype):
        return torch.empty(shape, dtype=dtypes[np.dtype(dtype)], device="cuda")

    def clock():
        def elapsed(start, end):
            return start.elapsed_time(end)

        return EventClock(
            torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True), elapsed
        )

    def copy(x, y):
        y.copy_(x)

    def roundtrip_add(a, b, dtype):
        if dtype is not None:
            a, b = a.astype(dtype), b.astype(dtype)
        return torch.add(upload(a), upload(b)).cpu().numpy()

    def roundtrip_sum(a, dtype):
        if dtype is not None:
            a = a.astype(dtype)
        return float(upload(a).sum())

    ops = {
        "copy": copy,
        "add": lambda x, y, z: torch.add(x, y, out=z),
        "axpy": lambda x, y, z: torch.add(y, x, alpha=2.0, out=z),
        "sum": lambda x: x.sum(),
        "dot": torch.dot,
        "norm": torch.linalg.vector_norm,
        "add_step2": lambda x, y, z: torch.add(x, y, out=z),
        "sum_axis1": lambda m: m.sum(dim=1),
        "tiny_add": lambda x, y, z: torch.add(x, y, out=z),
        "tiny_sum": lambda x: float(x.sum()),
        "roundtrip_add": roundtrip_add,
        "roundtrip_sum": roundtrip_sum,
    }
    how = _how(
        "torch",
        copy="y.copy_(x)",
        axpy="torch.add(y, x, alpha=2.0, out=z)",
        norm="torch.linalg.vector_norm(x)",
        sum_axis1="m.sum(dim=1)",
        roundtrip_add="torch.add(a.cuda(), b.cuda()).cpu().numpy() [a, b cast first]",
        roundtrip_sum="float(a.cuda().sum()) [a cast first]",
    )
    notes: list[str] = []
    return Library(
        name="torch",
        version=f"{torch.__version__} (CUDA {torch.version.cuda})",
        on_device=True,
        clock=clock,
        synchronize=torch.cuda.synchronize,
        adopt=_sharing_adopt("torch", share, lambda t: t.data_ptr(), upload, empty, notes),
        release=torch.cuda.empty_cache,
        ops=ops,
        how=how,
        notes=notes,
        module=torch,
        alias="torch",
    )


# -- what users write -------------------------------------------------------------------------
#
# Each benchmark of this group is one Workload in WORKLOADS: the code of each library as
# text, the data it runs on, and how it is timed. The text is both what runs (compiled once
# into a function) and what the report shows, so the two cannot drift apart. In it, `xp.`
# stands for the library's own module (`gv.`, `cp.`, `torch.`, `np.`), so that one line
# serves every library whose API reads the same; `np` is NumPy everywhere.


@dataclasses.dataclass(frozen=True)
class Workload:
    """One benchmark of the group: the same job as each library's users write it.

    Attributes
    ----------
    op : str
        Its name, as ``--ops`` takes it.
    kind : str
        How it is timed: ``"bandwidth"`` (events around each call, as the
        swept rows), ``"latency"`` (wall time per call over batches of calls)
        or ``"roundtrip"`` (wall time of each call: for calls that return
        host data, and for NumPy data in and out).
    code : dict
        Library name to the code timed; ``"*"`` serves every library of
        ``libraries`` without an entry of its own. Statements are separated
        by ``;``, and the value of the last is the result.
    shapes, quick_shapes : tuple of tuple of int
        The shapes of the rows (the data the op works on), in a full run
        and with ``--quick`` (default: the same).
    dtypes : tuple of str
        The dtypes of the rows (``--dtypes`` may leave some out).
    inputs : str
        Names of the random inputs, each of the row's shape (or
        ``input_shape(shape)``), in [0, 1).
    outputs : str
        Names of empty arrays of the row's shape, for ``out=``.
    host_data : bool
        The operands are NumPy arrays (gpuvec's NumPy-in, NumPy-out calls),
        not device arrays that each library shares.
    setup : dict
        Library name (or ``"*"``) to code run once per operand set, untimed,
        that defines more names (a view, a keepdims reduction).
    args : str
        The names the timed code reads; default ``inputs`` and ``outputs``.
    reference : str
        NumPy code for the float64 result gpuvec's is checked against;
        default NumPy's own code.
    traffic : callable
        ``traffic(shape, itemsize)``: the bytes the job must move at the
        least (inputs read once, results written once), for GB/s.
    ulps : float
        Tolerance: the largest ``|gpuvec - reference|``, over the largest
        ``|reference|``, in units of the dtype's epsilon (0: exact).
    libraries : tuple of str
        The libraries that run it (where they are measured at all).
    requires : tuple of str
        Libraries without which the row says nothing: it is skipped.
    device_only : bool
        Skipped on the host backend, where it would time something else (a
        copy from device memory that is host memory there, or no copy at all).
    context : dict
        Library name to code for a context manager that the timed calls
        run in, all of them in one ``with`` (a stream made current).
    baseline : str
        Another workload whose time each library's time here is divided
        by, in the same run (``vs`` in the report).
    input_shape : callable
        The inputs' shape for a row's shape, where they differ.
    note : str
        What the report should say about it.
    """

    op: str
    kind: str
    code: dict[str, str]
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    traffic: Callable[[tuple[int, ...], int], int]
    quick_shapes: tuple[tuple[int, ...], ...] | None = None
    inputs: str = "a b"
    outputs: str = ""
    host_data: bool = False
    setup: dict[str, str] = dataclasses.field(default_factory=dict)
    args: str | None = None
    reference: str | None = None
    ulps: float = 8
    libraries: tuple[str, ...] = ("gpuvec", *PEERS)
    requires: tuple[str, ...] = ()
    device_only: bool = False
    context: dict[str, str] = dataclasses.field(default_factory=dict)
    baseline: str | None = None
    input_shape: Callable[[tuple[int, ...]], tuple[int, ...]] | None = None
    note: str = ""

    def shapes_for(self, quick: bool) -> tuple[tuple[int, ...], ...]:
        return self.quick_shapes if quick and self.quick_shapes else self.shapes

    def arg_names(self) -> list[str]:
        return (self.args or f"{self.inputs} {self.outputs}").split()

    def text(self, table: dict[str, str], library: str, alias: str) -> str | None:
        """The code of ``table`` for ``library``, with ``xp.`` spelled as ``alias``."""
        if library not in self.libraries:
            return None
        return _spelled(table.get(library, table.get("*")), alias)

    def reference_code(self) -> tuple[str | None, str]:
        """NumPy's setup and code for the float64 reference."""
        setup = _spelled(self.setup.get("numpy", self.setup.get("*")), "np")
        code = self.reference or self.code.get("numpy", self.code.get("*"))
        return setup, _spelled(code, "np")


def _spelled(code: str | None, alias: str) -> str | None:
    """``code`` with ``xp.`` spelled as ``alias``."""
    return None if code is None else re.sub(r"\bxp\.", f"{alias}.", code)


def _n(shape) -> int:
    return math.prod(shape)


def _moves(arrays: int, extra: int = 0):
    """``traffic`` for a job that reads or writes ``arrays`` arrays of the row's shape."""
    return lambda shape, itemsize: (arrays * _n(shape) + extra) * itemsize


AXPB = "2.5*a*b + a - 0.5"
# The same chain written as one CuPy ElementwiseKernel, by hand.
_AXPB_KERNEL = "'float32 a, float32 b', 'float32 c', 'c = 2.5f * a * b + a - 0.5f', 'axpb'"
SOFTMAX = "e = xp.exp(x - xp.max(x, axis=1, keepdims=True)); e / xp.sum(e, axis=1, keepdims=True)"
# The same softmax as a function (gpuvec.fuse takes one).
_SOFTMAX_DEF = (
    "def f(x):\n"
    "    e = xp.exp(x - xp.max(x, axis=1, keepdims=True))\n"
    "    return e / xp.sum(e, axis=1, keepdims=True)\n"
)
_STREAMS = {
    "gpuvec": "gv.Stream()",
    "cupy": "cp.cuda.Stream()",
    "torch": "torch.cuda.stream(torch.cuda.Stream())",
}
_QUICK = ((1 << 12,),)


def _small_call(op: str, code: dict, shapes=((1024,),), **fields) -> Workload:
    """One call on 1024 float32 device elements, against the contiguous add (call_add)."""
    fields.setdefault("traffic", _moves(3))
    fields.setdefault("baseline", "call_add")
    return Workload(op, "latency", code, shapes, ("float32",), **fields)


def _numpy_in(op: str, code: str, kind="latency", shapes=((1,), (1024,)), **fields) -> Workload:
    """gpuvec's call on NumPy arrays, NumPy's result back, against NumPy's own call.

    By default a tiny call (1 and 1024 float64 elements), timed per call.
    """
    fields.setdefault("dtypes", ("float64",))
    fields.setdefault("inputs", "a")
    fields.setdefault("traffic", _moves(2))
    libraries = ("gpuvec", "numpy")  # CuPy and PyTorch take no NumPy arrays
    return Workload(op, kind, {"*": code}, shapes, host_data=True, libraries=libraries, **fields)


def _copy_back(op: str, code: str) -> Workload:
    """A float64 device array of 2^24 elements back in a NumPy array."""
    peers = {"cupy": "cp.asnumpy(d)", "torch": "d.cpu().numpy()"}
    return Workload(
        op,
        "roundtrip",
        {"gpuvec": code, **peers},
        ((1 << 24,),),
        ("float64",),
        quick_shapes=((1 << 14,),),
        inputs="d",
        reference="d",
        traffic=_moves(1),
        ulps=0,
        device_only=True,
    )


# int32 keys from d in [0, 1): 2^16 distinct values (exact in float32 and float64).
_INT32_KEYS = {
    "torch": "k = (d * 65536).to(torch.int32)",
    "*": "k = (d * 65536).astype('int32')",
}


def _int_operands(dtype: str) -> dict:
    """Setup code: a, b and c of `dtype` from the float data d, in each library
    (times 128, a power of two: exact in float32 as in the float64 reference,
    so every library truncates the same numbers)."""
    return {
        "torch": f"a = (d * 128).to(torch.{dtype}); b = a.flip(0).clone(); c = a.clone()",
        "*": f"a = (d * 128).astype('{dtype}'); b = a[::-1].copy(); c = a.copy()",
    }


def _large(op: str, code: dict, dtypes=("float32", "float64"), **fields) -> Workload:
    """One call on a device array ``d`` of 2^22 elements."""
    fields.setdefault("traffic", _moves(2))
    fields.setdefault("quick_shapes", _QUICK)
    return Workload(op, "bandwidth", code, ((1 << 22,),), dtypes, inputs="d", **fields)


WORKLOADS: tuple[Workload, ...] = (
    # -- device arrays: the code as users write it ----------------------------------------------
    Workload(
        "expr_chain",
        "bandwidth",
        {"*": AXPB},
        ((1 << 20,), (1 << 24,)),
        ("float32",),
        quick_shapes=_QUICK,
        traffic=_moves(3),
        note="GB/s counts a and b read once and the result written once",
    ),
    Workload(
        "expr_chain_fused",
        "bandwidth",
        {"*": "f(a, b)"},
        ((1 << 20,), (1 << 24,)),
        ("float32",),
        quick_shapes=_QUICK,
        setup={
            "gpuvec": f"f = gv.fuse(lambda a, b: {AXPB})",
            "cupy": f"f = cp.ElementwiseKernel({_AXPB_KERNEL})",
            "*": f"f = lambda a, b: {AXPB}",
        },
        args="f a b",
        traffic=_moves(3),
        baseline="expr_chain",
        note="gpuvec.fuse and a CuPy ElementwiseKernel: one pass; PyTorch and NumPy: eager",
    ),
    Workload(
        "softmax_rows",
        "bandwidth",
        {
            "*": SOFTMAX,
            "torch": "e = torch.exp(x - x.amax(dim=1, keepdim=True)); "
            "e / e.sum(dim=1, keepdim=True)",
        },
        ((8192, 1024),),
        ("float32",),
        quick_shapes=((64, 256),),
        inputs="x",
        traffic=_moves(2),
        ulps=16,
        note="GB/s counts x read once and the result written once",
    ),
    Workload(
        "softmax_rows_torch",
        "bandwidth",
        {"gpuvec": SOFTMAX, "torch": "torch.softmax(x, dim=1)"},
        ((8192, 1024),),
        ("float32",),
        quick_shapes=((64, 256),),
        inputs="x",
        reference=SOFTMAX,
        traffic=_moves(2),
        ulps=16,
        libraries=("gpuvec", "torch"),
        requires=("torch",),
        note="gpuvec's ops against PyTorch's fused torch.softmax",
    ),
    Workload(
        "softmax_rows_fused",
        "bandwidth",
        {"*": "f(x)", "torch": "torch.softmax(x, dim=1)"},
        ((8192, 1024),),
        ("float32",),
        quick_shapes=((64, 256),),
        setup={"gpuvec": _SOFTMAX_DEF + "f = gv.fuse(f)", "*": _SOFTMAX_DEF},
        inputs="x",
        args="f x",
        reference=SOFTMAX,
        traffic=_moves(2),
        ulps=16,
        baseline="softmax_rows",
        note="gpuvec.fuse: one row kernel; PyTorch: its fused torch.softmax; CuPy, NumPy: eager",
    ),
    Workload(
        "colstats",
        "bandwidth",
        {
            "*": "xp.mean(x, axis=0), xp.std(x, axis=0)",
            "torch": "x.mean(dim=0), x.std(dim=0, correction=0)",
        },
        ((1 << 22, 8),),
        ("float64",),
        quick_shapes=((4096, 8),),
        inputs="x",
        traffic=_moves(2),
        ulps=1024,  # sums of 2^22 values: a check of the call, not of its accuracy (tests/)
        note="two calls, one timed unit; GB/s counts x read once per call",
    ),
    Workload(
        "colstd_fused",
        "bandwidth",
        {"*": "f(x)"},
        ((1 << 22, 8),),
        ("float64",),
        quick_shapes=((4096, 8),),
        inputs="x",
        setup={
            "gpuvec": "f = gv.fuse(lambda x: (x - x.mean(axis=0)) / x.std(axis=0))",
            "torch": "f = lambda x: (x - x.mean(dim=0)) / x.std(dim=0, correction=0)",
            "*": "f = lambda x: (x - x.mean(axis=0)) / x.std(axis=0)",
        },
        args="f x",
        traffic=_moves(2),
        ulps=1024,  # x - mean cancels: means of 2^22 values, off by ulps of |x|, differ more
        note="column standardisation: gpuvec.fuse (one reduction pass for mean and std, then "
        "one kernel) against eager CuPy and PyTorch; GB/s counts x read once and the result "
        "written once",
    ),
    # -- the cost of one small call, by layout: against the contiguous add ---------------------
    _small_call("call_add", {"*": "xp.add(a, b)"}, baseline=None),
    _small_call(
        "call_broadcast",
        {"*": "A - m"},
        shapes=((8, 128),),
        inputs="A",
        setup={
            "*": "m = xp.mean(A, axis=1, keepdims=True)",
            "torch": "m = A.mean(dim=1, keepdim=True)",
        },
        args="A m",
        traffic=_moves(2, 8),
    ),
    _small_call(
        "call_step2",
        {"*": "xp.add(va, vb)"},
        setup={"*": "va, vb = a[::2], b[::2]"},
        args="va vb",
        input_shape=lambda shape: (2 * shape[0],),
        note="views of every other element of 2048",
    ),
    _small_call("call_scalar_right", {"*": "a + 1.0"}, inputs="a", traffic=_moves(2)),
    _small_call("call_scalar_left", {"*": "1.0 - a"}, inputs="a", traffic=_moves(2)),
    _small_call(
        "call_dtype",
        {"*": "xp.add(a, b, dtype=np.float64)", "torch": "a.double() + b.double()"},
        traffic=lambda shape, itemsize: 2 * _n(shape) * itemsize + 8 * _n(shape),
        note="float32 in, float64 out",
    ),
    _small_call(
        "call_stream",
        {"*": "xp.add(a, b)"},
        context=_STREAMS,
        libraries=("gpuvec", "cupy", "torch"),
        note="every call inside one `with` of a new stream",
    ),
    # -- device arrays back to NumPy ------------------------------------------------------------
    _copy_back("to_host", "d.to_host()"),
    _copy_back("np_asarray", "np.asarray(d)"),
    # -- NumPy in, NumPy out: tiny calls, then 2^22 elements -----------------------------------
    _numpy_in(
        "np_tiny_add_out", "xp.add(a, b, out=c)", inputs="a b", outputs="c", traffic=_moves(3)
    ),
    _numpy_in("np_tiny_add_scalar", "xp.add(a, 2.5)"),
    _numpy_in(
        "np_tiny_subtract_bcast",
        "xp.subtract(A, m, out=C)",
        shapes=((8, 128),),
        inputs="A",
        outputs="C",
        setup={"*": "m = A.mean(axis=1, keepdims=True)"},
        args="A m C",
        traffic=_moves(2, 8),
        note="m: 8x1, a NumPy keepdims mean",
    ),
    _numpy_in("np_tiny_sum", "xp.sum(a)", traffic=_moves(1, 1)),
    _numpy_in(
        "np_add_scalar",
        "xp.add(a, 2.5)",
        "roundtrip",
        ((1 << 22,),),
        dtypes=("float32", "float64"),
        quick_shapes=_QUICK,
    ),
    # -- large device arrays: scalars, argmax, sqrt, a column mean -----------------------------
    _large("scalar_mul", {"*": "2.5 * d"}),
    _large("scalar_sub", {"*": "d - 0.5"}),
    _large(
        "argmax",
        {"*": "xp.argmax(d)"},
        traffic=_moves(1, 1),
        ulps=0,
        note="gpuvec returns a Python int (so waits for the GPU); CuPy and PyTorch, a device "
        "array",
    ),
    _large("sqrt", {"*": "xp.sqrt(d)"}, ("float32",), ulps=2),
    # -- bool arrays: a comparison feeding a where, a count and a mask ---------------------
    _large(
        "where_compare",
        {"*": "xp.where(d > 0, d, 0.0)", "torch": "torch.where(d > 0, d, 0.0)"},
        ("float32",),
        ulps=0,
        note="two calls: the comparison writes a bool array that where reads",
    ),
    _large(
        "count_nonzero",
        {"*": "xp.count_nonzero(d > 0.5)"},
        ("float32",),
        traffic=_moves(1),
        ulps=0,
        note="two calls; gpuvec returns a Python int (so waits for the GPU); CuPy and PyTorch, "
        "a device array",
    ),
    _large(
        "mask_select",
        {"*": "d[d > 0]"},
        ("float32",),
        traffic=lambda shape, itemsize: _n(shape) * itemsize * 3 // 2,
        ulps=0,
        note="a comparison and a compaction; GB/s counts d read once and half of it written",
    ),
    # -- integers: the same add as float32's, in int32 and uint8 ---------------------------------
    *(
        Workload(
            f"add_{dtype}",
            "bandwidth",
            {"*": "xp.add(a, b, out=c)", "torch": "torch.add(a, b, out=c)"},
            ((1 << 24,),),
            ("float32",),
            quick_shapes=_QUICK,
            inputs="d",
            setup=_int_operands(dtype),
            args="a b c",
            traffic=_moves(3),
            note=note,
        )
        for dtype, note in (
            ("int32", "int32 operands made from d; wraps around as NumPy's"),
            ("uint8", "uint8 operands made from d: a quarter of float32's bytes"),
        )
    ),
    # -- scans, sorts and counts: 2^24 elements ---------------------------------------------------
    Workload(
        "sort_int32",
        "bandwidth",
        {"*": "xp.sort(k)", "torch": "torch.sort(k).values"},
        ((1 << 24,),),
        ("float32",),
        quick_shapes=_QUICK,
        inputs="d",
        setup=_INT32_KEYS,
        args="k",
        traffic=_moves(2),
        note="int32 keys made from d; GB/s counts the keys read once and written once",
    ),
    Workload(
        "sort_float32",
        "bandwidth",
        {"*": "xp.sort(d)", "torch": "torch.sort(d).values"},
        ((1 << 24,),),
        ("float32",),
        quick_shapes=_QUICK,
        inputs="d",
        traffic=_moves(2),
        ulps=0,
    ),
    Workload(
        "cumsum_int32",
        "bandwidth",
        {"*": "xp.cumsum(k)", "torch": "torch.cumsum(k, 0)"},
        ((1 << 24,),),
        ("float32",),
        quick_shapes=_QUICK,
        inputs="d",
        setup=_INT32_KEYS,
        args="k",
        traffic=lambda shape, itemsize: _n(shape) * (4 + 8),
        note="int32 in, int64 out (NumPy's accumulator); GB/s counts both once",
    ),
    Workload(
        "histogram_256",
        "bandwidth",
        {
            "*": "xp.histogram(d, bins=256, range=(0.0, 1.0))[0]",
            "torch": "torch.histc(d, bins=256, min=0.0, max=1.0)",
        },
        ((1 << 24,),),
        ("float32",),
        quick_shapes=_QUICK,
        inputs="d",
        traffic=_moves(1),
        ulps=0,
        note="256 equal bins of a float32 array; GB/s counts d read once",
    ),
    Workload(
        "mean_axis0",
        "bandwidth",
        {"*": "xp.mean(d, axis=0)", "torch": "d.mean(dim=0)"},
        ((4096, 4096),),
        ("float64",),
        quick_shapes=((64, 64),),
        inputs="d",
        traffic=lambda shape, itemsize: (_n(shape) + shape[1]) * itemsize,
        ulps=64,
    ),
)

WORKLOAD_OPS = tuple(w.op for w in WORKLOADS)
WORKLOADS_BY_OP = {w.op: w for w in WORKLOADS}


def compile_code(code: str, args, namespace: dict, name: str) -> Callable:
    """A function of ``args`` that runs ``code`` in ``namespace`` and returns its last value."""
    *head, last = ast.parse(code).body
    lines = [ast.unparse(statement) for statement in head]
    lines.append(f"return {ast.unparse(last.value)}" if isinstance(last, ast.Expr) else "pass")
    source = f"def _run({', '.join(args)}):\n" + textwrap.indent("\n".join(lines), "    ")
    scope = dict(namespace)
    exec(compile(source, f"<gpuvec.bench {name}>", "exec"), scope)  # our own text, see WORKLOADS
    return scope["_run"]


def run_setup(code: str | None, arrays: dict, namespace: dict) -> dict:
    """``arrays`` with the names that ``code`` defines added."""
    scope = {**namespace, **arrays}
    if code:
        exec(compile(code, "<gpuvec.bench setup>", "exec"), scope)  # our own text
    return scope


def workload_calls(name: str, alias: str, namespace: dict) -> tuple[dict, dict, dict]:
    """A library's functions, descriptions and setup code, for the workloads it runs.

    Returns
    -------
    ops, how, setup : dict
        Workload name to the compiled function, to the code it runs as the
        report shows it, and to the code run once per operand set.
    """
    ops, how, setup = {}, {}, {}
    for w in WORKLOADS:
        code = w.text(w.code, name, alias)
        if code is None:
            continue
        ops[w.op] = compile_code(code, w.arg_names(), namespace, f"{w.op} {name}")
        setup[w.op] = w.text(w.setup, name, alias)
        context = w.context.get(name)
        how[w.op] = (f"with {context}: " if context else "") + code
        if setup[w.op]:
            # one line in a table: a function's lines as Python's ';' and indentation cannot
            once = " / ".join(line.strip() for line in setup[w.op].splitlines() if line.strip())
            how[w.op] += f"  [once: {once}]"
    return ops, how, setup


_LOADERS = {"cupy": cupy_library, "torch": torch_library, "numpy": numpy_library}


def load(peers, backend: str) -> tuple[list[Library], dict[str, str]]:
    """gpuvec and the peers that can run here, and why the others were left out.

    Parameters
    ----------
    peers : sequence of str or None
        The peers asked for; None: all of :data:`PEERS` that import.
    backend : str
        gpuvec's backend. On ``"host"`` there is no GPU, so only NumPy is
        compared (CuPy and PyTorch are not even imported).

    Returns
    -------
    libraries : list of Library
        gpuvec first, then the peers in the order asked.
    skipped : dict
        Peer name to the reason it was left out.
    """
    libraries = [gpuvec_library()]
    skipped = {}
    for name in PEERS if peers is None else peers:
        if name not in _LOADERS:
            raise ValueError(f"unknown peer {name!r}: choose from {', '.join(PEERS)}")
        if name != "numpy" and backend != "cuda":
            skipped[name] = "gpuvec runs on the host backend here, so only NumPy is compared"
            continue
        try:
            libraries.append(_LOADERS[name]())
        except ImportError as exc:
            skipped[name] = f"{name} does not import: {exc}"
        except Exception as exc:  # e.g. a CUDA mismatch inside the peer: leave it out, say why
            skipped[name] = f"{name} cannot run here: {type(exc).__name__}: {exc}"
    for lib in libraries:  # the code of "what users write", declared once for every library
        ops, how, setup = workload_calls(lib.name, lib.alias, lib.namespace)
        lib.ops.update(ops)
        lib.how.update(how)
        lib.setup.update(setup)
    return libraries, skipped
