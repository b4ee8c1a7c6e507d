"""An inclusive scan of each block (Hillis and Steele) with two shared buffers in turn."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define BLOCK 128
__global__ void scan_double_buffer(const float* in, float* out, int n) {
    __shared__ float buffer[2][BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    int from = 0, to = 1;
    buffer[from][t] = i < n ? in[i] : 0.0f;
    __syncthreads();  // loaded
    for (int offset = 1; offset < BLOCK; offset *= 2) {
        float v = buffer[from][t];
        if (t >= offset) v += buffer[from][t - offset];
        buffer[to][t] = v;
        __syncthreads();  // a step done: its output is the next step's input
        from = 1 - from;
        to = 1 - to;
    }
    if (i < n) out[i] = buffer[from][t];
}
"""


def setup(rng):
    n = int(rng.integers(500, 1000)) | 1
    x = floats(rng, n)
    out = np.zeros(n, np.float32)
    blocks = (n + 127) // 128
    padded = np.pad(x.astype(np.float64), (0, blocks * 128 - n)).reshape(blocks, 128)
    expected = np.cumsum(padded, axis=1).ravel()[:n]
    return (x, out, np.int32(n)), {"grid": blocks, "block": 128}, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "scan_double_buffer",
    SOURCE,
    setup,
    [
        Bug(
            "missing_step_barrier",
            "        __syncthreads();  // a step done: its output is the next step's input\n",
            "",
            # The second step reads the first step's output, which its
            # writers have not written yet: checked mode finds it unwritten.
            "UninitializedReadError",
            line="if (t >= offset) v += buffer[from][t - offset];",
        ),
        Bug(
            "one_buffer",
            "        buffer[to][t] = v;",
            "        buffer[from][t] = v;",
            "RaceError",
        ),
        Bug(
            "no_offset_guard",
            "if (t >= offset) v += buffer[from][t - offset];",
            "v += buffer[from][t - offset];",
            "OutOfBoundsError",
        ),
    ],
)
