"""The first call of each kernel family in a fresh process, on the cuda backend.

A GPU whose architecture the build has no machine code (SASS) for runs the
embedded PTX, which the driver compiles when a kernel of a translation unit is
first launched: the whole unit at once, then cached (``CUDA_CACHE_PATH``,
``~/.nv/ComputeCache`` by default). This times that wait. To see it on a GPU
the build has SASS for, build without it (for an H100:
``pip install . -Csetup-args=-Dgpu_arch=8.0+PTX``) and run::

    CUDA_CACHE_DISABLE=1 python3 benchmarks/first_calls.py   # every JIT, every run
    python3 benchmarks/first_calls.py                        # the driver's cache
    python3 benchmarks/first_calls.py                        # ... now warm

Usage: python3 benchmarks/first_calls.py
"""

from __future__ import annotations

import time

import numpy as np

import gpuvec as gv


def timed(name: str, call) -> None:
    """Prints the wall-clock time of ``call()``, device work included."""
    start = time.perf_counter()
    call()
    gv.synchronize()
    print(f"{name:28s} {1e3 * (time.perf_counter() - start):9.1f} ms", flush=True)


def main() -> None:
    start = time.perf_counter()
    gv.set_backend("cuda")
    print(f"{'choosing the backend':28s} {1e3 * (time.perf_counter() - start):9.1f} ms")
    x = np.random.default_rng(0).random(1000, dtype=np.float32)
    d = gv.to_device(x)
    gv.synchronize()
    # One call of each family, in the order a notebook meets them: each first
    # call of a kernel of a new translation unit waits for that unit's JIT.
    timed("add f32", lambda: d + d)
    timed("add f32, again", lambda: d + d)
    timed("exp f32", lambda: gv.exp(d))
    timed("add f64", lambda: gv.to_device(x.astype(np.float64)) + 1.0)
    timed("where", lambda: gv.where(d > 0.5, d, 0.0))
    timed("sum f32", lambda: float(gv.sum(d)))
    timed("sum over axis 0", lambda: d.reshape(10, 100).sum(axis=0))
    timed("mask select", lambda: d[d > 0.5])
    timed("astype f64", lambda: d.astype(np.float64))


if __name__ == "__main__":
    main()
