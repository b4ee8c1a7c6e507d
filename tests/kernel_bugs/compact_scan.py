"""Stream compaction by a scan of flags in each block: the positive elements, in order."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, equal, floats

SOURCE = r"""
#define BLOCK 128
__global__ void compact_block(const float* in, float* out, int* counts, int n) {
    __shared__ int pos[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    int keep = i < n && in[i] > 0.0f;
    pos[t] = keep;
    __syncthreads();  // the flags are in
    for (int offset = 1; offset < BLOCK; offset *= 2) {  // an inclusive scan of the flags
        int add = t >= offset ? pos[t - offset] : 0;
        __syncthreads();  // all have read
        pos[t] += add;
        __syncthreads();  // all have written
    }
    if (keep) out[blockIdx.x * BLOCK + pos[t] - 1] = in[i];
    if (t == BLOCK - 1) counts[blockIdx.x] = pos[t];
}
"""


def setup(rng):
    n = int(rng.integers(500, 1000)) | 1
    x = floats(rng, n)
    blocks = (n + 127) // 128
    out = np.zeros(blocks * 128, np.float32)
    counts = np.zeros(blocks, np.int32)
    chunks = [x[b * 128 : (b + 1) * 128] for b in range(blocks)]
    expected_counts = np.array([(c > 0).sum() for c in chunks], np.int32)
    expected_out = np.zeros_like(out)
    for b, c in enumerate(chunks):
        expected_out[b * 128 : b * 128 + expected_counts[b]] = c[c > 0]
    check_out, check_counts = equal(out, expected_out), equal(counts, expected_counts)

    def check():
        check_out()
        check_counts()

    launch = {"grid": blocks, "block": 128}
    return (x, out, counts, np.int32(n)), launch, check


KERNEL = Kernel(
    "compact_block",
    SOURCE,
    setup,
    [
        Bug(
            "missing_read_barrier",
            "        __syncthreads();  // all have read\n",
            "",
            "RaceError",
            line="pos[t] += add;",
        ),
        Bug(
            "early_return",
            "    int keep = i < n && in[i] > 0.0f;",
            "    if (i >= n) return;\n    int keep = i < n && in[i] > 0.0f;",
            "BarrierDivergenceError",
            line="__syncthreads();  // the flags are in",
        ),
    ],
)
