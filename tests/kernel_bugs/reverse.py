"""Reversing each block's elements through dynamic shared memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void reverse_blocks(float* data, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    s[t] = data[base + t];
    __syncthreads();  // loaded
    data[base + t] = s[blockDim.x - 1 - t];
}
"""


def setup(rng):
    blocks, threads = int(rng.integers(2, 6)), int(rng.choice([64, 128]))
    x = floats(rng, blocks * threads)
    expected = x.reshape(blocks, threads)[:, ::-1].ravel().copy()
    launch = {"grid": blocks, "block": threads, "shared_mem": threads * 4}
    return (x, np.int32(x.size)), launch, close(x, expected)


KERNEL = Kernel(
    "reverse_blocks",
    SOURCE,
    setup,
    [
        Bug(
            "missing_barrier",
            "    __syncthreads();  // loaded\n",
            "",
            "RaceError",
            line="data[base + t] = s[blockDim.x - 1 - t];",
        ),
        Bug("off_by_one", "s[blockDim.x - 1 - t]", "s[blockDim.x - t]", "OutOfBoundsError"),
    ],
)
