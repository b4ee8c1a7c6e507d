"""A ReductionKernel against CuPy's: the sum of squares of 2^24 float32.

The kernel reads one array once and writes one number, so it runs at the
memory bandwidth when it runs well: gpuvec's ReductionKernel is compiled
into gpuvec's own reduction engine, so it should match ``gpuvec.sum`` on the
same bytes, and CuPy's ReductionKernel doing the same. Times are medians of
CUDA events around each launch, into a preallocated out, on device-resident
arrays; the result is checked against a float64 NumPy reference first.

Usage: python3 benchmarks/reduction_kernel.py [--n 16777216] [--repeat 200]
"""

from __future__ import annotations

import argparse

import numpy as np
from elementwise_kernel import event_us, gpuvec_events  # this folder's: the same timing

import gpuvec

SPEC = ("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_squares")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    if gpuvec.backend() != "cuda":
        print(f"needs the cuda backend; gpuvec runs on {gpuvec.backend()}")
        return 1
    rng = np.random.default_rng(0)
    x_host = rng.random(args.n, dtype=np.float32)
    expected = np.sum(x_host.astype(np.float64) ** 2)

    kernel = gpuvec.ReductionKernel(*SPEC)
    x = gpuvec.to_device(x_host)
    out = gpuvec.empty((), np.float32)
    kernel(x, out=out)
    got = float(out.to_host())
    assert abs(got - expected) <= 1e-5 * expected, f"the kernel's sum {got} is not {expected}"
    gbs = 4 * args.n / 1e3  # bytes read per microsecond, in GB/s
    ours = event_us(lambda: kernel(x, out=out), args.repeat, gpuvec_events)
    total = event_us(lambda: gpuvec.sum(x), args.repeat, gpuvec_events)
    print(f"gpuvec.ReductionKernel  {ours:8.1f} us  {gbs / ours:7.0f} GB/s")
    print(f"gpuvec.sum (same bytes) {total:8.1f} us  {gbs / total:7.0f} GB/s")
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not installed: no comparison")
        return 0
    theirs_kernel = cp.ReductionKernel(*SPEC)
    cx = cp.asarray(x_host)
    cout = cp.empty((), cp.float32)

    def cupy_events():
        return cp.cuda.Event(), cp.cuda.Event(), cp.cuda.get_elapsed_time

    theirs = event_us(lambda: theirs_kernel(cx, out=cout), args.repeat, cupy_events)
    print(f"CuPy ReductionKernel    {theirs:8.1f} us  {gbs / theirs:7.0f} GB/s")
    print(f"ratio to CuPy {ours / theirs:.3f}, to gpuvec.sum {ours / total:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
