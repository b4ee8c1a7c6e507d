"""Reductions over an axis, on every launch shape of the CUDA backend.

Each case runs a few times from NumPy input, so the wall-clock time includes
the copy to the device. For the kernels alone, run this under Nsight Compute
and read the reduce_* kernels' durations:

    ncu --kernel-name regex:reduce_ --metrics gpu__time_duration.sum \
        python3 benchmarks/reduce_axis.py

Usage: python3 benchmarks/reduce_axis.py [repeats]
"""

import sys
import time

import numpy as np

import gpuvec

# (what the case exercises, shape, axis)
CASES = [
    ("many short rows (a group of lanes per row)", (1 << 22, 8), 1),
    ("rows of 1024 (a warp per row)", (1 << 14, 1024), 1),
    ("few long rows (blocks per row, second pass)", (4, 1 << 24), 1),
    ("one long row (blocks, second pass)", (1 << 26,), None),
    ("columns of a wide matrix (tiles)", (1024, 1 << 16), 0),
    ("columns of a tall matrix (column tiles, one launch)", (1 << 22, 32), 0),
]


def main(repeats: int = 3) -> None:
    print(f"backend {gpuvec.backend()}")
    rng = np.random.default_rng(0)
    for what, shape, axis in CASES:
        x = rng.standard_normal(shape, dtype=np.float32)
        for name in ("sum", "max", "argmax", "var"):
            op = getattr(gpuvec, name)
            result = op(x, axis=axis)  # warm up
            start = time.perf_counter()
            for _ in range(repeats):
                result = op(x, axis=axis)
            seconds = (time.perf_counter() - start) / repeats
            expected = getattr(np, name)(x.astype(np.float64), axis=axis)
            ok = np.allclose(result, expected, rtol=1e-4, atol=1e-4)
            print(
                f"{what:48s} {name:7s} {shape!s:18s} {seconds * 1e3:8.2f} ms "
                f"{x.nbytes / seconds / 1e9:7.1f} GB/s {'ok' if ok else 'MISMATCH'}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
