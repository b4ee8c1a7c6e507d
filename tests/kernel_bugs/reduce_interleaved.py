"""The first reduction of the classic course: interleaved addressing, a modulo test."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 128
__global__ void reduce_interleaved(const float* in, float* out, int n) {
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();  // loaded
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();  // a level done
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
"""


def setup(rng):
    n = int(rng.integers(1000, 2000)) | 1
    x = floats(rng, n)
    blocks = (n + 127) // 128
    out = np.zeros(blocks, np.float32)
    expected = np.pad(x.astype(np.float64), (0, blocks * 128 - n)).reshape(blocks, 128).sum(axis=1)
    return (x, out, np.int32(n)), {"grid": blocks, "block": 128}, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "reduce_interleaved",
    SOURCE,
    setup,
    [
        Bug(
            "missing_level_barrier",
            "        __syncthreads();  // a level done\n",
            "",
            "RaceError",
            line="if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];",
        ),
        Bug(
            "barrier_in_branch",
            "if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];\n"
            "        __syncthreads();  // a level done",
            "if (tid % (2 * s) == 0) {\n            sdata[tid] += sdata[tid + s];\n"
            "            __syncthreads();  // only the active threads\n        }",
            "BarrierDivergenceError",
            line="only the active threads",
        ),
        Bug(
            "unguarded_load",
            "sdata[tid] = i < n ? in[i] : 0.0f;",
            "sdata[tid] = in[i];",
            "OutOfBoundsError",
        ),
    ],
)
