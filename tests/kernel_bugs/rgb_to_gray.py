"""Converting an RGB image (interleaved uint8 channels) to gray levels in float."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close

SOURCE = r"""
__global__ void rgb_to_gray(const unsigned char* rgb, float* gray, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int pixel = y * width + x;
        float r = rgb[3 * pixel], g = rgb[3 * pixel + 1], b = rgb[3 * pixel + 2];
        gray[pixel] = 0.299f * r + 0.587f * g + 0.114f * b;
    }
}
"""


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    rgb = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    gray = np.zeros((height, width), np.float32)
    r, g, b = (rgb[..., k].astype(np.float32) for k in range(3))
    expected = np.float32(0.299) * r + np.float32(0.587) * g + np.float32(0.114) * b
    launch = {"grid": ((width + 15) // 16, (height + 15) // 16), "block": (16, 16)}
    return (rgb, gray, np.int32(width), np.int32(height)), launch, close(gray, expected)


KERNEL = Kernel(
    "rgb_to_gray",
    SOURCE,
    setup,
    [
        Bug(
            "missing_row_guard",
            "if (x < width && y < height)",
            "if (x < width)",
            "OutOfBoundsError",
            line="float r = rgb[3 * pixel]",
        ),
        Bug(
            "channel_off_by_one",
            "b = rgb[3 * pixel + 2];",
            "b = rgb[3 * pixel + 3];",
            "OutOfBoundsError",
        ),
    ],
)
