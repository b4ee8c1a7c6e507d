"""Normalising a vector to unit length with one block: a sum of squares, then a division."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 256
__global__ void normalize(float* v, int n) {
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    float mine = 0.0f;
    for (int i = t; i < n; i += BLOCK) mine += v[i] * v[i];
    s[t] = mine;
    __syncthreads();  // the partial sums are in
    for (int k = BLOCK / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();  // a level done
    }
    float norm = sqrtf(s[0]);
    for (int i = t; i < n; i += BLOCK) v[i] /= norm;
}
"""


def setup(rng):
    n = int(rng.integers(2000, 5000)) | 1
    v = floats(rng, n)
    expected = v / np.linalg.norm(v.astype(np.float64))
    return (v, np.int32(n)), {"grid": 1, "block": 256}, close(v, expected, 1e-5, 1e-6)


KERNEL = Kernel(
    "normalize",
    SOURCE,
    setup,
    [
        Bug(
            "missing_partial_barrier",
            "    __syncthreads();  // the partial sums are in\n",
            "",
            "RaceError",
            line="if (t < k) s[t] += s[t + k];",
        ),
        Bug(
            "divides_one_past_the_end",
            "for (int i = t; i < n; i += BLOCK) v[i] /= norm;",
            "for (int i = t; i <= n; i += BLOCK) v[i] /= norm;",
            "OutOfBoundsError",
        ),
    ],
)
