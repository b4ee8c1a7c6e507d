"""Scaling a vector in place with a grid-stride loop, a few blocks for any size."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void scale(float* x, float factor, int n) {
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] *= factor;
}
"""


def setup(rng):
    n = int(rng.integers(3000, 6000)) | 1
    x = floats(rng, n)
    factor = np.float32(rng.random() * 4 - 2)
    expected = x * factor
    return (x, factor, np.int32(n)), {"grid": 3, "block": 96}, close(x, expected)


KERNEL = Kernel(
    "scale",
    SOURCE,
    setup,
    [
        Bug("loop_off_by_one", "i < n;", "i <= n;", "OutOfBoundsError", line="x[i] *= factor"),
    ],
)
