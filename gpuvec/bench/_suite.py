"""The benchmarks: their data, how each is timed and checked, and the run loop."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

import gpuvec
from gpuvec import _core
from gpuvec.bench import _kernels, _libraries
from gpuvec.bench._measure import (
    KERNEL_OPS,
    Settings,
    _entry,
    _error_text,
    _event_timer,
    _json_float,
    _latency_timer,
    _max_rel_error,
    _memory_problem,
    _release,
    _round,
    _wall_timer,
)
from gpuvec.bench._progress import Progress

SCHEMA = "gpuvec.bench/1"

# Device-resident ops swept over sizes.
SWEEP_OPS = ("add", "axpy", "sum", "dot", "norm", "add_step2")
MATRIX_OPS = ("sum_axis1",)
LATENCY_OPS = ("tiny_add", "tiny_sum")
ROUNDTRIP_OPS = ("roundtrip_add", "roundtrip_sum")
# "What users write" (_libraries.WORKLOADS): each in the shapes and dtypes it declares.
USER_OPS = _libraries.WORKLOAD_OPS
USER_GROUP = "users"
OPS = SWEEP_OPS + MATRIX_OPS + LATENCY_OPS + ROUNDTRIP_OPS + USER_OPS
KERNEL_GROUP = "kernels"
DTYPES = ("float32", "float64")
PEERS = _libraries.PEERS
# Peers of the kernel rows alone: Numba has no code for the others.
KERNEL_ONLY_PEERS = ("numba",)

# Ops whose result is an array written to ``out=`` (the last operand); the others reduce.
_ELEMENTWISE = frozenset({"add", "axpy", "add_step2", "tiny_add"})

# Without a figure from the driver (the host backend), assume a last-level
# cache of this size when deciding how many input sets to rotate through.
_HOST_CACHE_BYTES = 32 << 20
_DEFAULT_L2_BYTES = 50 << 20
# Input sets to rotate through at most: enough to flush 2x the L2 from 2^19 bytes up.
_MAX_SETS = 64


_FULL = {
    "repeat": 50,
    "warmup": 5,
    "max_seconds": 1.0,
    # Latency: the median of 9 batches, so that a batch slowed by the host
    # (another process, a migrated thread) does not decide the figure.
    "tiny_calls": 2000,
    "tiny_batches": 9,
    "roundtrip_n": 1 << 24,
    "matrix_n": 4096,
}
# --quick: every benchmark once over, in seconds, for CI and smoke tests; no figure is meaningful.
_QUICK = {
    "repeat": 5,
    "warmup": 1,
    "max_seconds": 0.2,
    "tiny_calls": 100,
    "tiny_batches": 2,
    "roundtrip_n": 1 << 14,
    "matrix_n": 256,
}


def parse_sizes(spec) -> tuple[int, ...]:
    """Element counts from a sizes argument.

    Parameters
    ----------
    spec : str or iterable of int
        ``"10:28"`` (2^10 through 2^28), ``"10:28:2"`` (every other power),
        a comma-separated list of ``"2^k"``, exponents up to 40 or counts
        above 40 (``"10,20,1000000"``), or element counts as ints.

    Returns
    -------
    tuple of int
        The counts, sorted, without repeats.

    Examples
    --------
    >>> parse_sizes("10:14:2")
    (1024, 4096, 16384)
    >>> parse_sizes("2^3,20,1000")
    (8, 1000, 1048576)
    """
    if not isinstance(spec, str):
        sizes = [int(n) for n in spec]
    else:
        sizes = []
        for token in spec.replace(" ", "").split(","):
            if not token:
                continue
            if ":" in token:
                parts = [int(p) for p in token.split(":")]
                if len(parts) not in (2, 3):
                    raise ValueError(f"size range {token!r} is not start:stop or start:stop:step")
                start, stop, step = (*parts, 1)[:3]
                sizes += [1 << k for k in range(start, stop + 1, step)]
            elif token.startswith("2^"):
                sizes.append(1 << int(token[2:]))
            else:
                value = int(token)
                sizes.append(1 << value if value <= 40 else value)
    if not sizes or any(n < 1 for n in sizes):
        raise ValueError(f"sizes must be positive element counts, got {spec!r}")
    return tuple(sorted(set(sizes)))


def _names(value, allowed: tuple[str, ...], what: str, groups=None) -> tuple[str, ...]:
    """A comma-separated string or a sequence of names, checked against ``allowed``.

    ``groups`` maps a name to the names it stands for (``kernels``: :data:`KERNEL_OPS`).
    """
    names = value.split(",") if isinstance(value, str) else list(value)
    names = [n.strip() for n in names if n.strip()]
    names = [m for n in names for m in (groups or {}).get(n, (n,))]
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(unknown)}: choose from {', '.join(allowed)}")
    return tuple(dict.fromkeys(names))


def make_settings(
    ops=None,
    sizes=None,
    dtypes=None,
    peers=None,
    *,
    repeat=None,
    warmup=None,
    max_seconds=None,
    quick=False,
    seed=0,
) -> Settings:
    """The settings of a run, with the defaults of this backend filled in (see :func:`run`)."""
    cuda = gpuvec.backend() == "cuda"
    base = _QUICK if quick else _FULL
    if repeat is not None and repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    if warmup is not None and warmup < 0:
        raise ValueError(f"warmup must be at least 0, got {warmup}")
    if max_seconds is not None and not max_seconds > 0:
        raise ValueError(f"max_seconds must be positive, got {max_seconds}")
    if sizes is None:
        # The host backend stops at 2^24 by default: beyond, a run takes minutes and shows
        # nothing new.
        sizes = "10,12,14" if quick else ("10:28" if cuda else "10:24")
    if peers is not None:
        if isinstance(peers, str) and peers.strip().lower() in ("", "none"):
            peers = ()
        peers = _names(peers, PEERS + KERNEL_ONLY_PEERS, "peer")
    if cuda:
        info = gpuvec.current_device().properties
        cache = int(info.get("l2_cache_bytes") or _DEFAULT_L2_BYTES)
    else:
        cache = _HOST_CACHE_BYTES
    return Settings(
        ops=_names(
            OPS + KERNEL_OPS if ops is None else ops,
            OPS + KERNEL_OPS,
            "benchmark",
            {KERNEL_GROUP: KERNEL_OPS},
        ),
        sizes=parse_sizes(sizes),
        dtypes=_names(DTYPES if dtypes is None else dtypes, DTYPES, "dtype"),
        peers=peers,
        repeat=int(base["repeat"] if repeat is None else repeat),
        warmup=int(base["warmup"] if warmup is None else warmup),
        max_seconds=float(base["max_seconds"] if max_seconds is None else max_seconds),
        quick=bool(quick),
        seed=int(seed),
        tiny_calls=base["tiny_calls"],
        tiny_batches=base["tiny_batches"],
        roundtrip_n=base["roundtrip_n"],
        matrix_n=base["matrix_n"],
        copy_n=1 << (20 if quick else (28 if cuda else 24)),
        cache_bytes=cache,
    )


# -- numbers ------------------------------------------------------------------------------------


def _traffic(op: str, n: int, itemsize: int) -> int:
    """Bytes an op must move: each input read once, each output written once."""
    if op in ("add", "axpy", "add_step2", "tiny_add"):
        return 3 * n * itemsize  # step-2: the useful bytes, not the cache lines the gaps cost
    if op == "dot":
        return (2 * n + 1) * itemsize
    return (n + 1) * itemsize  # sum, norm, tiny_sum


def _tolerance(op: str, dtype, n: int) -> float:
    """How far gpuvec may be from the float64 reference and still be right.

    Elementwise results are one rounding of the exact value (the float64
    reference of float32 data is exact). Reductions accumulate in float64
    and round once to the dtype; the reference, NumPy's pairwise float64
    sum, is itself within about ``log2(n)`` float64 roundings.
    """
    eps = float(np.finfo(dtype).eps)
    if op in _ELEMENTWISE or op == "roundtrip_add":
        return 2 * eps
    return 8 * eps + 4 * math.log2(max(n, 2)) * float(np.finfo(np.float64).eps)


def _check(op, call, operands, expected, tol) -> tuple[bool, float]:
    """Runs gpuvec's ``call`` once and compares its result with ``expected``."""
    result = call(*operands)
    if op in _ELEMENTWISE:
        got = gpuvec.asnumpy(operands[-1])
    elif op in ("sum_axis1", "roundtrip_add"):
        got = gpuvec.asnumpy(result)
    else:
        got = float(result)
    error = _max_rel_error(got, expected)
    return bool(error <= tol), error


# -- data ---------------------------------------------------------------------------------------


class _HostData:
    """The host data of one size: inputs X and Y of 2n elements (x, y: their first halves).

    The float32 values are drawn first and the float64 ones are those same
    values, so both dtypes compute the same thing, and the float64
    references of float32 data are exact (products of two float32 values
    fit in a float64).
    """

    def __init__(self, rng, n: int):
        self.n = n
        self._inputs = {
            "float32": (rng.random(2 * n, dtype=np.float32), rng.random(2 * n, dtype=np.float32))
        }
        self._expected: dict[str, object] = {}

    def inputs(self, dtype: str) -> tuple[np.ndarray, np.ndarray]:
        if dtype not in self._inputs:
            X, Y = self._inputs["float32"]
            self._inputs[dtype] = (X.astype(dtype), Y.astype(dtype))
        return self._inputs[dtype]

    def expected(self, op: str):
        if op not in self._expected:
            n = self.n
            X, Y = self.inputs("float64")
            x, y = X[:n], Y[:n]
            self._expected[op] = {
                "add": lambda: x + y,
                "axpy": lambda: 2.0 * x + y,
                "add_step2": lambda: X[::2] + Y[::2],
                "sum": lambda: float(np.sum(x)),
                "dot": lambda: float(np.sum(x * y)),
                "norm": lambda: float(np.sqrt(np.sum(x * x))),
            }[op]()
        return self._expected[op]


def _operands(op: str, X, Y, Z, n: int) -> tuple:
    """One set of an op's operands, from a set of inputs X, Y (2n elements) and output Z (n)."""
    if op == "add_step2":
        return (X[::2], Y[::2], Z)  # every other element of 2n: n strided elements each
    x, y = X[:n], Y[:n]
    return {"add": (x, y, Z), "axpy": (x, y, Z), "sum": (x,), "dot": (x, y), "norm": (x,)}[op]


def _rotation(read_bytes: int, cache_bytes: int) -> int:
    """How many distinct input sets to cycle through so that no call finds its data cached.

    Enough that the sets together are twice the cache, counting the bytes
    the smallest op of the set reads (a sum reads only x).
    """
    if read_bytes >= 2 * cache_bytes:
        return 1
    return min(_MAX_SETS, -(-2 * cache_bytes // max(read_bytes, 1)))


class _Arena:
    """The operands of one size and dtype, in ``rotate`` distinct sets, for every library.

    gpuvec's failures here propagate; a peer's (its own copies running out
    of memory, say) are kept and raised again by :meth:`operands`, so that
    they cost that peer its figures and not the row.
    """

    def __init__(self, libraries, X, Y, n: int, rotate: int):
        self.n = n
        self._sets: dict[str, list] = {lib.name: [] for lib in libraries}
        self._failures: dict[str, Exception] = {}
        dX, dY = gpuvec.to_device(X), gpuvec.to_device(Y)
        for r in range(rotate):
            if r:
                dX, dY = dX.copy(), dY.copy()
            dZ = gpuvec.empty(n, X.dtype)
            for lib in libraries:
                if lib.name in self._failures:
                    continue
                fresh = r > 0
                try:
                    triple = (
                        lib.adopt(dX, X, fresh),
                        lib.adopt(dY, Y, fresh),
                        lib.adopt(dZ, None, fresh),
                    )
                except Exception as exc:
                    if lib.name == "gpuvec":
                        raise
                    self._failures[lib.name] = exc
                    self._sets[lib.name] = []
                    continue
                self._sets[lib.name].append(triple)
        gpuvec.synchronize()

    def operands(self, name: str, op: str) -> list[tuple]:
        if name in self._failures:
            raise self._failures[name]
        return [_operands(op, X, Y, Z, self.n) for X, Y, Z in self._sets[name]]


# -- rows ---------------------------------------------------------------------------------------


def _new_row(op, kind, n, shape, dtype, nbytes, tol, **extra) -> dict:
    return {
        "op": op,
        "kind": kind,
        "n": int(n),
        "shape": [int(s) for s in shape],
        "dtype": dtype,
        "bytes": int(nbytes),
        "correct": False,
        "max_rel_error": None,
        "tolerance": tol,
        "error": None,
        "results": {},
        **extra,
    }


def _fill_row(row, op, libraries, operands_of, time_it, check) -> dict:
    """Checks gpuvec's result once, then times every library.

    ``operands_of(name)`` gives a library's operand sets, ``time_it(lib,
    call, sets)`` the times in ms, ``check(call, operands)`` gpuvec's
    (correct, error). A peer that fails is reported and skipped; a gpuvec
    that fails makes the row incorrect.
    """
    for lib in libraries:
        if op not in lib.ops:  # a benchmark this library has no code for: its cell stays empty
            continue
        how = lib.how.get(op, "")
        try:
            call, sets = lib.ops[op], operands_of(lib.name)
            if lib.name == "gpuvec":
                correct, error = check(call, sets[0])
                row["correct"], row["max_rel_error"] = correct, _json_float(error)
            times = time_it(lib, call, sets)
            if row["kind"] == "latency":  # a few bytes per call: a time, not a bandwidth
                median_us = _round(statistics.median(times) * 1e3)
                row["results"][lib.name] = _entry(times, None, how, us_per_call=median_us)
            else:
                row["results"][lib.name] = _entry(times, row["bytes"], how)
        except Exception as exc:
            if lib.name == "gpuvec":
                row["correct"], row["error"] = False, _error_text(exc)
                return row  # a peer's time means nothing next to a gpuvec that failed
            row["results"][lib.name] = {"how": how, "error": _error_text(exc)}
    return row


def _label(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"{n:,}"


# -- the parts of a run -------------------------------------------------------------------------


def _copy_bandwidth(libraries, settings: Settings) -> dict:
    """Device-to-device copy bandwidth, the limit that the bandwidth figures compare with."""
    n = settings.copy_n
    while n > 1 << 16 and _memory_problem(2 * 4 * n, 2 * 4 * n):
        n //= 2
    result = {"n": n, "dtype": "float32", "bytes": 2 * 4 * n, "results": {}}
    result["reference"] = result["reference_gbps"] = None
    host = np.ones(n, np.float32) if any(not lib.on_device for lib in libraries) else None
    try:
        src, dst = gpuvec.full(n, 1.0, np.float32), gpuvec.empty(n, np.float32)
    except Exception as exc:  # the rows will say whether gpuvec works at all
        result["error"] = _error_text(exc)
        return result
    time_it = _event_timer(settings)
    for lib in libraries:
        try:
            sets = [(lib.adopt(src, host, False), lib.adopt(dst, None, False))]
            times = time_it(lib, lib.ops["copy"], sets)
            result["results"][lib.name] = _entry(times, result["bytes"], lib.how["copy"])
        except Exception as exc:
            result["results"][lib.name] = {"how": lib.how["copy"], "error": _error_text(exc)}
    # The limit is the best device copy measured; on the host backend, the best host copy.
    device = gpuvec.backend() == "cuda"
    candidates = {
        lib.name: result["results"][lib.name].get("gbps")
        for lib in libraries
        if lib.on_device == device and result["results"][lib.name].get("gbps")
    }
    best = max(candidates, key=candidates.get) if candidates else None
    result["reference"] = best
    result["reference_gbps"] = candidates[best] if best else None
    del src, dst, host
    _release(libraries)
    return result


def _sweep(libraries, settings, support, rows, skipped, progress, rng) -> None:
    ops = [op for op in SWEEP_OPS if op in settings.ops]
    runnable = [op for op in ops if op not in support]
    if not ops:
        return
    for op in ops:
        if op in support:
            skipped.append({"op": op, "n": None, "dtype": None, "reason": support[op]})
    for n in settings.sizes:
        data = arena = None  # one size's host data serves both dtypes
        for dtype in settings.dtypes:
            itemsize = np.dtype(dtype).itemsize
            progress.describe(f"{_label(n)} {dtype}: setting up")
            rotate = _rotation(n * itemsize, settings.cache_bytes)
            device_bytes = rotate * 5 * n * itemsize
            problem = _memory_problem(device_bytes, device_bytes + 2 * 2 * n * 12 + 3 * n * 8)
            failure = None
            if problem is None and runnable:
                try:
                    if data is None:
                        data = _HostData(rng, n)
                    X, Y = data.inputs(dtype)
                    arena = _Arena(libraries, X, Y, n, rotate)
                except MemoryError as exc:  # gpuvec.OutOfMemoryError is a MemoryError
                    problem = f"out of memory setting up: {exc}"
                except Exception as exc:  # gpuvec could not even hold the data: its rows fail
                    failure = f"setting up the data failed: {_error_text(exc)}"
            for op in ops:
                if op in support:
                    progress.advance()
                    continue
                if problem is not None:
                    skipped.append({"op": op, "n": n, "dtype": dtype, "reason": problem})
                    progress.advance()
                    continue
                progress.describe(f"{op} {_label(n)} {dtype}")
                row = _new_row(
                    op,
                    "bandwidth",
                    n,
                    (n,),
                    dtype,
                    _traffic(op, n, itemsize),
                    _tolerance(op, dtype, n),
                    rotate=rotate,
                )
                if op == "add_step2":
                    row["note"] = "inputs X[::2] of 2n elements; GB/s counts the useful 3n"
                if failure is not None:
                    row["error"] = failure
                    rows.append(row)
                    progress.advance()
                    continue

                def check(call, operands, op=op, data=data, tol=row["tolerance"]):
                    return _check(op, call, operands, data.expected(op), tol)

                def operands_of(name, op=op, arena=arena):
                    return arena.operands(name, op)

                rows.append(
                    _fill_row(row, op, libraries, operands_of, _event_timer(settings), check)
                )
                progress.advance()
            arena = None
            _release(libraries)


def _matrix(libraries, settings, support, rows, skipped, progress, rng) -> None:
    if "sum_axis1" not in settings.ops:
        return
    if "sum_axis1" in support:
        reason = support["sum_axis1"]
        skipped.append({"op": "sum_axis1", "n": None, "dtype": None, "reason": reason})
        progress.advance(len(settings.dtypes))
        return
    m = settings.matrix_n
    host32 = rng.random((m, m), dtype=np.float32)
    expected = host32.astype(np.float64).sum(axis=1)
    for dtype in settings.dtypes:
        progress.describe(f"sum_axis1 {m}x{m} {dtype}")
        itemsize = np.dtype(dtype).itemsize
        host = host32.astype(dtype, copy=False)
        rotate = _rotation(m * m * itemsize, settings.cache_bytes)
        problem = _memory_problem(rotate * m * m * itemsize, 3 * rotate * m * m * itemsize)
        if problem is not None:
            skipped.append({"op": "sum_axis1", "n": m * m, "dtype": dtype, "reason": problem})
            progress.advance()
            continue
        tol = _tolerance("sum_axis1", dtype, m)
        nbytes = (m * m + m) * itemsize
        row = _new_row("sum_axis1", "bandwidth", m * m, (m, m), dtype, nbytes, tol, rotate=rotate)
        try:
            matrices = [gpuvec.to_device(host)]
            matrices += [matrices[0].copy() for _ in range(rotate - 1)]
            sets = {
                lib.name: [(lib.adopt(d, host, r > 0),) for r, d in enumerate(matrices)]
                for lib in libraries
            }
        except Exception as exc:
            row["error"] = f"setting up the data failed: {_error_text(exc)}"
            rows.append(row)
            progress.advance()
            continue

        def check(call, operands, tol=tol):
            return _check("sum_axis1", call, operands, expected, tol)

        rows.append(
            _fill_row(row, "sum_axis1", libraries, sets.__getitem__, _event_timer(settings), check)
        )
        progress.advance()
        del matrices, sets
        _release(libraries)


def _latency(libraries, settings, rows, progress) -> None:
    for op in (op for op in LATENCY_OPS if op in settings.ops):
        for dtype in settings.dtypes:
            progress.describe(f"{op} {dtype}")
            itemsize = np.dtype(dtype).itemsize
            row = _new_row(op, "latency", 1, (1,), dtype, _traffic(op, 1, itemsize), 0.0)
            hx, hy = np.array([1.5], dtype), np.array([2.25], dtype)
            try:
                dx, dy, dz = gpuvec.to_device(hx), gpuvec.to_device(hy), gpuvec.empty(1, dtype)
                pairs = ((dx, hx), (dy, hy), (dz, None))
                sets = {
                    lib.name: [tuple(lib.adopt(d, h, False) for d, h in pairs)]
                    for lib in libraries
                }
            except Exception as exc:
                row["error"] = f"setting up the data failed: {_error_text(exc)}"
                rows.append(row)
                progress.advance()
                continue
            # 1.5 + 2.25 and a sum of 1.5 are exact in both dtypes.
            expected = np.array([3.75]) if op == "tiny_add" else 1.5

            def operands_of(name, op=op, sets=sets):
                return [s if op == "tiny_add" else s[:1] for s in sets[name]]

            def check(call, operands, op=op, expected=expected):
                return _check(op, call, operands, expected, 0.0)

            rows.append(
                _fill_row(row, op, libraries, operands_of, _latency_timer(settings), check)
            )
            progress.advance()


def _roundtrip(libraries, settings, rows, progress, rng) -> None:
    ops = [op for op in ROUNDTRIP_OPS if op in settings.ops]
    if not ops:
        return
    n = settings.roundtrip_n
    a, b = rng.random(n), rng.random(n)  # float64, as NumPy users have them
    for op in ops:
        for dtype in settings.dtypes:
            progress.describe(f"{op} {_label(n)} {dtype}")
            cast = None if dtype == "float64" else np.dtype(dtype).type
            itemsize = np.dtype(dtype).itemsize
            if op == "roundtrip_add":
                operands = (a, b, cast)
                nbytes = a.nbytes + b.nbytes + n * itemsize
                expected = a + b if cast is None else a.astype(cast) + b.astype(cast)
            else:
                operands = (a, cast)
                nbytes = a.nbytes + itemsize
                expected = float(np.sum(a if cast is None else a.astype(cast).astype(np.float64)))
            tol = _tolerance(op, dtype, n)
            row = _new_row(op, "roundtrip", n, (n,), dtype, nbytes, tol, input_dtype="float64")

            def check(call, operands, op=op, expected=expected, tol=tol):
                return _check(op, call, operands, expected, tol)

            def operands_of(name, operands=operands):
                return [operands]  # host data, read only: one set serves every library

            rows.append(_fill_row(row, op, libraries, operands_of, _wall_timer(settings), check))
            progress.advance()


# -- what users write ---------------------------------------------------------------------------


def _as_parts(result) -> list[np.ndarray]:
    """A result as NumPy arrays: each item of a tuple, device arrays copied back."""
    parts = result if isinstance(result, tuple) else (result,)
    return [
        np.asarray(gpuvec.asnumpy(p) if isinstance(p, gpuvec.DeviceArray) else p) for p in parts
    ]


def _normwise_error(got, expected) -> float:
    """``max |got - expected|`` over ``max |expected|``, all parts together, in float64.

    Unlike the elementwise relative error it stays meaningful where a result
    crosses zero (``2.5*a*b + a - 0.5``). inf for a shape mismatch, NaN for a NaN.
    """
    got, expected = _as_parts(got), _as_parts(expected)
    if [g.shape for g in got] != [e.shape for e in expected]:
        return math.inf
    g = np.concatenate([p.astype(np.float64).ravel() for p in got])
    e = np.concatenate([p.astype(np.float64).ravel() for p in expected])
    with np.errstate(all="ignore"):
        diff = float(np.max(np.abs(g - e), initial=0.0))
        scale = float(np.max(np.abs(e), initial=0.0))
    if math.isnan(diff):
        return math.nan
    return diff / max(scale, float(np.finfo(np.float64).tiny)) if diff else 0.0


def _context(workload, lib):
    """The context the library's calls of ``workload`` run in (a current stream), or none."""
    code = workload.context.get(lib.name)
    return eval(code, lib.namespace) if code else contextlib.nullcontext()  # our own text


def _shape_label(shape) -> str:
    return _label(shape[0]) if len(shape) == 1 else "x".join(str(s) for s in shape)


def _user_row(w, shape, dtype, libraries, settings, rng) -> dict:
    """One row of a workload: its data for every library, gpuvec's check, every library's time.

    Returns ``{"skip": reason}`` instead where the data would not fit in memory.
    """
    itemsize = np.dtype(dtype).itemsize
    n = math.prod(shape)
    in_shape = w.input_shape(shape) if w.input_shape else shape
    names, outputs, args = w.inputs.split(), w.outputs.split(), w.arg_names()
    in_bytes = len(names) * math.prod(in_shape) * itemsize
    device = w.kind == "bandwidth" and not w.host_data
    rotate = _rotation(in_bytes, settings.cache_bytes) if device else 1
    problem = _memory_problem(
        0 if w.host_data else rotate * in_bytes + 6 * n * itemsize,
        (3 + rotate) * in_bytes + 6 * n * 8,
    )
    if problem is not None:
        return {"skip": problem}
    tol = w.ulps * float(np.finfo(dtype).eps)
    row = _new_row(
        w.op,
        w.kind,
        n,
        shape,
        dtype,
        w.traffic(shape, itemsize),
        tol,
        group=USER_GROUP,
        data="host" if w.host_data else "device",
        baseline=w.baseline,
        rotate=rotate,
        note=w.note or None,
    )
    # float32 values drawn first, as in the sweep: the float64 reference sees the same numbers.
    host = {name: rng.random(in_shape, dtype=np.float32).astype(dtype) for name in names}
    setup, code = w.reference_code()
    scope = _libraries.run_setup(
        setup,
        {
            **{k: v.astype(np.float64) for k, v in host.items()},
            **{o: np.empty(shape) for o in outputs},
        },
        {"np": np},
    )
    reference = _libraries.compile_code(code, args, {"np": np}, f"{w.op} reference")
    expected = tuple(_as_parts(reference(*(scope[a] for a in args))))
    del scope
    try:
        sets = [] if w.host_data else [{k: gpuvec.to_device(v) for k, v in host.items()}]
        while sets and len(sets) < rotate:
            sets.append({k: v.copy() for k, v in sets[0].items()})
        for arrays in sets:
            arrays.update({o: gpuvec.empty(shape, dtype) for o in outputs})
        gpuvec.synchronize()
    except Exception as exc:
        row["error"] = f"setting up the data failed: {_error_text(exc)}"
        return row
    by_name = {lib.name: lib for lib in libraries}

    def operands_of(name):
        lib, result = by_name[name], []
        for r in range(rotate):
            if w.host_data:
                arrays = {**host, **{o: np.empty(shape, dtype) for o in outputs}}
            else:
                arrays = {k: lib.adopt(d, host.get(k), r > 0) for k, d in sets[r].items()}
            scope = _libraries.run_setup(lib.setup.get(w.op), arrays, lib.namespace)
            result.append(tuple(scope[a] for a in args))
        return result

    def check(call, operands):
        with _context(w, libraries[0]):
            error = _normwise_error(call(*operands), expected)
        return bool(error <= tol), error

    timer = {"bandwidth": _event_timer, "latency": _latency_timer, "roundtrip": _wall_timer}
    base = timer[w.kind](settings)

    def time_it(lib, call, operand_sets):
        with _context(w, lib):
            return base(lib, call, operand_sets)

    return _fill_row(row, w.op, libraries, operands_of, time_it, check)


def _users(libraries, settings, rows, skipped, progress, rng) -> None:
    """The rows of "what users write", each workload in its shapes and dtypes."""
    present = {lib.name for lib in libraries}
    for w in _libraries.WORKLOADS:
        if w.op not in settings.ops:
            continue
        shapes = w.shapes_for(settings.quick)
        dtypes = [d for d in w.dtypes if d in settings.dtypes]
        missing = [name for name in w.requires if name not in present]
        reason = None
        if w.device_only and gpuvec.backend() != "cuda":
            reason = "copies device memory back: there is none on the host backend"
        elif missing:
            reason = f"compares with {', '.join(missing)}, which is not measured here"
        elif not dtypes:
            reason = f"runs in {', '.join(w.dtypes)} only, which the dtypes asked for leave out"
        if reason is not None:
            skipped.append({"op": w.op, "n": None, "dtype": None, "reason": reason})
            progress.advance(len(shapes) * len(dtypes))
            continue
        for shape in shapes:
            for dtype in dtypes:
                progress.describe(f"{w.op} {_shape_label(shape)} {dtype}")
                row = _user_row(w, shape, dtype, libraries, settings, rng)
                if "skip" in row:
                    n = math.prod(shape)
                    skipped.append({"op": w.op, "n": n, "dtype": dtype, "reason": row["skip"]})
                else:
                    rows.append(row)
                progress.advance()
                _release(libraries)


def _device_support() -> dict[str, str]:
    """The optional benchmarks gpuvec cannot run on device data here, and why."""
    reasons = {}
    if not hasattr(gpuvec, "norm"):
        reasons["norm"] = "this gpuvec has no norm"
    else:
        try:
            float(gpuvec.norm(gpuvec.ones(4)))
        except Exception as exc:
            reasons["norm"] = f"gpuvec.norm does not take a DeviceArray here ({_error_text(exc)})"
    try:
        gpuvec.asnumpy(gpuvec.sum(gpuvec.ones((2, 3)), axis=1))
    except Exception as exc:
        reasons["sum_axis1"] = (
            f"gpuvec.sum(axis=) does not take a DeviceArray here ({_error_text(exc)})"
        )
    return reasons


def _describe_device() -> dict:
    if gpuvec.backend() == "cuda":
        info = dict(gpuvec.current_device().properties)
        info["compute_capability"] = list(info.get("compute_capability", ()))
        return info
    return {
        "name": "host (no GPU)",
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }


def _versions(libraries) -> dict:
    versions = {"gpuvec": gpuvec.__version__, "numpy": np.__version__}
    versions["python"] = platform.python_version()
    if gpuvec.backend() == "cuda":
        runtime, driver = _core.cuda_versions()
        versions["cuda_runtime"] = "{}.{}".format(*runtime)
        versions["cuda_driver"] = "{}.{}".format(*driver)
    for lib in libraries:
        versions[lib.name] = lib.version
    return versions


def _finish(results: dict) -> None:
    """Fills in each figure's percent of the copy bandwidth and gpuvec's speed ratio to peers."""
    reference = results["copy"].get("reference_gbps")
    by_op = {(row["op"], row["dtype"]): row for row in results["rows"]}
    # A baseline of several shapes is the row of the same shape.
    by_shape = {(r["op"], r["dtype"], str(r.get("shape"))): r for r in results["rows"]}
    for row in results["rows"]:
        ours = row["results"].get("gpuvec", {})
        key = (row.get("baseline"), row["dtype"])
        base = by_shape.get((*key, str(row.get("shape"))), by_op.get(key, {}))
        base = base.get("results", {})
        for name, entry in row["results"].items():
            if "median_ms" not in entry:
                continue
            if row.get("group") == USER_GROUP:
                entry["us_per_call"] = _round(entry["median_ms"] * 1e3)
            if base.get(name, {}).get("median_ms"):
                # time over the same library's time of the baseline row: above 1, slower
                entry["vs_baseline"] = _round(entry["median_ms"] / base[name]["median_ms"])
            if row["kind"] == "bandwidth" and reference and entry.get("gbps"):
                entry["pct_copy"] = _round(100 * entry["gbps"] / reference)
            else:
                entry["pct_copy"] = None
            if name != "gpuvec" and ours.get("median_ms"):
                # peer time / gpuvec time = gpuvec's speed / the peer's: above 1, gpuvec is faster
                entry["ratio"] = _round(entry["median_ms"] / ours["median_ms"])
    results["correct"] = all(row["correct"] for row in results["rows"] + results["kernels"])


def _command(command) -> str:
    if command is not None:
        return command
    if sys.argv and sys.argv[0].endswith(os.path.join("gpuvec", "bench", "__main__.py")):
        return " ".join(["python3 -m gpuvec.bench", *sys.argv[1:]])
    return "gpuvec.bench.run()"


def run(
    ops=None,
    sizes=None,
    dtypes=None,
    peers=None,
    *,
    repeat=None,
    warmup=None,
    max_seconds=None,
    quick=False,
    progress=True,
    seed=0,
    command=None,
) -> dict:
    """Runs the benchmarks and returns every number, as :func:`write` stores it.

    Parameters
    ----------
    ops : str or sequence of str, optional
        Benchmarks from :data:`OPS` and :data:`KERNEL_OPS` (a
        comma-separated string works; ``kernels`` stands for all of
        :data:`KERNEL_OPS`); default all.
    sizes : str or sequence of int, optional
        Element counts of the swept benchmarks, as for :func:`parse_sizes`
        (``"10:28"``: 2^10 through 2^28). Default 2^10..2^28 on the cuda
        backend and 2^10..2^24 on the host; sizes that would not fit in
        device memory are skipped.
    dtypes : str or sequence of str, optional
        ``float32`` and/or ``float64``; default both.
    peers : str or sequence of str, optional
        From ``cupy``, ``torch``, ``numpy`` and, for the kernel rows alone,
        ``numba``; default whichever import (NumPy alone on the host
        backend). ``"none"`` for none.
    repeat, warmup : int, optional
        Timed and untimed calls per figure (default 50 and 5; 5 and 1 with
        ``quick``).
    max_seconds : float, optional
        Time budget of each figure's warm-up and of its timed calls; once
        spent, timing stops after 3 calls. Default 1 s (0.2 s with ``quick``).
    quick : bool, optional
        A small, fast run: sizes 2^10, 2^12, 2^14 unless given, few calls.
        For CI: it checks that everything runs and is right, not how fast.
    progress : bool, optional
        Show a progress bar (tqdm, where it is installed).
    seed : int, optional
        Seed of the random input data.
    command : str, optional
        The command line to record; by default the one that ran.

    Returns
    -------
    dict
        The results: see ``docs`` of :mod:`gpuvec.bench` for the schema.
        ``results["correct"]`` is False if any gpuvec result disagreed
        with NumPy.

    Examples
    --------
    >>> import gpuvec.bench
    >>> results = gpuvec.bench.run(ops="add,sum", quick=True, progress=False)
    >>> results["correct"], sorted({row["op"] for row in results["rows"]})
    (True, ['add', 'sum'])
    """
    settings = make_settings(
        ops,
        sizes,
        dtypes,
        peers,
        repeat=repeat,
        warmup=warmup,
        max_seconds=max_seconds,
        quick=quick,
        seed=seed,
    )
    peers = settings.peers
    if peers is not None:  # Numba is loaded by the kernel rows, for themselves
        peers = tuple(name for name in peers if name in PEERS)
    libraries, peers_skipped = _libraries.load(peers, gpuvec.backend())
    support = _device_support()
    rng = np.random.default_rng(settings.seed)
    results = {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": _command(command),
        "backend": gpuvec.backend(),
        "device": _describe_device(),
        "host": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
        },
        "versions": _versions(libraries),
        "settings": {
            **dataclasses.asdict(settings),
            "peers": [lib.name for lib in libraries[1:]],
        },
        "timing": {
            "bandwidth": "events recorded just before and after each call (CUDA events on the "
            "cuda backend, the host clock for NumPy and on the host backend), so small sizes "
            "include the call's own overhead; after a warm-up; median of the runs; input sets "
            "rotate while they would fit in the cache",
            "latency": "wall time per call over a batch of calls that ends in a synchronize; "
            "median of the batches; fewer calls per batch where they would take longer than "
            "the time budget",
            "roundtrip": "wall time of one call that returns host data (NumPy data in and "
            "out, or a device array copied back); median of the runs",
            "kernels": _kernels.TIMING,
            "ratio": "peer time / gpuvec time: above 1, gpuvec is faster",
        },
        "peers_skipped": peers_skipped,
        "copy": {},
        "rows": [],
        "kernels": [],
        "skipped": [],
        "notes": [],
        "correct": False,
        "elapsed_s": None,
    }
    started = time.perf_counter()
    rows, skipped = results["rows"], results["skipped"]
    n_sweep = sum(op in SWEEP_OPS for op in settings.ops) * len(settings.sizes)
    n_fixed = sum(op not in SWEEP_OPS + USER_OPS + KERNEL_OPS for op in settings.ops)
    n_users = sum(
        len(w.shapes_for(settings.quick)) * len(set(w.dtypes) & set(settings.dtypes))
        for w in _libraries.WORKLOADS
        if w.op in settings.ops
    )
    total = 1 + (n_sweep + n_fixed) * len(settings.dtypes) + n_users
    total += _kernels.count(settings.ops)
    with Progress(total, enabled=progress) as bar:
        bar.describe("device copy bandwidth")
        results["copy"] = _copy_bandwidth(libraries, settings)
        bar.advance()
        _sweep(libraries, settings, support, rows, skipped, bar, rng)
        _matrix(libraries, settings, support, rows, skipped, bar, rng)
        _latency(libraries, settings, rows, bar)
        _roundtrip(libraries, settings, rows, bar, rng)
        _users(libraries, settings, rows, skipped, bar, rng)
        _kernels.run(libraries, settings, results, bar)
    for lib in libraries:
        results["notes"] += lib.notes
    _finish(results)
    results["elapsed_s"] = round(time.perf_counter() - started, 1)
    return results
