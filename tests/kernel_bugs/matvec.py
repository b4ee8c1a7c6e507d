"""A matrix-vector product, one row per thread."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void matvec(const float* A, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c) acc += A[r * cols + c] * x[c];
        y[r] = acc;
    }
}
"""


def setup(rng):
    # More rows than columns, and rows not a multiple of the block.
    rows, cols = int(rng.integers(60, 100)) | 1, int(rng.integers(20, 50))
    a, x = floats(rng, rows, cols), floats(rng, cols)
    y = np.zeros(rows, np.float32)
    expected = a.astype(np.float64) @ x
    launch = {"grid": (rows + 31) // 32, "block": 32}
    return (a, x, y, np.int32(rows), np.int32(cols)), launch, close(y, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "matvec",
    SOURCE,
    setup,
    [
        Bug(
            "row_guard_off_by_one",
            "if (r < rows)",
            "if (r <= rows)",
            "OutOfBoundsError",
            line="acc += A[r * cols + c]",
        ),
        Bug("wrong_row_stride", "A[r * cols + c]", "A[r * rows + c]", "OutOfBoundsError"),
    ],
)
