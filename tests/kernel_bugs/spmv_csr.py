"""A sparse matrix-vector product in CSR form, one row per thread (the scalar kernel)."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void spmv_csr(const int* row_ptr, const int* col, const float* val, const float* x,
                         float* y, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j) dot += val[j] * x[col[j]];
        y[row] = dot;
    }
}
"""


def setup(rng):
    rows, cols = int(rng.integers(100, 200)) | 1, int(rng.integers(50, 150))
    dense = floats(rng, rows, cols) * (rng.random((rows, cols)) < 0.1)
    dense[-1, -1] = 1.0  # the last row is not empty
    r, c = np.nonzero(dense)
    row_ptr = np.searchsorted(r, np.arange(rows + 1)).astype(np.int32)
    x = floats(rng, cols)
    y = np.zeros(rows, np.float32)
    args = (row_ptr, c.astype(np.int32), dense[r, c], x, y, np.int32(rows))
    launch = {"grid": (rows + 63) // 64, "block": 64}
    return args, launch, close(y, dense.astype(np.float64) @ x, 1e-5, 1e-5)


KERNEL = Kernel(
    "spmv_csr",
    SOURCE,
    setup,
    [
        Bug(
            "row_guard_off_by_one",
            "if (row < rows)",
            "if (row <= rows)",
            "OutOfBoundsError",
            line="for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)",
        ),
        Bug(
            "inclusive_row_end",
            "j < row_ptr[row + 1];",
            "j <= row_ptr[row + 1];",
            "OutOfBoundsError",
        ),
    ],
)
