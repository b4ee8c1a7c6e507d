"""A Monte Carlo estimate of pi: points from a linear congruential generator per thread,
the hits counted with atomics."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal

SOURCE = r"""
__global__ void monte_carlo_pi(unsigned int seed, int samples, int* hits) {
    __shared__ int block_hits[1];
    if (threadIdx.x == 0) block_hits[0] = 0;
    __syncthreads();  // zeroed
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int state = seed ^ (i * 2654435761u);
    int mine = 0;
    for (int s = 0; s < samples; ++s) {
        state = state * 1664525u + 1013904223u;
        float x = (state >> 8) * (1.0f / 16777216.0f);
        state = state * 1664525u + 1013904223u;
        float y = (state >> 8) * (1.0f / 16777216.0f);
        mine += x * x + y * y <= 1.0f;
    }
    atomicAdd(&block_hits[0], mine);
    __syncthreads();  // all are counted
    if (threadIdx.x == 0) atomicAdd(hits, block_hits[0]);
}
"""


def count_hits(seed, samples, threads):
    i = np.arange(threads, dtype=np.uint32)
    state = np.uint32(seed) ^ (i * np.uint32(2654435761))
    hits = 0
    a, c, scale = np.uint32(1664525), np.uint32(1013904223), np.float32(1 / 16777216)
    for _ in range(samples):
        state = state * a + c
        x = (state >> np.uint32(8)).astype(np.float32) * scale
        state = state * a + c
        y = (state >> np.uint32(8)).astype(np.float32) * scale
        hits += int((x * x + y * y <= np.float32(1)).sum())
    return hits


def setup(rng):
    seed, samples = np.uint32(rng.integers(0, 2**32)), int(rng.integers(20, 40))
    blocks = int(rng.integers(3, 6))
    hits = np.zeros(1, np.int32)
    expected = [count_hits(seed, samples, blocks * 64)]
    return (seed, np.int32(samples), hits), {"grid": blocks, "block": 64}, equal(hits, expected)


KERNEL = Kernel(
    "monte_carlo_pi",
    SOURCE,
    setup,
    [
        Bug(
            "plain_shared_add",
            "atomicAdd(&block_hits[0], mine);",
            "block_hits[0] += mine;",
            "RaceError",
        ),
        Bug(
            "missing_count_barrier",
            "    __syncthreads();  // all are counted\n",
            "",
            "RaceError",
            line="atomicAdd(&block_hits[0], mine);",
        ),
        # A race on global memory within a block.
        Bug(
            "plain_global_add",
            "atomicAdd(&block_hits[0], mine);",
            "hits[0] += mine;",
            "RaceError",
        ),
    ],
)
