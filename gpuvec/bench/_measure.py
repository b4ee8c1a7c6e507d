"""What the benchmarks share: the settings of a run, its timers, and how
figures, errors and results are written down.

Both the library benchmarks (``_suite``) and the users' kernel rows
(``_kernels``) build on these; neither imports the other's helpers.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import statistics

import numpy as np

import gpuvec
from gpuvec.bench import _timing

# Users' own kernels (_kernels.py): a table and a list of results of their own, apart from
# OPS and "rows", since their figures come in their own units, each with its target.
# "--ops kernels" names them all.
KERNEL_OPS = (
    "kernel_launch",
    "kernel_launch_indexed",
    "kernel_compile",
    "kernel_cached_load",
    "kernel_host_vecadd",
    "kernel_host_tree_sum",
    "kernel_host_warp_sum",
    "kernel_host_fiber",
)

# Headroom kept free on the device: the peers' own buffers, the CUDA context, fragmentation.
_MEMORY_MARGIN = 1.25
_MEMORY_SLACK = 512 << 20


@dataclasses.dataclass
class Settings:
    """What one run measures, and how hard it tries."""

    ops: tuple[str, ...]
    sizes: tuple[int, ...]
    dtypes: tuple[str, ...]
    peers: tuple[str, ...] | None
    repeat: int
    warmup: int
    max_seconds: float
    quick: bool
    seed: int
    tiny_calls: int
    tiny_batches: int
    roundtrip_n: int
    matrix_n: int
    copy_n: int
    cache_bytes: int


def _round(value: float) -> float:
    """Six significant digits: finer than any timer here resolves, and a smaller JSON."""
    return float(f"{value:.6g}")


def _entry(times_ms: list[float], nbytes: int | None, how: str, **extra) -> dict:
    median = statistics.median(times_ms)
    gbps = nbytes / (median * 1e-3) / 1e9 if nbytes and median > 0 else None
    return {
        "how": how,
        "median_ms": _round(median),
        "min_ms": _round(min(times_ms)),
        "runs": len(times_ms),
        "times_ms": [_round(t) for t in times_ms],
        "gbps": None if gbps is None else _round(gbps),
        **extra,
    }


def _error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 500 else text[:497] + "..."


def _max_rel_error(got, expected) -> float:
    """The largest ``|got - expected| / |expected|``, in float64, chunk by chunk.

    NaN where ``got`` has a NaN that ``expected`` has not; inf for a shape mismatch.
    """
    got = np.asarray(got)
    expected = np.asarray(expected, dtype=np.float64)
    if got.shape != expected.shape:
        return math.inf
    got, expected = got.reshape(-1), expected.reshape(-1)
    tiny = np.finfo(np.float64).tiny
    worst = 0.0
    chunk = 1 << 22  # bounds the temporaries at 2^28 elements
    for start in range(0, got.size, chunk):
        g = got[start : start + chunk].astype(np.float64)
        e = expected[start : start + chunk]
        with np.errstate(all="ignore"):
            rel = float(np.max(np.abs(g - e) / np.maximum(np.abs(e), tiny)))
        if math.isnan(rel):
            return math.nan
        worst = max(worst, rel)
    return worst


def _json_float(value: float) -> float | None:
    return _round(value) if math.isfinite(value) else None


def _memory_problem(device_bytes: int, host_bytes: int) -> str | None:
    """Why ``device_bytes`` of new device arrays (and host data) would not fit, or None."""
    info = gpuvec.memory_info()
    free = info["device_free"] + info.get("cached", 0)
    need = int(device_bytes * _MEMORY_MARGIN) + _MEMORY_SLACK
    if gpuvec.backend() == "host":
        need += int(host_bytes * _MEMORY_MARGIN)  # the "device" is host memory too
    if need > free:
        where = "device" if gpuvec.backend() == "cuda" else "host"
        return f"needs about {need / 2**30:.1f} GiB of {where} memory, {free / 2**30:.1f} GiB free"
    return None


def _release(libraries) -> None:
    """Drops cached device memory everywhere, between sizes, so the next one has room."""
    gc.collect()
    for lib in reversed(libraries):  # peers first: they may hold views of gpuvec's memory
        try:
            lib.release()
        except Exception:  # releasing a cache is best effort; the next allocation will tell
            pass


def _event_timer(settings: Settings):
    def time_it(lib, call, sets):
        return _timing.measure(
            call,
            sets,
            lib.clock(),
            repeat=settings.repeat,
            warmup=settings.warmup,
            max_seconds=settings.max_seconds,
        )

    return time_it


def _wall_timer(settings: Settings):
    def time_it(lib, call, sets):
        return _timing.measure(
            call,
            sets,
            _timing.WallClock(),
            repeat=settings.repeat,
            warmup=settings.warmup,
            max_seconds=settings.max_seconds,
        )

    return time_it


def _latency_timer(settings: Settings):
    def time_it(lib, call, sets):
        return _timing.per_call(
            call,
            sets[0],
            lib.synchronize,
            calls=settings.tiny_calls,
            batches=settings.tiny_batches,
            warmup=max(10, settings.tiny_calls // 25),
            max_seconds=settings.max_seconds,
        )

    return time_it
