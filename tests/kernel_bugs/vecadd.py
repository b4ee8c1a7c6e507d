"""Vector addition, one element per thread, with the bounds guard."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def setup(rng):
    n = int(rng.integers(1000, 3000)) | 1  # odd: never a multiple of the block
    a, b = floats(rng, n), floats(rng, n)
    c = np.zeros(n, np.float32)
    return (a, b, c, np.int32(n)), {"grid": (n + 255) // 256, "block": 256}, close(c, a + b)


KERNEL = Kernel(
    "vecadd",
    SOURCE,
    setup,
    [
        Bug("missing_guard", "if (i < n) c[i]", "c[i]", "OutOfBoundsError"),
        Bug("off_by_one_guard", "if (i < n)", "if (i <= n)", "OutOfBoundsError"),
    ],
)
