"""The naive transpose: read rows, write columns, straight from global memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
"""


def setup(rng):
    rows, cols = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    a = floats(rng, rows, cols)
    out = np.zeros((cols, rows), np.float32)
    launch = {"grid": ((cols + 15) // 16, (rows + 15) // 16), "block": (16, 16)}
    return (a, out, np.int32(rows), np.int32(cols)), launch, close(out, a.T)


KERNEL = Kernel(
    "transpose_naive",
    SOURCE,
    setup,
    [
        Bug(
            "guard_on_the_wrong_sides",
            "if (r < rows && c < cols)",
            "if (r < cols && c < rows)",
            "OutOfBoundsError",
        ),
        Bug(
            "output_stride_of_cols",
            "out[c * rows + r]",
            "out[c * cols + r]",
            "OutOfBoundsError",
        ),
    ],
)
