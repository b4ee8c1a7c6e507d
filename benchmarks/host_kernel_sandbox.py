"""What the host backend's kernel sandbox costs: a tree reduction and a vector addition.

The classic block reduction (``gpuvec.kernels.classics.TREE_SUM``): 2^20
float32 in 256-thread blocks, each block's threads meeting at
``__syncthreads()`` eight times. It is the emulation's heaviest common case
(a fiber switch per thread per barrier). And a vector addition, ``c[i] =
a[i] + b[i]`` over 2^24 float32, one thread per element in 256-thread
blocks, its inputs ``const float*`` or ``float*``: the commonest kernel, in
which checked mode's bounds checks and race records are all there is to
pay. Each runs unchecked and checked. Times are the best of `--repeat`
launches, in milliseconds, after one warm-up launch; the result is checked
first.

Usage: python3 benchmarks/host_kernel_sandbox.py [--n 1048576] [--vecadd-n 16777216] [--repeat 20]
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


VECADD = r"""
__global__ void vecadd_const(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
__global__ void vecadd(float* a, float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def vecadd_rows(n: int, repeat: int) -> None:
    """Prints the vector addition's times: const and non-const inputs, unchecked and checked."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.empty(n, np.float32)
    module = gpuvec.SourceModule(VECADD)
    for name, inputs in (("vecadd_const", "const float*"), ("vecadd", "float*")):
        kernel = getattr(module, name)
        for check in (False, True):

            def run(kernel=kernel, check=check):
                kernel(a, b, c, np.int32(n), grid=(n + 255) // 256, block=256, check=check)

            c[:] = 0
            run()
            np.testing.assert_array_equal(c, a + b)
            label = "checked" if check else "unchecked"
            print(
                f"vector addition, {n} float32, {inputs} inputs, 256-thread blocks, {label}: "
                f"{best_ms(run, repeat):.1f} ms"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--vecadd-n", type=int, default=1 << 24)
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
    vecadd_rows(args.vecadd_n, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
