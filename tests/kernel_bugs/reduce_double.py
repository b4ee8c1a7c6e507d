"""A sum of doubles: a grid-stride loop into registers, then a tree in shared memory per block."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close

SOURCE = r"""
#define BLOCK 128
__global__ void sum_doubles(const double* x, double* partial, int n) {
    __shared__ double s[BLOCK];
    int t = threadIdx.x;
    double mine = 0.0;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) mine += x[i];
    s[t] = mine;
    __syncthreads();  // the threads' sums are in
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();  // a level done
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
"""


def setup(rng):
    # Fewer elements than the grid's threads: the last block is partly idle.
    n = int(rng.integers(650, 760)) | 1
    x = rng.standard_normal(n)
    blocks = 6
    partial = np.zeros(blocks, np.float64)
    # Each block's sum: the elements its threads stride over.
    owner = (np.arange(n) // 128) % blocks
    expected = np.array([x[owner == b].sum() for b in range(blocks)])
    launch = {"grid": blocks, "block": 128}
    return (x, partial, np.int32(n)), launch, close(partial, expected, 1e-12, 1e-12)


KERNEL = Kernel(
    "sum_doubles",
    SOURCE,
    setup,
    [
        Bug(
            "early_return",
            "    double mine = 0.0;",
            "    if (blockIdx.x * BLOCK + t >= n) return;\n    double mine = 0.0;",
            "BarrierDivergenceError",
            line="__syncthreads();  // the threads' sums are in",
        ),
        Bug(
            "half_the_shared_array",
            "__shared__ double s[BLOCK];",
            "__shared__ double s[BLOCK / 2];",
            "OutOfBoundsError",
            line="s[t] = mine;",
        ),
    ],
)
