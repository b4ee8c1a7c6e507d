"""A transpose through a 32x32 shared tile without padding (bank conflicts and all),
for matrices whose sides are multiples of the tile, as the course's version assumes."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define TILE 32
#define ROWS 8
__global__ void transpose_tile(const float* in, float* out, int width, int height) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();  // the tile is loaded
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""


def setup(rng):
    height, width = 32 * int(rng.integers(1, 3)), 32 * int(rng.integers(2, 4))
    a = floats(rng, height, width)
    out = np.zeros((width, height), np.float32)
    launch = {"grid": (width // 32, height // 32), "block": (32, 8)}
    return (a, out, np.int32(width), np.int32(height)), launch, close(out, a.T)


def _one_block_too_many(launch):
    # The grid of the guarded kernels, (height + TILE) / TILE blocks high,
    # for a kernel that has no guard.
    x, y = launch["grid"]
    return {**launch, "grid": (x, y + 1)}


KERNEL = Kernel(
    "transpose_tile",
    SOURCE,
    setup,
    [
        Bug(
            "missing_barrier",
            "    __syncthreads();  // the tile is loaded\n",
            "",
            "RaceError",
            line="out[(y + j) * height + x] = tile",
        ),
        Bug(
            "grid_one_block_too_high",
            "",
            "",
            "OutOfBoundsError",
            line="tile[threadIdx.y + j][threadIdx.x] = in[",
            launch=_one_block_too_many,
        ),
    ],
)
