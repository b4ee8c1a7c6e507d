"""A tiled product of rectangular matrices, with 8x8 shared tiles."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define TILE 8
__global__ void matmul_rect(const float* A, const float* B, float* C, int m, int k, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < k; t0 += TILE) {
        if (row < m && t0 + tx < k) As[ty][tx] = A[row * k + t0 + tx];
        else As[ty][tx] = 0.0f;
        if (t0 + ty < k && col < n) Bs[ty][tx] = B[(t0 + ty) * n + col];
        else Bs[ty][tx] = 0.0f;
        __syncthreads();  // the tiles are loaded
        for (int j = 0; j < TILE; ++j) acc += As[ty][j] * Bs[j][tx];
        __syncthreads();  // the tiles are used
    }
    if (row < m && col < n) C[row * n + col] = acc;
}
"""


def setup(rng):
    # No dimension a multiple of the tile.
    m, k = int(rng.integers(20, 30)) | 1, int(rng.integers(30, 40)) | 1
    n = int(rng.integers(9, 20)) | 1
    a, b = floats(rng, m, k), floats(rng, k, n)
    c = np.zeros((m, n), np.float32)
    launch = {"grid": ((n + 7) // 8, (m + 7) // 8), "block": (8, 8)}
    expected = a.astype(np.float64) @ b
    return (a, b, c, np.int32(m), np.int32(k), np.int32(n)), launch, close(c, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "matmul_rect",
    SOURCE,
    setup,
    [
        Bug(
            "missing_use_barrier",
            "        __syncthreads();  // the tiles are used\n",
            "",
            "RaceError",
            line="if (row < m && t0 + tx < k) As[ty][tx]",
        ),
        Bug(
            "no_zero_fill",
            "        else As[ty][tx] = 0.0f;\n",
            "",
            "UninitializedReadError",
            line="acc += As[ty][j] * Bs[j][tx];",
        ),
        Bug(
            "b_guard_on_k",
            "if (t0 + ty < k && col < n) Bs",
            "if (t0 + ty < k && col < k) Bs",
            "OutOfBoundsError",
        ),
    ],
)
