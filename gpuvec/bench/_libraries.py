"""The libraries measured, gpuvec and its peers, each behind one small interface.

Every library gets the same data: CuPy and PyTorch share gpuvec's device
memory through ``__cuda_array_interface__`` (no copy, so the same bytes at
the same alignment), NumPy works on host copies of it. Each op is the call a
user of that library would write for the job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

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
    import gpuvec as gv

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
    )


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
    return libraries, skipped
