"""Bitonic sort of each block's keys in shared memory, one key per thread."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal, floats

SOURCE = r"""
#define N 256
__global__ void bitonic_sort(float* keys) {
    __shared__ float s[N];
    unsigned int t = threadIdx.x;
    s[t] = keys[blockIdx.x * N + t];
    __syncthreads();  // loaded
    for (unsigned int size = 2; size <= N; size *= 2) {
        for (unsigned int stride = size / 2; stride > 0; stride /= 2) {
            unsigned int partner = t ^ stride;
            if (partner > t) {  // the lower thread of each pair swaps both
                bool ascending = (t & size) == 0;
                if ((s[t] > s[partner]) == ascending) {
                    float tmp = s[t];
                    s[t] = s[partner];
                    s[partner] = tmp;
                }
            }
            __syncthreads();  // a step done
        }
    }
    keys[blockIdx.x * N + t] = s[t];
}
"""


def setup(rng):
    blocks = int(rng.integers(2, 5))
    keys = floats(rng, blocks * 256)
    expected = np.sort(keys.reshape(blocks, 256), axis=1).ravel()
    return (keys,), {"grid": blocks, "block": 256}, equal(keys, expected)


KERNEL = Kernel(
    "bitonic_sort",
    SOURCE,
    setup,
    [
        Bug(
            "missing_step_barrier",
            "            __syncthreads();  // a step done\n",
            "",
            "RaceError",
            line=("if ((s[t] > s[partner]) == ascending) {", "s[partner] = tmp;"),
        ),
        Bug(
            "both_threads_swap",
            "if (partner > t) {  // the lower thread of each pair swaps both",
            "{  // each thread of the pair swaps",
            "RaceError",
            line=("if ((s[t] > s[partner]) == ascending) {", "s[partner] = tmp;"),
        ),
        Bug(
            "partner_by_addition",
            "unsigned int partner = t ^ stride;",
            "unsigned int partner = t + stride;",
            "OutOfBoundsError",
            line="if ((s[t] > s[partner]) == ascending) {",
        ),
    ],
)
