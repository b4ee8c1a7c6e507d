"""A block sum with warp shuffles: each warp reduces, then warp 0 reduces the warps' totals."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void warp_sums(const float* in, float* out, int n) {
    __shared__ float warp_total[32];
    unsigned int t = threadIdx.x, lane = t % 32, warp = t / 32;
    unsigned int i = blockIdx.x * blockDim.x + t;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);  // within each warp
    if (lane == 0) warp_total[warp] = v;
    __syncthreads();  // the warps' totals are in
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_total[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffff, v, offset);  // across the warps
        if (lane == 0) out[blockIdx.x] = v;
    }
}
"""


def setup(rng):
    n = int(rng.integers(1500, 3000)) | 1
    x = floats(rng, n)
    blocks = (n + 255) // 256
    out = np.zeros(blocks, np.float32)
    expected = np.pad(x, (0, blocks * 256 - n)).reshape(blocks, 256).sum(axis=1)
    return (x, out, np.int32(n)), {"grid": blocks, "block": 256}, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "warp_sums",
    SOURCE,
    setup,
    [
        Bug(
            "half_warp_mask",
            "__shfl_down_sync(0xffffffff, v, offset);  // within each warp",
            "__shfl_down_sync(0x0000ffff, v, offset);  // within each warp",
            "WarpMaskError",
        ),
        Bug(
            "missing_barrier",
            "    __syncthreads();  // the warps' totals are in\n",
            "",
            "RaceError",
            line="if (lane == 0) warp_total[warp] = v;",
        ),
        Bug(
            "reads_every_lane",
            "v = lane < blockDim.x / 32 ? warp_total[lane] : 0.0f;",
            "v = warp_total[lane];",
            "UninitializedReadError",
        ),
    ],
)
