"""A 2-D convolution (correlation) with a 5x5 mask, through a shared tile with a halo."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define TILE 8
#define R 2
#define SIDE (TILE + 2 * R)
__global__ void conv2d(const float* in, const float* mask, float* out, int width, int height) {
    __shared__ float s[SIDE * SIDE];
    __shared__ float m[(2 * R + 1) * (2 * R + 1)];
    int t = threadIdx.y * TILE + threadIdx.x;
    if (t < (2 * R + 1) * (2 * R + 1)) m[t] = mask[t];
    int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
    for (int k = t; k < SIDE * SIDE; k += TILE * TILE) {
        int x = x0 + k % SIDE, y = y0 + k / SIDE;
        s[k] = x >= 0 && x < width && y >= 0 && y < height ? in[y * width + x] : 0.0f;
    }
    __syncthreads();  // the tile and the mask are loaded
    float acc = 0.0f;
    for (int dy = 0; dy <= 2 * R; ++dy)
        for (int dx = 0; dx <= 2 * R; ++dx)
            acc += s[(threadIdx.y + dy) * SIDE + threadIdx.x + dx] * m[dy * (2 * R + 1) + dx];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = acc;
}
"""


def correlate(image, mask):
    h, w = image.shape
    p = np.pad(image, 2)
    out = np.zeros_like(image)
    for dy in range(5):
        for dx in range(5):
            out += p[dy : dy + h, dx : dx + w] * mask[dy, dx]
    return out


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 60)) | 1
    image, mask = floats(rng, height, width), floats(rng, 5, 5)
    out = np.zeros_like(image)
    launch = {"grid": ((width + 7) // 8, (height + 7) // 8), "block": (8, 8)}
    expected = correlate(image.astype(np.float64), mask)
    args = (image, mask, out, np.int32(width), np.int32(height))
    return args, launch, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "conv2d",
    SOURCE,
    setup,
    [
        Bug(
            "missing_barrier",
            "    __syncthreads();  // the tile and the mask are loaded\n",
            "",
            "RaceError",
            line="acc += s[(threadIdx.y + dy) * SIDE",
        ),
        Bug(
            "mask_loaded_by_too_few",
            "if (t < (2 * R + 1) * (2 * R + 1)) m[t] = mask[t];",
            "if (t < 2 * R + 1) m[t] = mask[t];",
            "UninitializedReadError",
            line="acc += s[(threadIdx.y + dy) * SIDE",
        ),
        Bug(
            "mask_loaded_by_all",
            "if (t < (2 * R + 1) * (2 * R + 1)) m[t] = mask[t];",
            "m[t] = mask[t];",
            "OutOfBoundsError",
        ),
    ],
)
