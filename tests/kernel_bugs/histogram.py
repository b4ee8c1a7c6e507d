"""A histogram with shared-memory bins and atomics."""

import numpy as np

from kernel_bugs._case import Bug, Kernel

SOURCE = r"""
#define BINS 64
__global__ void histogram(const int* data, int* bins, int n) {
    __shared__ int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();  // zeroed
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % BINS], 1);
    __syncthreads();  // counted
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
"""


def setup(rng):
    n = int(rng.integers(3000, 6000))
    data = rng.integers(0, 1000, n).astype(np.int32)
    bins = np.zeros(64, np.int32)
    expected = np.bincount(data % 64, minlength=64)

    def check():
        np.testing.assert_array_equal(bins, expected)

    return (data, bins, np.int32(n)), {"grid": 4, "block": 128}, check


KERNEL = Kernel(
    "histogram",
    SOURCE,
    setup,
    [
        Bug(
            "bins_not_zeroed",
            "    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;\n",
            "",
            "UninitializedReadError",
            line="atomicAdd(&local[data[i] % BINS], 1);",
        ),
        Bug(
            "missing_zero_barrier",
            "    __syncthreads();  // zeroed\n",
            "",
            "RaceError",
            line="atomicAdd(&local[data[i] % BINS], 1);",
        ),
        Bug(
            "plain_increment",
            "atomicAdd(&local[data[i] % BINS], 1);",
            "local[data[i] % BINS]++;",
            "RaceError",
        ),
        Bug(
            "missing_count_barrier",
            "    __syncthreads();  // counted\n",
            "",
            "RaceError",
            line="atomicAdd(&bins[b], local[b]);",
        ),
    ],
)
