"""What the host backend's kernel sandbox costs: a shared-memory tree reduction.

The classic block reduction (``gpuvec.kernels.classics.TREE_SUM``): 2^20
float32 in 256-thread blocks, each block's threads meeting at
``__syncthreads()`` eight times. It is the emulation's heaviest common case
(a fiber switch per thread per barrier), run unchecked and checked
(bounds-checked pointers). Times are the best of `--repeat` launches, in
milliseconds, after one warm-up launch; the result is checked first.

Usage: python3 benchmarks/host_kernel_sandbox.py [--n 1048576] [--repeat 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import gpuvec
from gpuvec.kernels.classics import TREE_SUM


def best_ms(run, repeat: int) -> float:
    """The fastest of `repeat` calls of run(), in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return 1e3 * best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if gpuvec.backend() != "host":
        print(f"measures the host backend; gpuvec runs on {gpuvec.backend()}")
        return 1
    rng = np.random.default_rng(0)
    x = rng.standard_normal(args.n).astype(np.float32)
    blocks = (args.n + 255) // 256
    out = np.empty(blocks, np.float32)
    kernel = gpuvec.SourceModule(TREE_SUM).block_sums
    padded = np.zeros(blocks * 256, np.float64)
    padded[: args.n] = x
    expected = padded.reshape(-1, 256).sum(axis=1)
    for check in (False, True):

        def run(check=check):
            kernel(x, out, args.n, grid=blocks, block=256, check=check)

        run()
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-3)
        label = "checked" if check else "unchecked"
        print(
            f"tree reduction, {args.n} float32, 256-thread blocks, {label}: "
            f"{best_ms(run, args.repeat):.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
