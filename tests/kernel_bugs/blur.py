"""A 3x3 box blur of a gray image: the mean of the neighbours inside the image."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define RADIUS 1
__global__ void blur(const float* in, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float sum = 0.0f;
    int count = 0;
    for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
        for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
            int nx = x + dx, ny = y + dy;
            if (nx >= 0 && nx < width && ny >= 0 && ny < height) {
                sum += in[ny * width + nx];
                ++count;
            }
        }
    }
    out[y * width + x] = sum / count;
}
"""


def blurred(image):
    """The same mean, in the kernel's order of summation."""
    height, width = image.shape
    padded = np.pad(image, 1)
    inside = np.pad(np.ones_like(image), 1)
    total = np.zeros_like(image)
    count = np.zeros_like(image)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            total += padded[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]
            count += inside[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]
    return total / count


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    image = floats(rng, height, width)
    out = np.zeros_like(image)
    launch = {"grid": ((width + 15) // 16, (height + 15) // 16), "block": (16, 16)}
    return (image, out, np.int32(width), np.int32(height)), launch, close(out, blurred(image))


KERNEL = Kernel(
    "blur",
    SOURCE,
    setup,
    [
        Bug(
            "no_right_edge_check",
            "if (nx >= 0 && nx < width && ny >= 0 && ny < height)",
            "if (nx >= 0 && ny >= 0 && ny < height)",
            "OutOfBoundsError",
            line="sum += in[ny * width + nx];",
        ),
        Bug(
            "no_top_edge_check",
            "if (nx >= 0 && nx < width && ny >= 0 && ny < height)",
            "if (nx >= 0 && nx < width && ny < height)",
            "OutOfBoundsError",
            line="sum += in[ny * width + nx];",
        ),
    ],
)
