"""Elementwise addition of two matrices over a 2-D grid of 2-D blocks."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void add_2d(const float* a, const float* b, float* c, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        int k = row * cols + col;
        c[k] = a[k] + b[k];
    }
}
"""


def setup(rng):
    # Neither dimension a multiple of the block's: both guards matter. More
    # rows than columns: a stride of rows runs past the end.
    rows, cols = int(rng.integers(61, 90)) | 1, int(rng.integers(30, 60)) | 1
    a, b = floats(rng, rows, cols), floats(rng, rows, cols)
    c = np.zeros((rows, cols), np.float32)
    launch = {"grid": ((cols + 31) // 32, (rows + 7) // 8), "block": (32, 8)}
    return (a, b, c, np.int32(rows), np.int32(cols)), launch, close(c, a + b)


KERNEL = Kernel(
    "add_2d",
    SOURCE,
    setup,
    [
        Bug(
            "missing_row_guard",
            "if (row < rows && col < cols)",
            "if (col < cols)",
            "OutOfBoundsError",
            line="c[k] = a[k] + b[k];",
        ),
        Bug(
            "rows_for_the_stride",
            "int k = row * cols + col;",
            "int k = row * rows + col;",
            "OutOfBoundsError",
            line="c[k] = a[k] + b[k];",
        ),
    ],
)
