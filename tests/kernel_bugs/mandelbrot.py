"""The Mandelbrot set: the escape count of each pixel, one thread per pixel."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
__global__ void mandelbrot(int* counts, int width, int height, float x_min, float y_min,
                           float step, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float cr = x_min + x * step, ci = y_min + y * step;
    float zr = 0.0f, zi = 0.0f;
    int count = 0;
    while (count < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++count;
    }
    assert(count <= max_iter);
    counts[y * width + x] = count;
}
"""


def escape_counts(width, height, x_min, y_min, step, max_iter):
    """The same iteration in float32, in the kernel's order of operations."""
    cr = x_min + np.arange(width, dtype=np.float32) * step
    ci = y_min + np.arange(height, dtype=np.float32) * step
    cr, ci = np.broadcast_arrays(cr[None, :], ci[:, None])
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    counts = np.zeros(cr.shape, np.int32)
    for _ in range(max_iter):
        going = zr * zr + zi * zi <= np.float32(4)
        t = zr * zr - zi * zi + cr
        zi = np.where(going, np.float32(2) * zr * zi + ci, zi)
        zr = np.where(going, t, zr)
        counts += going
    return counts


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    step = np.float32(2.5 / width * (0.9 + 0.2 * rng.random()))
    x_min, y_min = np.float32(-2.0), np.float32(-step * height / 2)
    max_iter = int(rng.integers(30, 60))
    counts = np.zeros((height, width), np.int32)
    expected = escape_counts(width, height, x_min, y_min, step, max_iter)
    launch = {"grid": ((width + 15) // 16, (height + 15) // 16), "block": (16, 16)}
    args = (counts, np.int32(width), np.int32(height), x_min, y_min, step, np.int32(max_iter))
    return args, launch, equal(counts, expected)


KERNEL = Kernel(
    "mandelbrot",
    SOURCE,
    setup,
    [
        Bug(
            "one_iteration_too_many",
            "while (count < max_iter &&",
            "while (count <= max_iter &&",
            "cudaErrorAssert",
            line="assert(count <= max_iter);",
        ),
        Bug(
            "missing_guard",
            "    if (x >= width || y >= height) return;\n",
            "",
            "OutOfBoundsError",
            line="counts[y * width + x] = count;",
        ),
    ],
)
