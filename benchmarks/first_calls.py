"""The first call of each kernel family in a fresh process, on the cuda backend.

gpuvec's own kernels are compiled at their first use, by NVRTC for the
device at hand, and kept in the kernel cache on disk (``GPUVEC_CACHE_DIR``):
a first call in a fresh cache waits for one compile, a first call in a later
process loads the kernel from the cache. The mask selection (CUB) is the one
family compiled at build time; on a GPU the build has no machine code (SASS)
for, the driver compiles its PTX at its first call, then caches it
(``CUDA_CACHE_PATH``). To see that, build without the GPU's SASS (for an
H100: ``pip install . -Csetup-args=-Dgpu_arch=8.0+PTX``). Run::

    GPUVEC_CACHE_DIR=$(mktemp -d) python3 benchmarks/first_calls.py  # every compile
    python3 benchmarks/first_calls.py  # twice: the second run loads from the cache

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
    # call of a new kernel waits for its compile (or its load from the cache).
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
