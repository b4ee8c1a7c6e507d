"""PyCUDA's doublify, on a 2-D array in 2-D blocks."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void doublify(float* a, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) a[y * width + x] *= 2;
}
"""


def setup(rng):
    # Wider than high, and neither a multiple of the block: the guards matter.
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    a = floats(rng, height, width)
    expected = a * 2
    grid = ((width + 15) // 16, (height + 15) // 16)
    return (
        (a, np.int32(width), np.int32(height)),
        {"grid": grid, "block": (16, 16)},
        close(a, expected),
    )


KERNEL = Kernel(
    "doublify",
    SOURCE,
    setup,
    [
        Bug(
            "missing_row_guard",
            "if (x < width && y < height)",
            "if (x < width)",
            "OutOfBoundsError",
        ),
        Bug("swapped_index", "a[y * width + x]", "a[x * width + y]", "OutOfBoundsError"),
    ],
)
