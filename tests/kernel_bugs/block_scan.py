"""An inclusive scan of each block (Hillis and Steele), in shared memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void block_scan(const float* in, float* out, int n) {
    __shared__ float s[256];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();  // loaded
    for (unsigned int offset = 1; offset < blockDim.x; offset *= 2) {
        float add = t >= offset ? s[t - offset] : 0.0f;
        __syncthreads();  // all have read
        s[t] += add;
        __syncthreads();  // all have written
    }
    if (i < n) out[i] = s[t];
}
"""


def setup(rng):
    n = int(rng.integers(600, 1200)) | 1
    x = floats(rng, n)
    out = np.zeros(n, np.float32)
    blocks = (n + 255) // 256
    padded = np.pad(x.astype(np.float64), (0, blocks * 256 - n)).reshape(blocks, 256)
    expected = np.cumsum(padded, axis=1).ravel()[:n]
    return (x, out, np.int32(n)), {"grid": blocks, "block": 256}, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "block_scan",
    SOURCE,
    setup,
    [
        Bug(
            "missing_read_barrier",
            "        __syncthreads();  // all have read\n",
            "",
            "RaceError",
            line="s[t] += add;",
        ),
        Bug(
            "missing_write_barrier",
            "        __syncthreads();  // all have written\n",
            "",
            "RaceError",
            line="float add = t >= offset",
        ),
        Bug(
            "no_offset_guard",
            "float add = t >= offset ? s[t - offset] : 0.0f;",
            "float add = s[t - offset];",
            "OutOfBoundsError",
        ),
    ],
)
