"""Tiled matrix multiplication with shared-memory tiles."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define TILE 16
__global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        int ax = t0 + threadIdx.x, by = t0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < n && ax < n ? A[row * n + ax] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = by < n && col < n ? B[by * n + col] : 0.0f;
        __syncthreads();  // the tiles are loaded
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();  // the tiles are used
    }
    if (row < n && col < n) C[row * n + col] = acc;
}
"""


def setup(rng):
    n = int(rng.integers(33, 48))  # not a multiple of the tile
    a, b = floats(rng, n, n), floats(rng, n, n)
    c = np.zeros((n, n), np.float32)
    blocks = (n + 15) // 16
    expected = a.astype(np.float64) @ b
    launch = {"grid": (blocks, blocks), "block": (16, 16)}
    return (a, b, c, np.int32(n)), launch, close(c, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "matmul",
    SOURCE,
    setup,
    [
        Bug(
            "missing_load_barrier",
            "        __syncthreads();  // the tiles are loaded\n",
            "",
            "RaceError",
            line="acc += As[threadIdx.y][k]",
        ),
        Bug(
            "missing_use_barrier",
            "        __syncthreads();  // the tiles are used\n",
            "",
            "RaceError",
            line="As[threadIdx.y][threadIdx.x] = ",
        ),
        Bug(
            "unguarded_tile_load",
            "row < n && ax < n ? A[row * n + ax] : 0.0f;",
            "A[row * n + ax];",
            "OutOfBoundsError",
        ),
    ],
)
