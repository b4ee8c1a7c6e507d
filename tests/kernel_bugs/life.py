"""One step of Conway's Game of Life on a torus (the edges wrap around)."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
__global__ void life_step(const int* cells, int* next, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int left = (x + width - 1) % width, right = (x + 1) % width;
    int up = (y + height - 1) % height, down = (y + 1) % height;
    int alive = cells[up * width + left] + cells[up * width + x] + cells[up * width + right] +
                cells[y * width + left] + cells[y * width + right] +
                cells[down * width + left] + cells[down * width + x] + cells[down * width + right];
    int me = cells[y * width + x];
    next[y * width + x] = alive == 3 || (me && alive == 2);
}
"""


def step(cells):
    alive = sum(
        np.roll(np.roll(cells, dy, axis=0), dx, axis=1)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dy, dx) != (0, 0)
    )
    return ((alive == 3) | ((cells == 1) & (alive == 2))).astype(np.int32)


def setup(rng):
    height, width = int(rng.integers(20, 40)) | 1, int(rng.integers(41, 70)) | 1
    cells = (rng.random((height, width)) < 0.35).astype(np.int32)
    nxt = np.zeros_like(cells)
    launch = {"grid": ((width + 15) // 16, (height + 15) // 16), "block": (16, 16)}
    return (cells, nxt, np.int32(width), np.int32(height)), launch, equal(nxt, step(cells))


KERNEL = Kernel(
    "life_step",
    SOURCE,
    setup,
    [
        Bug(
            "no_wrap_down",
            "down = (y + 1) % height;",
            "down = y + 1;",
            "OutOfBoundsError",
            line="cells[down * width + left]",
        ),
        Bug(
            "negative_modulo",
            "int up = (y + height - 1) % height,",
            "int up = (y - 1) % height,",
            "OutOfBoundsError",
            line="int alive = cells[up * width + left]",
        ),
    ],
)
