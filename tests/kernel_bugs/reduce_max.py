"""A maximum per block in dynamic shared memory (extern __shared__)."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void block_max(const float* in, float* out, int n) {
    extern __shared__ float s[];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : __int_as_float(0xff800000);  // -inf (NVRTC has no INFINITY)
    __syncthreads();  // loaded
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] = fmaxf(s[t], s[t + k]);
        __syncthreads();  // a level done
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""


def setup(rng):
    n = int(rng.integers(1000, 2000)) | 1
    x = floats(rng, n)
    blocks = (n + 127) // 128
    out = np.zeros(blocks, np.float32)
    padded = np.pad(x, (0, blocks * 128 - n), constant_values=-np.inf)
    expected = padded.reshape(blocks, 128).max(axis=1)
    launch = {"grid": blocks, "block": 128, "shared_mem": 128 * 4}
    return (x, out, np.int32(n)), launch, close(out, expected)


KERNEL = Kernel(
    "block_max",
    SOURCE,
    setup,
    [
        Bug(
            "unfilled_tail",
            "s[t] = i < n ? in[i] : __int_as_float(0xff800000);",
            "if (i < n) s[t] = in[i];",
            "UninitializedReadError",
            line="s[t] = fmaxf(s[t], s[t + k]);",
        ),
        Bug(
            "early_return",
            "    s[t] = i < n",
            "    if (i >= n) return;\n    s[t] = i < n",
            "BarrierDivergenceError",
            line="__syncthreads();  // loaded",
        ),
        Bug(
            "reads_past_shared_mem",
            "fmaxf(s[t], s[t + k])",
            "fmaxf(s[t], s[t + 2 * k])",
            "OutOfBoundsError",
        ),
    ],
)
