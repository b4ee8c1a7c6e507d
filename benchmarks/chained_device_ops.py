"""Chained device ops move no data: axpy then dot on device-resident arrays.

Times ``t = axpy(alpha, x, y); r = dot(t, y)`` on 2^24 float32 elements with
CUDA events, checks with gpuvec's transfer counters that nothing crossed
PCIe during the chain, and compares the chain's time with the time of each
kernel alone and with the bytes the two kernels must move.

Usage: python3 benchmarks/chained_device_ops.py [--n 16777216] [--repeat 50]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import gpuvec
from gpuvec import _core


def event_ms(fn, repeat: int) -> float:
    """Median milliseconds of fn() between two events, after a warm-up."""
    fn()
    times = []
    for _ in range(repeat):
        start, end = gpuvec.Event(), gpuvec.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    rng = np.random.default_rng()
    x_host = rng.standard_normal(args.n).astype(np.float32)
    y_host = rng.standard_normal(args.n).astype(np.float32)
    x, y = gpuvec.to_device(x_host), gpuvec.to_device(y_host)
    t = gpuvec.empty_like(x)

    def axpy():
        gpuvec.axpy(2.0, x, y, out=t)

    def dot():
        return gpuvec.dot(t, y)

    def chain():
        gpuvec.axpy(2.0, x, y, out=t)
        return gpuvec.dot(t, y)

    before = _core.transfer_counts()
    t_axpy, t_dot, t_chain = (event_ms(f, args.repeat) for f in (axpy, dot, chain))
    moved = np.subtract(_core.transfer_counts(), before)
    result = float(chain())  # the one copy to the host: the final scalar

    expected = np.dot((np.float32(2.0) * x_host + y_host).astype(np.float64), y_host)
    nbytes = 4 * args.n
    print(f"backend {gpuvec.backend()}, n = {args.n:,} float32, median of {args.repeat}")
    print(f"  axpy alone   {t_axpy:8.3f} ms  {3 * nbytes / t_axpy / 1e6:8.1f} GB/s")
    print(f"  dot alone    {t_dot:8.3f} ms  {2 * nbytes / t_dot / 1e6:8.1f} GB/s")
    print(f"  axpy + dot   {t_chain:8.3f} ms  (sum of the two alone: {t_axpy + t_dot:.3f} ms)")
    print(f"  bytes copied host<->device during the timed chains: {moved[0]} in, {moved[1]} out")
    ok = moved.sum() == 0 and abs(result - expected) <= 1e-4 * np.abs(expected) + 1e-3
    print(f"  result {result:.6g} vs NumPy float64 {expected:.6g}: {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
