"""The sum of each row of a matrix: one block per row, a strided loop, a tree in shared memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 64
__global__ void row_sums(const float* A, float* sums, int rows, int cols) {
    __shared__ float s[BLOCK];
    int row = blockIdx.x, t = threadIdx.x;
    float mine = 0.0f;
    for (int c = t; c < cols; c += BLOCK) mine += A[row * cols + c];
    s[t] = mine;
    __syncthreads();  // the partial sums are in
    for (int k = BLOCK / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();  // a level done
    }
    if (t == 0) sums[row] = s[0];
}
"""


def setup(rng):
    rows, cols = int(rng.integers(10, 30)) | 1, int(rng.integers(100, 300)) | 1
    a = floats(rng, rows, cols)
    sums = np.zeros(rows, np.float32)
    expected = a.astype(np.float64).sum(axis=1)
    launch = {"grid": rows, "block": 64}
    return (a, sums, np.int32(rows), np.int32(cols)), launch, close(sums, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "row_sums",
    SOURCE,
    setup,
    [
        Bug("column_off_by_one", "c < cols;", "c <= cols;", "OutOfBoundsError", line="mine += A["),
        Bug(
            "missing_partial_barrier",
            "    __syncthreads();  // the partial sums are in\n",
            "",
            "RaceError",
            line="if (t < k) s[t] += s[t + k];",
        ),
        Bug(
            "first_level_too_wide",
            "for (int k = BLOCK / 2;",
            "for (int k = BLOCK;",
            "OutOfBoundsError",
            line="if (t < k) s[t] += s[t + k];",
        ),
    ],
)
