"""Stream compaction with an atomic counter: the positive elements, in no set order."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, floats

SOURCE = r"""
__global__ void compact_positive(const float* in, float* out, int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) {
        int slot = atomicAdd(count, 1);
        out[slot] = in[i];
    }
}
"""


def setup(rng):
    n = int(rng.integers(1000, 3000)) | 1
    x = floats(rng, n)
    kept = np.sort(x[x > 0])
    out = np.zeros(kept.size, np.float32)  # room for exactly the positive elements
    count = np.zeros(1, np.int32)

    def check():
        assert int(count[0]) == kept.size
        np.testing.assert_array_equal(np.sort(out), kept)

    return (x, out, count, np.int32(n)), {"grid": (n + 127) // 128, "block": 128}, check


KERNEL = Kernel(
    "compact_positive",
    SOURCE,
    setup,
    [
        Bug(
            "missing_guard",
            "if (i < n && in[i] > 0.0f)",
            "if (in[i] > 0.0f)",
            "OutOfBoundsError",
        ),
        Bug(
            "keeps_zero_and_more",
            "in[i] > 0.0f)",
            "in[i] >= -0.5f)",
            "OutOfBoundsError",
            line="out[slot] = in[i];",
        ),
        # A race on global memory within a block.
        Bug(
            "counter_without_atomic",
            "int slot = atomicAdd(count, 1);",
            "int slot = count[0];\n        count[0] = slot + 1;",
            "RaceError",
        ),
    ],
    # The elements land in the order the threads' atomics come, which the
    # two backends do not share.
    same_bits=False,
)
