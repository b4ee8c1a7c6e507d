"""Users' own kernels: launch latency, compile time and the host emulation (``--ops kernels``).

The rows of :data:`~gpuvec.bench.KERNEL_OPS`, each next to the peers that do
the same job, where they are installed:

- ``kernel_launch``, ``kernel_launch_indexed``: one launch from Python of a
  compiled 4-argument vecadd on 1024 resident float32 elements (one block of
  1024 threads), PyCUDA's way ``k(a, b, c, n, grid=1, block=1024)`` and
  Numba's ``k[1, 1024](a, b, c, n)``; next to CuPy's ``RawKernel`` on the
  same source, Numba's ``@cuda.jit`` vecadd on gpuvec's arrays (zero-copy),
  and gpuvec's own ``gv.add(a, b, out=c)``, the reference of the targets;
- ``kernel_compile``, ``kernel_cached_load``: ``SourceModule(source)`` of a
  small kernel with the cache emptied first, and again with its code cached
  (NVRTC on a GPU, the host C++ compiler without one);
- ``kernel_host_*``: the host emulation, on the host backend whatever the
  machine (a GPU machine selects it for these rows alone): vecadd on 2^24
  float32 against NumPy's ``np.add``, a shared-memory tree reduction with
  ``__syncthreads``, a warp-shuffle sum, and the cost of one fiber switch.

The group runs with a kernel cache of its own, in a temporary folder: the
first compile is a true first compile, and the user's cache is neither read
nor written. Its rows go to ``results["kernels"]``, apart from
``results["rows"]``: their figures are in µs, ms or ns, each with its
target, and Numba, a peer here, is none of the other rows'.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.metadata
import math
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable

import numpy as np

import gpuvec
from gpuvec.bench import _timing
from gpuvec.bench._measure import (
    KERNEL_OPS,
    Settings,
    _entry,
    _error_text,
    _json_float,
    _latency_timer,
    _max_rel_error,
    _memory_problem,
    _release,
    _round,
    _wall_timer,
)
from gpuvec.kernels import _host_compiler, _nvrtc, kernel_cache
from gpuvec.kernels.classics import TREE_SUM, VECADD, WARP_SUM

# Numba's vecadd, as its documentation writes it; `cuda` is numba.cuda.
NUMBA_VECADD = """
def vecadd(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]
"""

# Each round, every thread hands its value on to its neighbour through shared
# memory: one __syncthreads() a round, so one fiber switch per thread per round.
# Two buffers in turn, so that no thread overwrites a value not yet read.
PASS_AROUND = """
#define THREADS 1024
__global__ void pass_around(int* out, int rounds)
{
    __shared__ int ring[2][THREADS];
    int t = threadIdx.x;
    int value = t;
    for (int r = 0; r < rounds; ++r) {
        ring[r & 1][t] = value;
        __syncthreads();
        value = ring[r & 1][(t + 1) % blockDim.x];
    }
    out[blockIdx.x * blockDim.x + t] = value;
}
"""

LAUNCH_OPS = ("kernel_launch", "kernel_launch_indexed")
COMPILE_OPS = ("kernel_compile", "kernel_cached_load")
HOST_OPS = (
    "kernel_host_vecadd",
    "kernel_host_tree_sum",
    "kernel_host_warp_sum",
    "kernel_host_fiber",
)

# The launch rows: 1024 elements in one block, so the time is the launch's, not the work's.
LAUNCH_N = 1024
LAUNCH_GRID, LAUNCH_BLOCK = 1, 1024
BLOCK = 256  # the host rows' threads per block (TREE_SUM's BLOCK)
FIBER_THREADS = 1024
WARP_N = 53735  # np.arange(WARP_N, dtype=np.int32).sum() still fits in an int32
# A vecadd's tolerance: one rounding of the exact float64 sum of two float32 values.
_ONE_ROUNDING = 2 * float(np.finfo(np.float32).eps)


@dataclasses.dataclass(frozen=True)
class _Sizes:
    """The data of the host rows."""

    vecadd_n: int
    tree_n: int
    fiber_blocks: int
    fiber_rounds: int


_FULL = _Sizes(vecadd_n=1 << 24, tree_n=1 << 20, fiber_blocks=16, fiber_rounds=256)
# --quick: each row once over, in well under a second; no figure is meaningful.
_QUICK = _Sizes(vecadd_n=1 << 16, tree_n=1 << 14, fiber_blocks=2, fiber_rounds=4)


@dataclasses.dataclass(frozen=True)
class _Bound:
    """One clause of a row's target: gpuvec's time below ``ms``, or ``factor`` x ``against``'s."""

    text: str
    ms: float | None = None
    against: str | None = None  # a library of the row, or "reference"
    factor: float = 1.0


# The targets of the issue, per row.
_TARGETS = {
    "kernel_launch": (
        _Bound("<= cupy RawKernel", against="cupy"),
        _Bound("<= 1.3x gv.add", against="reference", factor=1.3),
    ),
    "kernel_compile": (_Bound("< 1 s", ms=1000.0),),
    "kernel_cached_load": (_Bound("< 5 ms", ms=5.0),),
    "kernel_host_vecadd": (_Bound("within 3x numpy", against="numpy", factor=3.0),),
    "kernel_host_tree_sum": (_Bound("< 0.25 s on 2 cores", ms=250.0),),
    "kernel_host_warp_sum": (_Bound("< 20 ms", ms=20.0),),
}
_TARGETS["kernel_launch_indexed"] = _TARGETS["kernel_launch"]

TIMING = (
    "launch rows as the latency rows (wall time per call over batches of calls that end in a "
    "synchronize; median of the batches); compile rows: wall time of SourceModule(source), "
    "the cache emptied just before each first compile; host rows: wall time of one launch and "
    "a synchronize (NumPy: one call), after a warm-up, median of the runs; the fiber switch: "
    "that time over blocks x threads x __syncthreads() rounds"
)


class _Skip(Exception):
    """A row that cannot run here at all (no compiler), with the reason."""


@dataclasses.dataclass
class _Candidate:
    """One library's code for a row.

    ``prepare()`` compiles and shares what it needs and returns the call
    to time; a launch it has run once already, so that no first-call cost
    (a JIT compile, a launcher set up) lands in the timed calls or in the
    warm-up's pace.
    """

    name: str
    how: str
    prepare: Callable[[], Callable[[], object]]
    synchronize: Callable[[], None] = gpuvec.synchronize


@dataclasses.dataclass
class _Numba:
    """Numba's CUDA target (``numba.cuda``), its vecadd, and the version to report."""

    cuda: object
    vecadd: object
    version: str


@dataclasses.dataclass
class _Run:
    """What every row of one run shares."""

    settings: Settings
    libraries: list
    numba: _Numba | None
    cache: object
    rng: np.random.Generator
    rows: list
    skipped: list
    progress: object

    @property
    def sizes(self) -> _Sizes:
        return _QUICK if self.settings.quick else _FULL

    def library(self, name: str):
        return next((lib for lib in self.libraries if lib.name == name), None)


def run(libraries, settings: Settings, results: dict, progress) -> None:
    """Measures the ops of :data:`KERNEL_OPS` that ``settings`` asks for.

    Parameters
    ----------
    libraries : list of Library
        gpuvec and the peers of this run (CuPy and NumPy serve here).
    settings : Settings
        The run's settings.
    results : dict
        The run's results: rows go to ``results["kernels"]``, rows that
        cannot run here to ``results["skipped"]``, Numba's absence to
        ``results["peers_skipped"]`` and its version to ``results["versions"]``.
    progress : Progress
        Advanced once per op.
    """
    ops = [op for op in KERNEL_OPS if op in settings.ops]
    if not ops:
        return
    numba = None
    if any(op in LAUNCH_OPS for op in ops):
        numba, reason = _load_numba(settings.peers, gpuvec.backend())
        if reason is not None:
            results["peers_skipped"]["numba"] = reason
        if numba is not None:
            results["versions"]["numba"] = numba.version
    with _private_cache() as cache, _quiet_numba(numba):
        context = _Run(
            settings=settings,
            libraries=libraries,
            numba=numba,
            cache=cache,
            rng=np.random.default_rng(settings.seed),
            rows=results["kernels"],
            skipped=results["skipped"],
            progress=progress,
        )
        for group, measure in ((LAUNCH_OPS, _launch), (COMPILE_OPS, _compile), (HOST_OPS, _host)):
            wanted = [op for op in group if op in ops]
            if wanted:
                measure(context, wanted)
    _release(libraries)


def count(ops) -> int:
    """The progress steps of :func:`run`: one per op of :data:`KERNEL_OPS` in ``ops``."""
    return sum(op in KERNEL_OPS for op in ops)


# -- the libraries ------------------------------------------------------------------------------


def _load_numba(peers, backend: str) -> tuple[_Numba | None, str | None]:
    """Numba's CUDA target and its vecadd, or None and why it is left out (None: not asked)."""
    if peers is not None and "numba" not in peers:
        return None, None
    if backend != "cuda":
        return (
            None,
            "gpuvec runs on the host backend here, so Numba's CUDA kernels are not compared",
        )
    try:
        from numba import cuda
    except ImportError as exc:
        return None, f"numba does not import: {exc} (pip install numba-cuda)"
    try:
        if not cuda.is_available():
            raise RuntimeError("Numba sees no usable CUDA device")

        # `cuda` a global of the function, as in users' modules (Numba's CUDA simulator
        # reads it so).
        scope = {"cuda": cuda}
        exec(compile(NUMBA_VECADD, "<gpuvec.bench numba vecadd>", "exec"), scope)  # our text
        kernel = cuda.jit(scope["vecadd"])
        # Compiled and launched once here: a Numba that imports may still fail to compile
        # (one older than the NumPy installed, say), and is then left out, not an error.
        one = cuda.device_array(1, np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its warning of a grid of one block
            kernel[1, 1](one, one, one, 1)
        cuda.synchronize()
        version = importlib.metadata.version("numba")
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            version += f" (numba-cuda {importlib.metadata.version('numba-cuda')})"
    except Exception as exc:  # a CUDA mismatch inside Numba, say: leave it out, say why
        return None, f"numba cannot run here: {_error_text(exc)}"
    return _Numba(cuda, kernel, version), None


@contextlib.contextmanager
def _quiet_numba(numba: _Numba | None):
    """Numba's warning of a grid under 128 blocks, off: these launches are of one on purpose.

    It is raised at every launch, so it would be timed as part of Numba's.
    """
    config = None
    if numba is not None:
        from numba.cuda import dispatcher  # the module whose launches read the setting

        config = getattr(dispatcher, "config", None)
    if config is None or not hasattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS"):
        yield
        return
    previous = config.CUDA_LOW_OCCUPANCY_WARNINGS
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    try:
        yield
    finally:
        config.CUDA_LOW_OCCUPANCY_WARNINGS = previous


@contextlib.contextmanager
def _private_cache():
    """A kernel cache of the run's own, in a temporary folder: the user's is left alone."""
    folder = tempfile.mkdtemp(prefix="gpuvec-bench-kernels-")
    previous = os.environ.get("GPUVEC_CACHE_DIR")
    os.environ["GPUVEC_CACHE_DIR"] = os.path.join(folder, "kernels")
    try:
        yield kernel_cache()
    finally:
        if previous is None:
            del os.environ["GPUVEC_CACHE_DIR"]
        else:
            os.environ["GPUVEC_CACHE_DIR"] = previous
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _on_host_backend():
    """The host backend, for the rows that measure the emulation, whatever the machine."""
    previous = gpuvec.set_backend("host")
    try:
        yield
    finally:
        gpuvec.set_backend(previous)


def _compiler() -> str:
    """The compiler of SourceModule on this backend, with its version."""
    try:
        if gpuvec.backend() == "cuda":
            return "NVRTC {}.{}".format(*_nvrtc.nvrtc_version())
        return _host_compiler.compiler_id()
    except FileNotFoundError:  # the rows will say so, skipped
        return "none found"


def _compiled(make: Callable[[], object]):
    """``make()`` (a SourceModule or RawKernel); a missing compiler skips the row instead."""
    try:
        return make()
    except FileNotFoundError as exc:  # no C++ compiler, no NVRTC: the row cannot run here
        raise _Skip(str(exc)) from None


def _after_one(call: Callable[[], object], synchronize: Callable[[], None]):
    """``call``, run once and waited for: the candidates' prepare() returns this."""
    call()
    synchronize()
    return call


# -- rows ---------------------------------------------------------------------------------------


def _new_row(op, kind, unit, shape, dtype, nbytes, tol, **extra) -> dict:
    n = math.prod(shape) if shape else None
    return {
        "op": op,
        "kind": kind,
        "backend": gpuvec.backend(),
        "unit": unit,
        "n": n,
        "shape": None if shape is None else [int(s) for s in shape],
        "dtype": dtype,
        "bytes": nbytes,
        "correct": False,
        "max_rel_error": None,
        "tolerance": tol,
        "error": None,
        "target": None,
        "results": {},
        **extra,
    }


def _fill(run: _Run, row, candidates, check, time_it, shared=None) -> None:
    """Checks gpuvec's result once, times every candidate, and adds the row.

    ``check(call)`` runs gpuvec's call and returns (correct, error), or
    raises where the row would time the wrong thing. ``shared`` holds the
    entries of candidates that rows share (timed once). A peer that fails
    is reported and skipped; a gpuvec that fails makes the row incorrect; a
    missing compiler skips the row.
    """
    shared = {} if shared is None else shared
    try:
        for candidate in candidates:
            if candidate.name in shared:
                row["results"][candidate.name] = dict(shared[candidate.name])
                continue
            try:
                call = candidate.prepare()
                if candidate.name == "gpuvec":
                    correct, error = check(call)
                    row["correct"], row["max_rel_error"] = bool(correct), _json_float(float(error))
                times = time_it(candidate, call)
                entry = _entry(times, row["bytes"], candidate.how)
            except _Skip:
                raise
            except Exception as exc:
                if candidate.name == "gpuvec":
                    row["correct"], row["error"] = False, _error_text(exc)
                    break  # a peer's time means nothing next to a gpuvec that failed
                entry = {"how": candidate.how, "error": _error_text(exc)}
            row["results"][candidate.name] = entry
            if candidate.name != "gpuvec":
                shared[candidate.name] = entry
    except _Skip as skip:
        run.skipped.append(
            {"op": row["op"], "n": row["n"], "dtype": row["dtype"], "reason": str(skip)}
        )
        return
    _finish_row(row, run.settings.quick)
    run.rows.append(row)


def _value(row, entry) -> float:
    """An entry's median in the row's unit: per call (µs), per compile or run (ms), per switch."""
    if row["unit"] == "us":
        return _round(entry["median_ms"] * 1e3)
    if row["unit"] == "ns":
        return _round(entry["median_ms"] * 1e6 / row["switches"])
    return entry["median_ms"]


def _finish_row(row, quick: bool) -> None:
    """Each entry's value in the row's unit, the ratios, and whether the target is met."""
    results = row["results"]
    reference = results.pop("reference", None)
    if reference is not None:
        row["reference"] = reference
    ours = results.get("gpuvec", {})
    for entry in (*results.values(), reference or {}):
        if "median_ms" in entry:
            entry["value"] = _value(row, entry)
    for name, entry in results.items():
        if name != "gpuvec" and "median_ms" in entry and ours.get("median_ms"):
            # peer time / gpuvec time, as in the other tables: above 1, gpuvec is faster
            entry["ratio"] = _round(entry["median_ms"] / ours["median_ms"])
    if reference and "median_ms" in reference and ours.get("median_ms"):
        # gpuvec time / its own gv.add's, as `vs` in the users table: above 1, slower
        ours["vs_reference"] = _round(ours["median_ms"] / reference["median_ms"])
    bounds = _TARGETS.get(row["op"])
    if bounds:
        row["target"] = _judge(bounds, row, quick)


def _judge(bounds, row, quick: bool) -> dict:
    """The target's text, whether gpuvec meets it, and the clauses this run could not check."""
    text = "; ".join(bound.text for bound in bounds)
    ours = row["results"].get("gpuvec", {}).get("median_ms")
    if quick or ours is None:
        why = "--quick: no figure is meaningful" if quick else "gpuvec has no time"
        return {"text": text, "met": None, "unchecked": [why]}
    verdicts, unchecked = [], []
    for bound in bounds:
        if bound.against is None:
            verdicts.append(ours < bound.ms)
            continue
        if bound.against == "reference":
            other = row.get("reference") or {}
        else:
            other = row["results"].get(bound.against) or {}
        if other.get("median_ms") is None:
            unchecked.append(f"{bound.text}: {bound.against} not measured")
        else:
            verdicts.append(ours <= bound.factor * other["median_ms"])
    return {"text": text, "met": all(verdicts) if verdicts else None, "unchecked": unchecked}


def _vecadd_check(a, b, c, expected):
    """A check of a vecadd call writing ``c``: ``c`` filled with NaN first, so a no-op shows."""

    def check(call):
        c.fill(np.nan)
        call()
        gpuvec.synchronize()
        error = _max_rel_error(c.to_host(), expected)
        return error <= _ONE_ROUNDING, error

    return check


# -- launch latency -----------------------------------------------------------------------------


def _launch(run: _Run, ops) -> None:
    n = LAUNCH_N
    host = [run.rng.random(n, dtype=np.float32) for _ in range(2)]
    expected = host[0].astype(np.float64) + host[1]
    a, b = (gpuvec.to_device(h) for h in host)
    c = gpuvec.empty(n, np.float32)
    grid, block = LAUNCH_GRID, LAUNCH_BLOCK
    calls = {
        "kernel_launch": (
            f"k(a, b, c, n, grid={grid}, block={block})",
            lambda k: lambda: k(a, b, c, n, grid=grid, block=block),
        ),
        "kernel_launch_indexed": (
            f"k[{grid}, {block}](a, b, c, n)",
            lambda k: lambda: k[grid, block](a, b, c, n),
        ),
    }
    peers = [
        _Candidate(
            "reference",
            "gv.add(a, b, out=c)",
            lambda: _after_one(lambda: gpuvec.add(a, b, out=c), gpuvec.synchronize),
        ),
        *_launch_peers(run, ((a, host[0]), (b, host[1]), (c, None))),
    ]
    shared: dict = {}  # the peers and the reference: timed once, for both rows
    for op in ops:
        run.progress.describe(f"{op}: {n:,} float32")
        how, bind = calls[op]

        def prepare(bind=bind):
            kernel = _compiled(lambda: gpuvec.RawKernel(VECADD, "vecadd"))
            return _after_one(bind(kernel), gpuvec.synchronize)

        gpuvec_call = _Candidate("gpuvec", f"{how}  [k = gv.RawKernel(source, 'vecadd')]", prepare)
        row = _new_row(op, "latency", "us", (n,), "float32", None, _ONE_ROUNDING)
        row["launch"] = {"grid": grid, "block": block}
        time_it = _latency_timer(run.settings)  # reads the candidate's synchronize
        _fill(
            run,
            row,
            [gpuvec_call, *peers],
            _vecadd_check(a, b, c, expected),
            lambda candidate, call, time_it=time_it: time_it(candidate, call, [()]),
            shared,
        )
        run.progress.advance()


def _launch_peers(run: _Run, arrays) -> list[_Candidate]:
    """CuPy's RawKernel and Numba's @cuda.jit vecadd on gpuvec's arrays, where measured."""
    grid, block = LAUNCH_GRID, LAUNCH_BLOCK
    peers = []
    cupy = run.library("cupy")
    if cupy is not None:
        cp = cupy.module

        def prepare_cupy():
            kernel = cp.RawKernel(VECADD, "vecadd")
            x, y, z = (cupy.adopt(d, h, False) for d, h in arrays)
            n = np.int32(x.size)  # CuPy passes a Python int as 64 bits; the kernel takes an int
            return _after_one(lambda: kernel((grid,), (block,), (x, y, z, n)), cupy.synchronize)

        how = (
            f"k(({grid},), ({block},), (a, b, c, np.int32(n)))  "
            "[k = cp.RawKernel(source, 'vecadd')]"
        )
        peers.append(_Candidate("cupy", how, prepare_cupy, cupy.synchronize))
    numba = run.numba
    if numba is not None:

        def prepare_numba():
            x, y, z = (numba.cuda.as_cuda_array(d) for d, _ in arrays)  # zero-copy views
            n = x.size
            return _after_one(
                lambda: numba.vecadd[grid, block](x, y, z, n), numba.cuda.synchronize
            )

        how = f"k[{grid}, {block}](a, b, c, n)  [k = @cuda.jit vecadd; a = cuda.as_cuda_array(d)]"
        peers.append(_Candidate("numba", how, prepare_numba, numba.cuda.synchronize))
    return peers


# -- compile time -------------------------------------------------------------------------------


class _EmptyingClock(_timing.WallClock):
    """A wall clock that empties the kernel cache just before it starts.

    So each timed ``SourceModule`` is a first compile, and the emptying is not timed.
    """

    def __init__(self, cache):
        self._cache = cache

    def start(self) -> None:
        self._cache.clear()
        super().start()


def _compile(run: _Run, ops) -> None:
    cache, settings = run.cache, run.settings
    host = [run.rng.random(LAUNCH_N, dtype=np.float32) for _ in range(2)]
    expected = host[0].astype(np.float64) + host[1]
    a, b = (gpuvec.to_device(h) for h in host)
    c = gpuvec.empty(LAUNCH_N, np.float32)
    check_launch = _vecadd_check(a, b, c, expected)
    compiler = _compiler()

    def load():
        return _compiled(lambda: gpuvec.SourceModule(VECADD))

    def check(first: bool):
        def run_and_check(call):
            if first:
                cache.clear()
            else:
                call()  # its code into the cache, where no row before has put it there
            before = cache.stats()
            module = call()
            after = cache.stats()
            if first and after.misses != before.misses + 1:
                raise RuntimeError("the first compile did not miss the emptied cache")
            if not first and (after.hits != before.hits + 1 or after.misses != before.misses):
                raise RuntimeError("the cached load did not find its kernel in the cache")
            return check_launch(lambda: module.vecadd(a, b, c, LAUNCH_N, grid=4, block=256))

        return run_and_check

    for op in ops:
        run.progress.describe(f"{op} ({compiler})")
        first = op == "kernel_compile"
        how = "gv.SourceModule(source)  " + (
            "[the cache emptied before each]" if first else "[its code in the cache]"
        )
        row = _new_row(op, "compile", "ms", None, None, None, _ONE_ROUNDING, compiler=compiler)
        if first:
            # The check's own compile serves as the warm-up; --quick times one compile.
            repeat, warmup = (1 if settings.quick else settings.repeat), 0
            clock = _EmptyingClock(cache)
        else:
            repeat, warmup, clock = settings.repeat, settings.warmup, _timing.WallClock()

        def time_it(candidate, call, repeat=repeat, warmup=warmup, clock=clock):
            return _timing.measure(
                call,
                [()],
                clock,
                repeat=repeat,
                warmup=warmup,
                max_seconds=settings.max_seconds,
            )

        _fill(run, row, [_Candidate("gpuvec", how, lambda: load)], check(first), time_it)
        run.progress.advance()


# -- the host emulation -------------------------------------------------------------------------


def _host(run: _Run, ops) -> None:
    rows = {
        "kernel_host_vecadd": _host_vecadd,
        "kernel_host_tree_sum": _host_tree_sum,
        "kernel_host_warp_sum": _host_warp_sum,
        "kernel_host_fiber": _host_fiber,
    }
    with _on_host_backend():
        for op in ops:
            rows[op](run, op)
            run.progress.advance()
            _release(run.libraries)


def _numpy_candidate(run: _Run, how: str, call: Callable[[], object]) -> list[_Candidate]:
    """NumPy's code for the same job, where NumPy is a peer of this run."""
    if run.library("numpy") is None:
        return []
    return [_Candidate("numpy", how, lambda: _after_one(call, lambda: None), lambda: None)]


def _timed_launch(make, launch) -> Callable[[], Callable[[], object]]:
    """prepare() of a gpuvec launch: compile, then a call that launches and waits."""

    def prepare():
        module = _compiled(make)

        def call():
            launch(module)
            gpuvec.synchronize()

        return call

    return prepare


def _host_vecadd(run: _Run, op: str) -> None:
    n = run.sizes.vecadd_n
    run.progress.describe(f"{op} 2^{n.bit_length() - 1} float32")
    problem = _memory_problem(3 * n * 4, 3 * n * 4)
    if problem is not None:
        run.skipped.append({"op": op, "n": n, "dtype": "float32", "reason": problem})
        return
    host = [run.rng.random(n, dtype=np.float32) for _ in range(2)]
    expected = host[0].astype(np.float64) + host[1]
    a, b = (gpuvec.to_device(h) for h in host)
    c = gpuvec.empty(n, np.float32)
    out = np.empty(n, np.float32)
    grid = -(-n // BLOCK)
    row = _new_row(op, "bandwidth", "ms", (n,), "float32", 3 * n * 4, _ONE_ROUNDING)
    gpuvec_call = _Candidate(
        "gpuvec",
        f"k(a, b, c, n, grid={grid}, block={BLOCK}); gv.synchronize()",
        _timed_launch(
            lambda: gpuvec.RawKernel(VECADD, "vecadd"),
            lambda k: k(a, b, c, n, grid=grid, block=BLOCK),
        ),
    )
    numpy = _numpy_candidate(run, "np.add(a, b, out=c)", lambda: np.add(host[0], host[1], out=out))
    _fill(run, row, [gpuvec_call, *numpy], _vecadd_check(a, b, c, expected), _wall(run))


def _host_tree_sum(run: _Run, op: str) -> None:
    n = run.sizes.tree_n
    blocks = -(-n // BLOCK)
    run.progress.describe(f"{op} 2^{n.bit_length() - 1} float32")
    hx = run.rng.random(n, dtype=np.float32)
    padded = np.zeros(blocks * BLOCK)
    padded[:n] = hx
    expected = padded.reshape(blocks, BLOCK).sum(axis=1)
    x, out = gpuvec.to_device(hx), gpuvec.empty(blocks, np.float32)
    host_out = np.empty(blocks, np.float32)
    # Each block's sum is rounded once per level of the tree (8 for 256 threads), and the
    # values are positive, so no cancellation: within 8 float32 roundings, and 2x to spare.
    tol = 2 * math.log2(BLOCK) * float(np.finfo(np.float32).eps)
    row = _new_row(op, "bandwidth", "ms", (n,), "float32", (n + blocks) * 4, tol, blocks=blocks)
    gpuvec_call = _Candidate(
        "gpuvec",
        f"mod.block_sums(x, out, n, grid={blocks}, block={BLOCK}); gv.synchronize()",
        _timed_launch(
            lambda: gpuvec.SourceModule(TREE_SUM),
            lambda m: m.block_sums(x, out, n, grid=blocks, block=BLOCK),
        ),
    )
    numpy = _numpy_candidate(
        run,
        f"np.sum(x.reshape(-1, {BLOCK}), axis=1, out=out)",
        lambda: np.sum(hx.reshape(blocks, BLOCK), axis=1, out=host_out),
    )

    def check(call):
        out.fill(np.nan)
        call()
        error = _max_rel_error(out.to_host(), expected)
        return error <= tol, error

    _fill(run, row, [gpuvec_call, *numpy], check, _wall(run))


def _host_warp_sum(run: _Run, op: str) -> None:
    n = WARP_N
    run.progress.describe(f"{op} {n:,} int32")
    # NumPy arrays, as users pass them: gpuvec's DeviceArrays hold float32 and float64 only.
    values, total = np.arange(n, dtype=np.int32), np.zeros(1, np.int32)
    expected = int(values.astype(np.int64).sum())
    grid = -(-n // BLOCK)
    row = _new_row(op, "time", "ms", (n,), "int32", None, 0.0)
    gpuvec_call = _Candidate(
        "gpuvec",
        f"mod.sum_kernel(values, total, n, grid={grid}, block={BLOCK})  "
        "[values = np.arange(n, dtype=np.int32)]",
        _timed_launch(
            lambda: gpuvec.SourceModule(WARP_SUM),
            lambda m: m.sum_kernel(values, total, n, grid=grid, block=BLOCK),
        ),
    )
    numpy = _numpy_candidate(run, "np.sum(values)", lambda: np.sum(values))

    def check(call):
        # The timed launches go on adding to the total (it wraps, as int atomics do);
        # the checked one starts from zero.
        total[0] = 0
        call()
        error = abs(int(total[0]) - expected) / expected
        return error == 0, error

    _fill(run, row, [gpuvec_call, *numpy], check, _wall(run))


def _host_fiber(run: _Run, op: str) -> None:
    blocks, rounds = run.sizes.fiber_blocks, run.sizes.fiber_rounds
    run.progress.describe(f"{op} {blocks} blocks x {FIBER_THREADS} threads x {rounds} rounds")
    out = np.empty(blocks * FIBER_THREADS, np.int32)
    expected = np.tile((np.arange(FIBER_THREADS) + rounds) % FIBER_THREADS, blocks)
    row = _new_row(
        op,
        "time",
        "ns",
        (blocks, FIBER_THREADS),
        "int32",
        None,
        0.0,
        rounds=rounds,
        switches=blocks * FIBER_THREADS * rounds,
        note="ns: the launch's wall time over blocks x threads x rounds, one __syncthreads() "
        "a round; blocks run in parallel over the cores",
    )
    gpuvec_call = _Candidate(
        "gpuvec",
        f"mod.pass_around(out, {rounds}, grid={blocks}, block={FIBER_THREADS})",
        _timed_launch(
            lambda: gpuvec.SourceModule(PASS_AROUND),
            lambda m: m.pass_around(out, rounds, grid=blocks, block=FIBER_THREADS),
        ),
    )

    def check(call):
        out.fill(-1)
        call()
        wrong = np.count_nonzero(out != expected)
        return wrong == 0, wrong / out.size

    _fill(run, row, [gpuvec_call], check, _wall(run))


def _wall(run: _Run):
    """The host rows' timer: the harness's wall clock over each call (each waits for itself)."""
    time_it = _wall_timer(run.settings)
    return lambda candidate, call: time_it(candidate, call, [()])
