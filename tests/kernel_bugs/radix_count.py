"""The counting pass of a radix sort: each block counts the 4-bit digits of its keys."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
#define RADIX 16
__global__ void digit_counts(const unsigned int* keys, int* counts, int n, int shift) {
    __shared__ int local[RADIX];
    if (threadIdx.x < RADIX) local[threadIdx.x] = 0;
    __syncthreads();  // zeroed
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int digit = (keys[i] >> shift) & (RADIX - 1);
        assert(digit < RADIX);
        atomicAdd(&local[digit], 1);
    }
    __syncthreads();  // counted
    if (threadIdx.x < RADIX) counts[blockIdx.x * RADIX + threadIdx.x] = local[threadIdx.x];
}
"""


def setup(rng):
    n = int(rng.integers(2000, 4000)) | 1
    keys = rng.integers(0, 2**32, n, dtype=np.uint32)
    shift = int(rng.choice([0, 4, 8, 16, 24]))
    blocks = (n + 127) // 128
    counts = np.zeros((blocks, 16), np.int32)
    digits = np.pad((keys >> shift) & 15, (0, blocks * 128 - n), constant_values=16)
    rows = digits.reshape(blocks, 128)
    expected = np.stack([np.bincount(row, minlength=17)[:16] for row in rows])
    launch = {"grid": blocks, "block": 128}
    return (keys, counts, np.int32(n), np.int32(shift)), launch, equal(counts, expected)


KERNEL = Kernel(
    "digit_counts",
    SOURCE,
    setup,
    [
        Bug(
            "five_bit_digit",
            "(keys[i] >> shift) & (RADIX - 1);",
            "(keys[i] >> shift) & (2 * RADIX - 1);",
            "cudaErrorAssert",
            line="assert(digit < RADIX);",
        ),
        Bug(
            "missing_zero_barrier",
            "    __syncthreads();  // zeroed\n",
            "",
            "RaceError",
            line="atomicAdd(&local[digit], 1);",
        ),
        Bug(
            "zeroed_by_too_few",
            "if (threadIdx.x < RADIX) local[threadIdx.x] = 0;",
            "if (threadIdx.x < RADIX / 2) local[threadIdx.x] = 0;",
            "UninitializedReadError",
            line="atomicAdd(&local[digit], 1);",
        ),
    ],
)
