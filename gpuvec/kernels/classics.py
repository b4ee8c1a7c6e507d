"""The classic CUDA tutorial kernels, as source: examples to run and to compare with.

Each is written as the tutorials write it, and runs unchanged on both
backends (NVRTC on a GPU, the host emulation without one). The tests check
them against NumPy, and ``python3 -m gpuvec.bench --ops kernels`` times them.

Examples
--------
>>> import numpy as np
>>> import gpuvec
>>> from gpuvec.kernels import classics
>>> mod = gpuvec.SourceModule(classics.WARP_SUM)
>>> values, total = np.arange(53735, dtype=np.int32), np.zeros(1, np.int32)
>>> mod.sum_kernel(values, total, values.size, grid=210, block=256)
>>> int(total[0])
1443698245
"""

__all__ = ["DOUBLIFY", "TREE_SUM", "VECADD", "WARP_SUM"]

# PyCUDA's first example: double a 4x4 float32 matrix, one thread an element,
# launched with a (4, 4, 1) block.
DOUBLIFY = """
__global__ void doublify(float* a)
{
    int idx = threadIdx.x + threadIdx.y * 4;
    a[idx] *= 2;
}
"""

# One thread an element, with the bounds guard that lets the grid overshoot n.
VECADD = """
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
"""

# The shared-memory tree reduction: each block writes the sum of its part,
# halving the active threads between __syncthreads() barriers.
TREE_SUM = """
#define BLOCK 256
__global__ void block_sums(const float* in, float* out, int n)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            partial[tid] += partial[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = partial[0];
    }
}
"""

# The warp-shuffle sum: each warp sums its values with __shfl_down_sync, and
# lane 0 adds the warp's sum to the total with atomicAdd.
WARP_SUM = """
__inline__ __device__ int warp_sum(int value)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        value += __shfl_down_sync(0xffffffff, value, offset);
    }
    return value;
}

__global__ void sum_kernel(const int* in, int* total, int n)
{
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += in[i];
    }
    sum = warp_sum(sum);
    if ((threadIdx.x & (warpSize - 1)) == 0) {
        atomicAdd(total, sum);
    }
}
"""
