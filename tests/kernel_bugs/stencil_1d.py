"""A 1-D stencil (a sum over a window of radius 3) with a shared-memory halo."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define RADIUS 3
#define BLOCK 128
__global__ void stencil(const float* in, float* out, int n) {
    __shared__ float s[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        s[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
        s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();  // the block and its halo are loaded
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) sum += s[l + k];
    if (g < n) out[g] = sum;
}
"""


def setup(rng):
    n = int(rng.integers(500, 1000)) | 1
    x = floats(rng, n)
    out = np.zeros(n, np.float32)
    expected = np.convolve(x.astype(np.float64), np.ones(7), mode="same")
    launch = {"grid": (n + 127) // 128, "block": 128}
    return (x, out, np.int32(n)), launch, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "stencil",
    SOURCE,
    setup,
    [
        Bug(
            "no_halo",
            "        s[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;\n"
            "        s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;\n",
            "",
            "UninitializedReadError",
            line="sum += s[l + k];",
        ),
        Bug(
            "missing_barrier",
            "    __syncthreads();  // the block and its halo are loaded\n",
            "",
            "RaceError",
            line="sum += s[l + k];",
        ),
        Bug(
            "window_off_by_one",
            "k <= RADIUS;",
            "k <= RADIUS + 1;",
            "OutOfBoundsError",
        ),
    ],
)
