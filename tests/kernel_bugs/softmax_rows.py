"""The softmax of each row: one block per row; the maximum, the exponentials, their sum."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 128
__global__ void softmax_rows(const float* x, float* y, int cols) {
    __shared__ float s[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    float m = __int_as_float(0xff800000);  // -inf
    for (int c = t; c < cols; c += BLOCK) m = fmaxf(m, x[row * cols + c]);
    s[t] = m;
    __syncthreads();  // the partial maxima are in
    for (int k = BLOCK / 2; k > 0; k /= 2) {
        if (t < k) s[t] = fmaxf(s[t], s[t + k]);
        __syncthreads();  // a level of the maximum done
    }
    const float row_max = s[0];
    __syncthreads();  // all have read the maximum: s is reused
    float sum = 0.0f;
    for (int c = t; c < cols; c += BLOCK) {
        float e = expf(x[row * cols + c] - row_max);
        y[row * cols + c] = e;
        sum += e;
    }
    s[t] = sum;
    __syncthreads();  // the partial sums are in
    for (int k = BLOCK / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();  // a level of the sum done
    }
    const float total = s[0];
    for (int c = t; c < cols; c += BLOCK) y[row * cols + c] /= total;
}
"""


def setup(rng):
    rows, cols = int(rng.integers(5, 20)) | 1, int(rng.integers(150, 400)) | 1
    x = floats(rng, rows, cols) * 8
    y = np.zeros_like(x)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    return (x, y, np.int32(cols)), {"grid": rows, "block": 128}, close(y, expected, 1e-5, 1e-6)


KERNEL = Kernel(
    "softmax_rows",
    SOURCE,
    setup,
    [
        Bug(
            "reuse_without_barrier",
            "    __syncthreads();  // all have read the maximum: s is reused\n",
            "",
            "RaceError",
            line="s[t] = sum;",
        ),
        Bug(
            "exp_loop_off_by_one",
            "for (int c = t; c < cols; c += BLOCK) {",
            "for (int c = t; c <= cols; c += BLOCK) {",
            "OutOfBoundsError",
            line="float e = expf(x[row * cols + c] - row_max);",
        ),
    ],
    # expf is the host's libm on one backend and CUDA's on the other: they
    # may differ in the last bit.
    same_bits=False,
)
