"""A 1-D convolution (correlation) with a mask, in global memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void convolve(const float* in, const float* mask, float* out, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int j = 0; j < m; ++j) {
        int k = i + j - m / 2;
        if (k >= 0 && k < n) acc += in[k] * mask[j];
    }
    out[i] = acc;
}
"""


def setup(rng):
    n, m = int(rng.integers(500, 1000)) | 1, int(rng.choice([3, 5, 7]))
    x, mask = floats(rng, n), floats(rng, m)
    out = np.zeros(n, np.float32)
    expected = np.correlate(x.astype(np.float64), mask, mode="same")
    launch = {"grid": (n + 127) // 128, "block": 128}
    return (x, mask, out, np.int32(n), np.int32(m)), launch, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "convolve",
    SOURCE,
    setup,
    [
        Bug(
            "no_left_edge_check",
            "if (k >= 0 && k < n) acc",
            "if (k < n) acc",
            "OutOfBoundsError",
        ),
        Bug(
            "mask_off_by_one",
            "j < m;",
            "j <= m;",
            "OutOfBoundsError",
            line="acc += in[k] * mask[j];",
        ),
    ],
)
