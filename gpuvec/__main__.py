"""``python3 -m gpuvec``: what gpuvec runs on, the classic examples, and a timing.

Exits with status 1 if any example disagrees with NumPy.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import gpuvec as gv
from gpuvec import _core
from gpuvec._backend import _cuda_unusable_reason
from gpuvec._errors import HostFallbackWarning


def _describe_backend() -> None:
    # The fallback's reason is printed below, once: not as a warning too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostFallbackWarning)
        name = gv.backend()
    print(f"gpuvec {gv.__version__}: backend '{name}'")
    if name == "cuda":
        runtime, driver = _core.cuda_versions()
        for d in gv.devices():
            major, minor = d["compute_capability"]
            print(
                f"  device {d['id']}: {d['name']}, compute capability {major}.{minor}, "
                f"{d['total_memory'] / 2**30:.1f} GiB, {d['multiprocessors']} SMs"
            )
        print(f"  CUDA runtime {runtime[0]}.{runtime[1]}, driver {driver[0]}.{driver[1]}")
    else:
        print(f"  why not CUDA: {_cuda_unusable_reason() or 'the host backend was selected'}")


def _examples(gv, rng) -> list[tuple[str, bool]]:
    checks = []

    a, b = rng.random(1_000_003), rng.random(1_000_003)
    checks.append(("add two random float64 vectors", np.array_equal(gv.add(a, b), a + b)))

    m = rng.random((4, 4)).astype(np.float32)
    doubled = gv.scale(m, 2.0)
    checks.append(("double a 4x4 float32 matrix", np.array_equal(doubled, 2 * m)))

    x = np.arange(53735, dtype=np.float64)
    total = gv.sum(x)
    checks.append((f"sum of arange(53735) = {total:.0f}", total == 53734 * 53735 // 2))
    return checks


def _best_seconds(fn, repeat=5) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _timings(gv, rng, n=1 << 24) -> None:
    a, b = rng.random(n), rng.random(n)
    print(f"\nTimings, float64 vectors of 2^{n.bit_length() - 1} elements, NumPy in and out:")
    rows = [
        ("add", 3 * a.nbytes, lambda: gv.add(a, b), lambda: np.add(a, b)),
        ("sum", a.nbytes, lambda: gv.sum(a), lambda: np.sum(a)),
    ]
    for name, nbytes, ours, numpy_version in rows:
        t_ours, t_numpy = _best_seconds(ours), _best_seconds(numpy_version)
        print(
            f"  {name}: gpuvec {t_ours * 1e3:7.2f} ms ({nbytes / t_ours / 1e9:6.1f} GB/s)   "
            f"NumPy {t_numpy * 1e3:7.2f} ms ({nbytes / t_numpy / 1e9:6.1f} GB/s)"
        )


def main() -> int:
    _describe_backend()
    rng = np.random.default_rng()
    print("\nClassic examples, checked against NumPy:")
    checks = _examples(gv, rng)
    for what, ok in checks:
        print(f"  [{'ok' if ok else 'FAILED'}] {what}")
    _timings(gv, rng)
    failed = sum(not ok for _, ok in checks)
    print(
        f"\n{failed} of {len(checks)} checks failed"
        if failed
        else "\nAll checks agree with NumPy."
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
