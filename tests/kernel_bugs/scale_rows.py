"""Scaling each row of a matrix by its own factor, through a pointer to the row."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void scale_rows(float* A, const float* factors, int rows, int cols) {
    int r = blockIdx.x;
    float* row = A + r * cols;  // one block per row
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] *= factors[r];
}
"""


def setup(rng):
    rows, cols = int(rng.integers(60, 90)) | 1, int(rng.integers(30, 59)) | 1
    a, factors = floats(rng, rows, cols), floats(rng, rows)
    expected = a * factors[:, None]
    launch = {"grid": rows, "block": 32}
    return (a, factors, np.int32(rows), np.int32(cols)), launch, close(a, expected)


KERNEL = Kernel(
    "scale_rows",
    SOURCE,
    setup,
    [
        # Writes through a pointer derived from a parameter.
        Bug(
            "column_off_by_one",
            "c < cols;",
            "c <= cols;",
            "OutOfBoundsError",
            line="row[c] *= factors[r];",
        ),
        Bug(
            "row_stride_of_rows",
            "float* row = A + r * cols;",
            "float* row = A + r * rows;",
            "OutOfBoundsError",
            line="row[c] *= factors[r];",
        ),
    ],
)
