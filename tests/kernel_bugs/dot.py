"""A dot product: per-thread partial sums, a shared accumulator, atomics."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void dot(const float* a, const float* b, float* result, int n) {
    __shared__ float block_sum[1];
    if (threadIdx.x == 0) block_sum[0] = 0.0f;
    __syncthreads();  // zeroed
    float mine = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        mine += a[i] * b[i];
    atomicAdd(&block_sum[0], mine);
    __syncthreads();  // summed
    if (threadIdx.x == 0) atomicAdd(result, block_sum[0]);
}
"""


def setup(rng):
    n = int(rng.integers(2000, 5000))
    a, b = floats(rng, n), floats(rng, n)
    result = np.zeros(1, np.float32)
    expected = [np.dot(a.astype(np.float64), b)]
    return (
        (a, b, result, np.int32(n)),
        {"grid": 4, "block": 128},
        close(result, expected, 1e-3, 1e-3),
    )


KERNEL = Kernel(
    "dot",
    SOURCE,
    setup,
    [
        Bug(
            "plain_accumulate",
            "atomicAdd(&block_sum[0], mine);",
            "block_sum[0] += mine;",
            "RaceError",
        ),
        Bug(
            "missing_zero_barrier",
            "    __syncthreads();  // zeroed\n",
            "",
            "RaceError",
            line="atomicAdd(&block_sum[0], mine);",
        ),
        Bug(
            "missing_sum_barrier",
            "    __syncthreads();  // summed\n",
            "",
            "RaceError",
            line="atomicAdd(&block_sum[0], mine);",
        ),
    ],
    # The float atomics add in the order the threads come, which the two
    # backends do not share.
    same_bits=False,
)
