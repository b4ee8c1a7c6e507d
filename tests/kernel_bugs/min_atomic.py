"""The minimum of an int array: atomicMin on a shared value per block, then on the result."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
__global__ void min_int(const int* x, int* result, int n) {
    __shared__ int block_min[1];
    if (threadIdx.x == 0) block_min[0] = 0x7fffffff;  // INT_MAX
    __syncthreads();  // initialised
    int mine = 0x7fffffff;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        mine = min(mine, x[i]);
    atomicMin(&block_min[0], mine);
    __syncthreads();  // every thread's minimum is in
    if (threadIdx.x == 0) atomicMin(result, block_min[0]);
}
"""


def setup(rng):
    n = int(rng.integers(3000, 6000)) | 1
    x = rng.integers(-(2**30), 2**30, n).astype(np.int32)
    result = np.full(1, 2**31 - 1, np.int32)
    return (x, result, np.int32(n)), {"grid": 5, "block": 96}, equal(result, [x.min()])


KERNEL = Kernel(
    "min_int",
    SOURCE,
    setup,
    [
        Bug(
            "plain_min",
            "atomicMin(&block_min[0], mine);",
            "if (mine < block_min[0]) block_min[0] = mine;",
            "RaceError",
        ),
        Bug(
            "not_initialised",
            "    if (threadIdx.x == 0) block_min[0] = 0x7fffffff;  // INT_MAX\n",
            "",
            "UninitializedReadError",
            line="atomicMin(&block_min[0], mine);",
        ),
        Bug(
            "missing_init_barrier",
            "    __syncthreads();  // initialised\n",
            "",
            "RaceError",
            line="atomicMin(&block_min[0], mine);",
        ),
    ],
)
