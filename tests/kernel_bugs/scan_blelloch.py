"""An exclusive scan of each block's 2 * blockDim.x elements (Blelloch): up-sweep, down-sweep."""

import numpy as np

from kernel_bugs._case import Bug, Kernel, close, floats

SOURCE = r"""
#define N 256
__global__ void scan_blelloch(const float* in, float* out, int n) {
    __shared__ float temp[N];
    int t = threadIdx.x, base = blockIdx.x * N;
    temp[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0.0f;
    temp[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = N / 2; d > 0; d /= 2) {  // up-sweep: partial sums in place
        __syncthreads();  // the level below is done
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (t == 0) temp[N - 1] = 0.0f;  // the root: the exclusive scan starts at zero
    for (int d = 1; d < N; d *= 2) {  // down-sweep
        offset /= 2;
        __syncthreads();  // the level above is done
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            float left = temp[a];
            temp[a] = temp[b];
            temp[b] += left;
        }
    }
    __syncthreads();  // the scan is done
    if (base + 2 * t < n) out[base + 2 * t] = temp[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = temp[2 * t + 1];
}
"""


def setup(rng):
    n = int(rng.integers(600, 1200)) | 1
    x = floats(rng, n)
    out = np.zeros(n, np.float32)
    blocks = (n + 255) // 256
    padded = np.pad(x.astype(np.float64), (0, blocks * 256 - n)).reshape(blocks, 256)
    inclusive = np.cumsum(padded, axis=1)
    expected = (inclusive - padded).ravel()[:n]
    return (x, out, np.int32(n)), {"grid": blocks, "block": 128}, close(out, expected, 1e-4, 1e-4)


KERNEL = Kernel(
    "scan_blelloch",
    SOURCE,
    setup,
    [
        Bug(
            "missing_up_sweep_barrier",
            "        __syncthreads();  // the level below is done\n",
            "",
            "RaceError",
            line="temp[b] += temp[a];",
        ),
        Bug(
            "root_cleared_by_all",
            "if (t == 0) temp[N - 1] = 0.0f;",
            "temp[N - 1] = 0.0f;",
            "RaceError",
        ),
        Bug(
            "sweep_past_the_end",
            "int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;\n"
            "            temp[b] += temp[a];",
            "int a = offset * (2 * t + 1), b = offset * (2 * t + 2);\n"
            "            temp[b] += temp[a];",
            "OutOfBoundsError",
            line="temp[b] += temp[a];",
        ),
    ],
)
