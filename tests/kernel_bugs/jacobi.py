"""One Jacobi step for Laplace's equation on a grid: the mean of the four neighbours inside,
the boundary kept."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
__global__ void jacobi_step(const float* u, float* u_new, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int k = y * width + x;
    if (x > 0 && x < width - 1 && y > 0 && y < height - 1)
        u_new[k] = 0.25f * (u[k - 1] + u[k + 1] + u[k - width] + u[k + width]);
    else
        u_new[k] = u[k];
}
"""


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    u = floats(rng, height, width)
    u_new = np.zeros_like(u)
    expected = u.copy()
    expected[1:-1, 1:-1] = np.float32(0.25) * (
        u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1]
    )
    launch = {"grid": ((width + 15) // 16, (height + 15) // 16), "block": (16, 16)}
    return (u, u_new, np.int32(width), np.int32(height)), launch, close(u_new, expected)


KERNEL = Kernel(
    "jacobi_step",
    SOURCE,
    setup,
    [
        Bug(
            "top_row_updated",
            "if (x > 0 && x < width - 1 && y > 0 && y < height - 1)",
            "if (x > 0 && x < width - 1 && y < height - 1)",
            "OutOfBoundsError",
            line="u_new[k] = 0.25f * ",
        ),
        Bug(
            "bottom_row_updated",
            "if (x > 0 && x < width - 1 && y > 0 && y < height - 1)",
            "if (x > 0 && x < width - 1 && y > 0 && y < height)",
            "OutOfBoundsError",
            line="u_new[k] = 0.25f * ",
        ),
    ],
)
