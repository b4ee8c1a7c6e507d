"""A polynomial at each element by Horner's rule, for sizes that are a multiple of the block
(the course's first version: no bounds guard)."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void horner(const float* x, const float* coeffs, int degree, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // the grid covers x exactly
    float p = coeffs[degree];
    for (int k = degree - 1; k >= 0; --k) p = p * x[i] + coeffs[k];
    y[i] = p;
}
"""


def setup(rng):
    blocks, degree = int(rng.integers(3, 9)), int(rng.integers(3, 8))
    x, coeffs = floats(rng, blocks * 128), floats(rng, degree + 1)
    y = np.zeros_like(x)
    expected = np.polynomial.polynomial.polyval(x.astype(np.float64), coeffs)
    args = (x, coeffs, np.int32(degree), y)
    return args, {"grid": blocks, "block": 128}, close(y, expected, 1e-5, 1e-5)


def _rounded_up_once_more(launch):
    # n / 128 + 1 blocks: right for sizes that are no multiple of the block,
    # where the kernel would need a guard; one block too many here.
    return {**launch, "grid": launch["grid"] + 1}


KERNEL = Kernel(
    "horner",
    SOURCE,
    setup,
    [
        Bug(
            "grid_one_block_too_many",
            "",
            "",
            "OutOfBoundsError",
            line="p = p * x[i] + coeffs[k];",
            launch=_rounded_up_once_more,
        ),
        Bug(
            "degree_as_the_length",
            "float p = coeffs[degree];",
            "float p = coeffs[degree + 1];",
            "OutOfBoundsError",
        ),
    ],
)
