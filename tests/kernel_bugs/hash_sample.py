"""Sampling with replacement by a multiplicative hash of the thread's index (Knuth's)."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void hash_sample(const float* in, float* out, int n, int samples) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= samples) return;
    unsigned int h = i * 2654435761u;  // unsigned: the product wraps, never negative
    out[i] = in[h % n];
}
"""


def setup(rng):
    n, samples = int(rng.integers(500, 1000)) | 1, int(rng.integers(1000, 2000)) | 1
    x = floats(rng, n)
    out = np.zeros(samples, np.float32)
    h = np.arange(samples, dtype=np.uint32) * np.uint32(2654435761)
    launch = {"grid": (samples + 127) // 128, "block": 128}
    return (x, out, np.int32(n), np.int32(samples)), launch, close(out, x[h % n])


KERNEL = Kernel(
    "hash_sample",
    SOURCE,
    setup,
    [
        Bug(
            "hash_in_int",
            "unsigned int h = i * 2654435761u;  // unsigned: the product wraps, never negative",
            "int h = i * 2654435761u;",
            "OutOfBoundsError",
            line="out[i] = in[h % n];",
        ),
    ],
)
