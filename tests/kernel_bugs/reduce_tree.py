"""The classic tree reduction in shared memory: one sum per block."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 256
__global__ void block_sums(const float* in, float* out, int n) {
    __shared__ float s[BLOCK];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();  // loaded
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();  // a level done
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""


def setup(rng):
    n = int(rng.integers(2000, 4000)) | 1
    x = floats(rng, n)
    blocks = (n + 255) // 256
    out = np.zeros(blocks, np.float32)
    expected = np.pad(x, (0, blocks * 256 - n)).reshape(blocks, 256).sum(axis=1)
    return (x, out, np.int32(n)), {"grid": blocks, "block": 256}, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "block_sums",
    SOURCE,
    setup,
    [
        Bug(
            "barrier_in_branch",
            "if (t < k) s[t] += s[t + k];\n        __syncthreads();  // a level done",
            "if (t < k) {\n            s[t] += s[t + k];\n"
            "            __syncthreads();  // inside the branch\n        }",
            "BarrierDivergenceError",
            line="inside the branch",
        ),
        Bug(
            "missing_load_barrier",
            "    __syncthreads();  // loaded\n",
            "",
            "RaceError",
            line="if (t < k) s[t] += s[t + k];",
        ),
        Bug(
            "missing_level_barrier",
            "        __syncthreads();  // a level done\n",
            "",
            "RaceError",
            line="if (t < k) s[t] += s[t + k];",
        ),
        Bug(
            "loop_from_block_size",
            "k = blockDim.x / 2;",
            "k = blockDim.x;",
            "OutOfBoundsError",
            line="if (t < k) s[t] += s[t + k];",
        ),
        Bug("unguarded_load", "s[t] = i < n ? in[i] : 0.0f;", "s[t] = in[i];", "OutOfBoundsError"),
    ],
)
