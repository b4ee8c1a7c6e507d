"""A 256-bin histogram of uint8 data: a block of 256 threads, one shared bin per thread."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
__global__ void histogram_u8(const unsigned char* data, unsigned int* bins, int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;  // blockDim.x is 256: one bin per thread
    __syncthreads();  // zeroed
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();  // counted
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
"""


def setup(rng):
    n = int(rng.integers(2000, 4000)) | 1
    data = rng.integers(0, 256, n, dtype=np.uint8)
    bins = np.zeros(256, np.uint32)
    expected = np.bincount(data, minlength=256).astype(np.uint32)
    launch = {"grid": (n + 255) // 256, "block": 256}
    return (data, bins, np.int32(n)), launch, equal(bins, expected)


KERNEL = Kernel(
    "histogram_u8",
    SOURCE,
    setup,
    [
        Bug(
            "early_return",
            "    local[threadIdx.x] = 0;",
            "    if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;  // nothing to count\n"
            "    local[threadIdx.x] = 0;",
            "BarrierDivergenceError",
            line="__syncthreads();  // zeroed",
        ),
        Bug(
            "missing_count_barrier",
            "    __syncthreads();  // counted\n",
            "",
            "RaceError",
            line="atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);",
        ),
        Bug(
            "plain_increment",
            "atomicAdd(&local[data[i]], 1u);",
            "local[data[i]] += 1;",
            "RaceError",
        ),
    ],
)
