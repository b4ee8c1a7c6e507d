"""Counting positive elements with a warp vote (__ballot_sync and __popc)."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, floats

SOURCE = r"""
__global__ void count_positive(const float* x, int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int positive = i < n && x[i] > 0.0f;
    unsigned int votes = __ballot_sync(0xffffffff, positive);
    if (threadIdx.x % 32 == 0) atomicAdd(count, __popc(votes));
}
"""


def setup(rng):
    n = int(rng.integers(500, 1000)) | 1
    x = floats(rng, n)
    count = np.zeros(1, np.int32)
    expected = int((x > 0).sum())

    def check():
        assert int(count[0]) == expected

    return (x, count, np.int32(n)), {"grid": (n + 127) // 128, "block": 128}, check


KERNEL = Kernel(
    "count_positive",
    SOURCE,
    setup,
    [
        Bug(
            "half_warp_mask",
            "__ballot_sync(0xffffffff, positive)",
            "__ballot_sync(0x0000ffff, positive)",
            "WarpMaskError",
        ),
        Bug(
            "early_return",
            "    int positive = i < n",
            "    if (i >= n) return;\n    int positive = i < n",
            "WarpMaskError",
            line="__ballot_sync(0xffffffff, positive)",
        ),
    ],
)
