"""Layer normalisation: one block per row, the mean and the variance in shared memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 64
__device__ float block_sum(float v, float* s) {
    int t = threadIdx.x;
    s[t] = v;
    __syncthreads();  // the partial sums are in
    for (int k = BLOCK / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();  // a level done
    }
    float total = s[0];
    __syncthreads();  // all have read the total: s is free again
    return total;
}

__global__ void layer_norm(const float* x, const float* gamma, const float* beta, float* y,
                           int cols, float eps) {
    __shared__ float s[BLOCK];
    const float* row = x + blockIdx.x * cols;
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int c = t; c < cols; c += BLOCK) sum += row[c];
    float mean = block_sum(sum, s) / cols;
    float squares = 0.0f;
    for (int c = t; c < cols; c += BLOCK) squares += (row[c] - mean) * (row[c] - mean);
    float inv_std = 1.0f / sqrtf(block_sum(squares, s) / cols + eps);
    for (int c = t; c < cols; c += BLOCK)
        y[blockIdx.x * cols + c] = (row[c] - mean) * inv_std * gamma[c] + beta[c];
}
"""


def setup(rng):
    rows, cols = int(rng.integers(5, 20)) | 1, int(rng.integers(100, 300)) | 1
    x, gamma, beta = floats(rng, rows, cols) * 3 + 1, floats(rng, cols), floats(rng, cols)
    y = np.zeros_like(x)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    expected = (x64 - mean) / np.sqrt(var + 1e-5) * gamma + beta
    args = (x, gamma, beta, y, np.int32(cols), np.float32(1e-5))
    return args, {"grid": rows, "block": 64}, close(y, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "layer_norm",
    SOURCE,
    setup,
    [
        Bug(
            "gamma_past_the_end",
            "for (int c = t; c < cols; c += BLOCK)\n        y[",
            "for (int c = t; c <= cols; c += BLOCK)\n        y[",
            "OutOfBoundsError",
            line="y[blockIdx.x * cols + c] = ",
        ),
    ],
)
