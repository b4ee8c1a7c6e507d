"""A strided permutation: out[i] = in[(i * stride) mod n], stride prime to n."""

import math

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void permute_strided(const float* in, float* out, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // i * stride passes 2^31: the product is taken in 64 bits.
    if (i < n) out[i] = in[(long long)i * stride % n];
}
"""


def setup(rng):
    n = int(rng.integers(1000, 3000)) | 1
    stride = int(rng.integers(10**7, 10**9))
    while math.gcd(stride, n) != 1:
        stride += 1
    x = floats(rng, n)
    out = np.zeros(n, np.float32)
    expected = x[np.arange(n, dtype=np.int64) * stride % n]
    launch = {"grid": (n + 127) // 128, "block": 128}
    return (x, out, np.int32(n), np.int32(stride)), launch, close(out, expected)


KERNEL = Kernel(
    "permute_strided",
    SOURCE,
    setup,
    [
        Bug(
            "product_in_int",
            "in[(long long)i * stride % n]",
            "in[i * stride % n]",
            "OutOfBoundsError",
        ),
    ],
)
