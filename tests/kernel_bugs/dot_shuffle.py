"""A dot product by warps: a butterfly of __shfl_xor_sync, one partial sum per warp."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void dot_warps(const float* a, const float* b, float* partial, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] * b[i] : 0.0f;
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
    if (threadIdx.x % 32 == 0) partial[i / 32] = v;  // every lane holds the warp's sum
}
"""


def setup(rng):
    n = int(rng.integers(1000, 3000)) | 1
    a, b = floats(rng, n), floats(rng, n)
    blocks = (n + 127) // 128
    partial = np.zeros(blocks * 4, np.float32)
    products = np.pad(a.astype(np.float64) * b, (0, blocks * 128 - n))
    expected = products.reshape(-1, 32).sum(axis=1)
    launch = {"grid": blocks, "block": 128}
    return (a, b, partial, np.int32(n)), launch, close(partial, expected, 1e-5, 1e-5)


KERNEL = Kernel(
    "dot_warps",
    SOURCE,
    setup,
    [
        Bug(
            "lane_31_left_out",
            "__shfl_xor_sync(0xffffffff, v, mask)",
            "__shfl_xor_sync(0x7fffffff, v, mask)",
            "WarpMaskError",
        ),
        Bug(
            "early_return",
            "    float v = i < n",
            "    if (i >= n) return;\n    float v = i < n",
            "WarpMaskError",
            line="__shfl_xor_sync(0xffffffff, v, mask)",
        ),
    ],
)
