"""Gathering through an index array: out[i] = in[index[i]]."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void gather(const float* in, const int* index, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[index[i]];
}
"""


def setup(rng):
    m, n = int(rng.integers(500, 1000)), int(rng.integers(1000, 2000)) | 1
    x = floats(rng, m)
    index = rng.integers(0, m, n).astype(np.int32)
    index[rng.integers(0, n)] = m - 1  # the last element is gathered too
    out = np.zeros(n, np.float32)
    launch = {"grid": (n + 127) // 128, "block": 128}
    return (x, index, out, np.int32(n)), launch, close(out, x[index])


KERNEL = Kernel(
    "gather",
    SOURCE,
    setup,
    [
        Bug("missing_guard", "if (i < n) out[i]", "out[i]", "OutOfBoundsError"),
        Bug(
            "one_based_index",
            "in[index[i]]",
            "in[index[i] + 1]",
            "OutOfBoundsError",
            line="out[i] = in[index[i] + 1];",
        ),
    ],
)
