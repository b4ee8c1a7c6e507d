"""The maximum and its index in each warp, with __shfl_down_sync on both."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal, floats

SOURCE = r"""
__global__ void warp_argmax(const float* x, float* best, int* where, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : __int_as_float(0xff800000);  // -inf past the end
    int k = i;
    for (int offset = 16; offset > 0; offset /= 2) {
        float other = __shfl_down_sync(0xffffffff, v, offset);
        int other_k = __shfl_down_sync(0xffffffff, k, offset);
        if (other > v || (other == v && other_k < k)) {
            v = other;
            k = other_k;
        }
    }
    if (threadIdx.x % 32 == 0) {
        best[i / 32] = v;
        where[i / 32] = k;
    }
}
"""


def setup(rng):
    n = int(rng.integers(1000, 2000)) | 1
    x = floats(rng, n)
    blocks = (n + 63) // 64
    best = np.zeros(blocks * 2, np.float32)
    where = np.zeros(blocks * 2, np.int32)
    padded = np.pad(x, (0, blocks * 64 - n), constant_values=-np.inf).reshape(-1, 32)
    expected_where = padded.argmax(axis=1) + 32 * np.arange(padded.shape[0])
    expected_best = padded.max(axis=1)
    check_best, check_where = equal(best, expected_best), equal(where, expected_where)

    def check():
        check_best()
        check_where()

    return (x, best, where, np.int32(n)), {"grid": blocks, "block": 64}, check


KERNEL = Kernel(
    "warp_argmax",
    SOURCE,
    setup,
    [
        Bug(
            "index_shuffled_by_half",
            "int other_k = __shfl_down_sync(0xffffffff, k, offset);",
            "int other_k = __shfl_down_sync(0x0000ffff, k, offset);",
            "WarpMaskError",
        ),
    ],
)
