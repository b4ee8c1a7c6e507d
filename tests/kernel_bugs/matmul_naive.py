"""A naive matrix product of rectangular matrices, one output element per thread."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void matmul_naive(const float* A, const float* B, float* C, int m, int k, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int j = 0; j < k; ++j) acc += A[row * k + j] * B[j * n + col];
        C[row * n + col] = acc;
    }
}
"""


def setup(rng):
    # C (m x n) = A (m x k) B (k x n), with k the smallest: a wrong stride shows.
    # n is never a multiple of the block's 16 columns, so the grid has spare columns
    # that a missing column guard lets read past B.
    m, k, n = int(rng.integers(40, 60)) | 1, int(rng.integers(10, 30)), int(rng.integers(33, 48))
    a, b = floats(rng, m, k), floats(rng, k, n)
    c = np.zeros((m, n), np.float32)
    launch = {"grid": ((n + 15) // 16, (m + 15) // 16), "block": (16, 16)}
    expected = a.astype(np.float64) @ b
    return (a, b, c, np.int32(m), np.int32(k), np.int32(n)), launch, close(c, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "matmul_naive",
    SOURCE,
    setup,
    [
        Bug("a_row_stride_of_n", "A[row * k + j]", "A[row * n + j]", "OutOfBoundsError"),
        Bug(
            "missing_column_guard",
            "if (row < m && col < n)",
            "if (row < m)",
            "OutOfBoundsError",
            line="acc += A[row * k + j] * B[j * n + col];",
        ),
    ],
)
