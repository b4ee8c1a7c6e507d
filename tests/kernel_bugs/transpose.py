"""A matrix transpose through a padded shared-memory tile."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define TILE 16
__global__ void transpose(const float* in, float* out, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();  // the tile is loaded
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
"""


def setup(rng):
    # Neither a multiple of the tile: the guards matter.
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 60)) | 1
    a = floats(rng, height, width)
    out = np.zeros((width, height), np.float32)
    grid = ((width + 15) // 16, (height + 15) // 16)
    launch = {"grid": grid, "block": (16, 16)}
    return (a, out, np.int32(width), np.int32(height)), launch, close(out, a.T)


KERNEL = Kernel(
    "transpose",
    SOURCE,
    setup,
    [
        Bug(
            "missing_barrier",
            "    __syncthreads();  // the tile is loaded\n",
            "",
            "RaceError",
            line="out[y * height + x] = tile",
        ),
        Bug(
            "reads_the_padding",
            "tile[threadIdx.x][threadIdx.y];",
            "tile[threadIdx.x][threadIdx.y + 1];",
            "UninitializedReadError",
        ),
        Bug(
            "swapped_store_guard",
            "if (x < height && y < width) out",
            "if (x < width && y < height) out",
            "UninitializedReadError",
        ),
    ],
)
