"""NumPy in, NumPy out: gpuvec's staging pipeline against the simple ways.

Times ``gpuvec.add(a, b)`` and ``gpuvec.sum(a)`` on float64 host vectors of
2^24 elements (wall clock, best and median of several runs), natively and
with float32 precision, beside NumPy on the same host.

Usage: python3 benchmarks/roundtrip.py [--n 16777216] [--repeat 10]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import gpuvec


def wall_ms(fn, repeat: int) -> tuple[float, float]:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return min(times), statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng()
    a, b = rng.random(args.n), rng.random(args.n)
    out = np.empty_like(a)
    rows = [
        ("add f64", lambda: gpuvec.add(a, b), lambda: np.add(a, b)),
        ("add f64, out=", lambda: gpuvec.add(a, b, out=out), lambda: np.add(a, b, out=out)),
        ("add as f32", lambda: gpuvec.add(a, b, dtype=np.float32), None),
        ("sum f64", lambda: gpuvec.sum(a), lambda: np.sum(a)),
        ("sum as f32", lambda: gpuvec.sum(a, dtype=np.float32), None),
        ("add step-2 view", lambda: gpuvec.add(a[::2], b[::2]), lambda: np.add(a[::2], b[::2])),
    ]
    print(f"backend {gpuvec.backend()}, n = {args.n:,} float64 host vectors; ms best / median")
    ok = np.array_equal(gpuvec.add(a, b), a + b)
    ok &= abs(gpuvec.sum(a) - a.sum()) <= 1e-9 * a.sum()
    for name, ours, numpy_version in rows:
        best, median = wall_ms(ours, args.repeat)
        line = f"  {name:16s} gpuvec {best:7.2f} / {median:7.2f}"
        if numpy_version is not None:
            nbest, nmedian = wall_ms(numpy_version, args.repeat)
            line += f"   NumPy {nbest:7.2f} / {nmedian:7.2f}"
        print(line)
    print(f"  results agree with NumPy: {bool(ok)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
