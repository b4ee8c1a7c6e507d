"""Odd-even transposition sort of each block's 2 * blockDim.x keys in shared memory."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
#define N 128
__global__ void odd_even_sort(int* keys) {
    __shared__ int s[N];
    int t = threadIdx.x, base = blockIdx.x * N;
    s[2 * t] = keys[base + 2 * t];
    s[2 * t + 1] = keys[base + 2 * t + 1];
    __syncthreads();  // loaded
    for (int phase = 0; phase < N; ++phase) {
        int i = 2 * t + (phase & 1);  // even phases pair (0, 1), ...; odd ones (1, 2), ...
        if (i + 1 < N && s[i] > s[i + 1]) {
            int tmp = s[i];
            s[i] = s[i + 1];
            s[i + 1] = tmp;
        }
        __syncthreads();  // a phase done
    }
    keys[base + 2 * t] = s[2 * t];
    keys[base + 2 * t + 1] = s[2 * t + 1];
}
"""


def setup(rng):
    blocks = int(rng.integers(2, 5))
    keys = rng.integers(-1000, 1000, blocks * 128).astype(np.int32)
    expected = np.sort(keys.reshape(blocks, 128), axis=1).ravel()
    return (keys,), {"grid": blocks, "block": 64}, equal(keys, expected)


KERNEL = Kernel(
    "odd_even_sort",
    SOURCE,
    setup,
    [
        Bug(
            "missing_phase_barrier",
            "        __syncthreads();  // a phase done\n",
            "",
            "RaceError",
            line=("if (i + 1 < N && s[i] > s[i + 1]) {", "s[i + 1] = tmp;"),
        ),
        Bug(
            "no_end_guard",
            "if (i + 1 < N && s[i] > s[i + 1]) {",
            "if (s[i] > s[i + 1]) {",
            "OutOfBoundsError",
        ),
    ],
)
