"""SAXPY with a grid-stride loop."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void saxpy(int n, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
"""


def setup(rng):
    n = int(rng.integers(2000, 5000)) | 1
    a = np.float32(rng.random() * 4 - 2)
    x, y = floats(rng, n), floats(rng, n)
    expected = a * x + y
    return (np.int32(n), a, x, y), {"grid": 4, "block": 128}, close(y, expected)


KERNEL = Kernel(
    "saxpy",
    SOURCE,
    setup,
    [Bug("loop_off_by_one", "i < n;", "i <= n;", "OutOfBoundsError", line="y[i] = a * x[i]")],
)
