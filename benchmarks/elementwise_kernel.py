"""An ElementwiseKernel against CuPy's: ``c = 2.5f * a * b + a - 0.5f`` on 2^24 float32.

The kernel reads two arrays and writes one, so it is one pass at the memory
bandwidth when it runs well: the target is within 5% of CuPy's
ElementwiseKernel doing the same. gpuvec's own ``add`` moves the same bytes,
and is shown beside it. Times are medians of CUDA events around each launch,
into a preallocated out, on device-resident arrays; the result is checked
against NumPy's float32 arithmetic first.

Usage: python3 benchmarks/elementwise_kernel.py [--n 16777216] [--repeat 200]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import gpuvec

SPEC = ("float32 a, float32 b", "float32 c", "c = 2.5f * a * b + a - 0.5f", "axpb")


def event_us(fn, repeat: int, events) -> float:
    """Median microseconds of fn() between two events, after a warm-up."""
    for _ in range(10):
        fn()
    times = []
    for _ in range(repeat):
        start, end, elapsed_ms = events()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(elapsed_ms(start, end) * 1000)
    return statistics.median(times)


def gpuvec_events():
    return gpuvec.Event(), gpuvec.Event(), lambda s, e: s.elapsed_time(e)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    if gpuvec.backend() != "cuda":
        print(f"needs the cuda backend; gpuvec runs on {gpuvec.backend()}")
        return 1
    rng = np.random.default_rng(0)
    a_host = rng.random(args.n, dtype=np.float32)
    b_host = rng.random(args.n, dtype=np.float32)
    expected = np.float32(2.5) * a_host * b_host + a_host - np.float32(0.5)

    kernel = gpuvec.ElementwiseKernel(*SPEC)
    a, b = gpuvec.to_device(a_host), gpuvec.to_device(b_host)
    out = gpuvec.empty(args.n, np.float32)
    kernel(a, b, out)
    assert np.array_equal(out.to_host(), expected), "the kernel's result is not NumPy's"
    ours = event_us(lambda: kernel(a, b, out), args.repeat, gpuvec_events)
    add = event_us(lambda: gpuvec.add(a, b, out=out), args.repeat, gpuvec_events)
    print(f"gpuvec.ElementwiseKernel  {ours:8.1f} us")
    print(f"gpuvec.add (same bytes)   {add:8.1f} us")
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not installed: no comparison")
        return 0
    theirs_kernel = cp.ElementwiseKernel(*SPEC)
    ca, cb = cp.asarray(a_host), cp.asarray(b_host)
    cout = cp.empty(args.n, cp.float32)

    def cupy_events():
        return cp.cuda.Event(), cp.cuda.Event(), cp.cuda.get_elapsed_time

    theirs = event_us(lambda: theirs_kernel(ca, cb, cout), args.repeat, cupy_events)
    print(f"CuPy ElementwiseKernel    {theirs:8.1f} us")
    print(f"ratio {ours / theirs:.3f} (target: at most 1.05)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
