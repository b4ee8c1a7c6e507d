"""The Sobel gradient magnitude (squared) of an image, through a shared tile with a halo."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define TILE 16
__global__ void sobel(const float* in, float* out, int width, int height) {
    __shared__ float s[TILE + 2][TILE + 2];
    int x0 = blockIdx.x * TILE - 1, y0 = blockIdx.y * TILE - 1;  // the halo's corner
    // The tile and its halo, (TILE + 2)^2 values, zero outside the image.
    for (int j = threadIdx.y; j < TILE + 2; j += TILE) {
        for (int i = threadIdx.x; i < TILE + 2; i += TILE) {
            int x = x0 + i, y = y0 + j;
            s[j][i] = x >= 0 && x < width && y >= 0 && y < height ? in[y * width + x] : 0.0f;
        }
    }
    __syncthreads();  // the tile is loaded
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    int i = threadIdx.x + 1, j = threadIdx.y + 1;
    float gx = (s[j - 1][i + 1] + 2.0f * s[j][i + 1] + s[j + 1][i + 1]) -
               (s[j - 1][i - 1] + 2.0f * s[j][i - 1] + s[j + 1][i - 1]);
    float gy = (s[j + 1][i - 1] + 2.0f * s[j + 1][i] + s[j + 1][i + 1]) -
               (s[j - 1][i - 1] + 2.0f * s[j - 1][i] + s[j - 1][i + 1]);
    if (x < width && y < height) out[y * width + x] = gx * gx + gy * gy;
}
"""


def sobel(image):
    p = np.pad(image, 1)
    h, w = image.shape

    def at(dy, dx):
        return p[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]

    gx = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
    gy = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
    return gx * gx + gy * gy


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    image = floats(rng, height, width)
    out = np.zeros_like(image)
    launch = {"grid": ((width + 15) // 16, (height + 15) // 16), "block": (16, 16)}
    expected = sobel(image.astype(np.float64))
    args = (image, out, np.int32(width), np.int32(height))
    return args, launch, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "sobel",
    SOURCE,
    setup,
    [
        Bug(
            "missing_barrier",
            "    __syncthreads();  // the tile is loaded\n",
            "",
            "RaceError",
            line="s[j][i] = x >= 0",
        ),
        Bug(
            "no_halo",
            "for (int j = threadIdx.y; j < TILE + 2; j += TILE) {\n"
            "        for (int i = threadIdx.x; i < TILE + 2; i += TILE) {",
            "for (int j = threadIdx.y; j < TILE; j += TILE) {\n"
            "        for (int i = threadIdx.x; i < TILE; i += TILE) {",
            "UninitializedReadError",
            line="float gx = ",
        ),
        Bug(
            "early_return",
            "    int x0 = blockIdx.x",
            "    if (blockIdx.x * TILE + threadIdx.x >= width) return;\n    int x0 = blockIdx.x",
            "BarrierDivergenceError",
            line="__syncthreads();  // the tile is loaded",
        ),
    ],
)
