"""A matrix-vector product, one row per thread, with x staged in shared memory by chunks."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define CHUNK 64
__global__ void matvec_shared(const float* A, const float* x, float* y, int rows, int cols) {
    __shared__ float xs[CHUNK];
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += CHUNK) {
        int width = min(CHUNK, cols - c0);
        if (threadIdx.x < width) xs[threadIdx.x] = x[c0 + threadIdx.x];
        __syncthreads();  // the chunk of x is in
        if (r < rows)
            for (int c = 0; c < width; ++c) acc += A[r * cols + c0 + c] * xs[c];
        __syncthreads();  // the chunk is used
    }
    if (r < rows) y[r] = acc;
}
"""


def setup(rng):
    rows, cols = int(rng.integers(100, 200)) | 1, int(rng.integers(150, 250)) | 1
    a, x = floats(rng, rows, cols), floats(rng, cols)
    y = np.zeros(rows, np.float32)
    expected = a.astype(np.float64) @ x
    launch = {"grid": (rows + 63) // 64, "block": 64}
    return (a, x, y, np.int32(rows), np.int32(cols)), launch, close(y, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "matvec_shared",
    SOURCE,
    setup,
    [
        Bug(
            "missing_use_barrier",
            "        __syncthreads();  // the chunk is used\n",
            "",
            "RaceError",
            line="if (threadIdx.x < width) xs[threadIdx.x]",
        ),
        Bug(
            "unguarded_chunk_load",
            "if (threadIdx.x < width) xs[threadIdx.x] = x[c0 + threadIdx.x];",
            "xs[threadIdx.x] = x[c0 + threadIdx.x];",
            "OutOfBoundsError",
        ),
        Bug(
            "barrier_in_row_guard",
            "        __syncthreads();  // the chunk of x is in\n        if (r < rows)\n"
            "            for (int c = 0; c < width; ++c) acc += A[r * cols + c0 + c] * xs[c];\n"
            "        __syncthreads();  // the chunk is used\n",
            "        if (r < rows) {\n            __syncthreads();  // the chunk of x is in\n"
            "            for (int c = 0; c < width; ++c) acc += A[r * cols + c0 + c] * xs[c];\n"
            "            __syncthreads();  // the chunk is used\n        }\n",
            "BarrierDivergenceError",
            line="__syncthreads();  // the chunk of x is in",
        ),
    ],
)
