"""The host backend's reductions against NumPy's, median of many calls.

Each case times a gpuvec call and the NumPy call that gives the same result
on the same data, one after the other, and prints the medians and their
ratio. Run it with GPUVEC_BACKEND=host; for the "one core busy" figures of
docs/benchmarks.md, start `python3 -c 'while True: pass' &` first.

Each library's batch starts after a pause of SETTLE_S, so that it does not
share the cores with the other library's threads: after a float64 `np.dot`,
OpenBLAS keeps a worker spinning on another core for about 0.1 s, and a
batch started at once would time that worker's load, not its own call.

Usage: python3 benchmarks/host_reductions.py [--repeat N] [--json] [NAME ...]
(NAME: run only the cases whose label contains it.)
"""

import argparse
import json
import statistics
import time

import numpy as np

import gpuvec as gv

# Longer than OpenBLAS's spin after a call (2**28 cycles by default, its
# OPENBLAS_THREAD_TIMEOUT=28, about 0.1 s) and than the gpuvec pool's.
SETTLE_S = 0.3


def _median_us(fn, repeat: int) -> float:
    time.sleep(SETTLE_S)  # the other library's threads go to sleep
    fn()  # warm up: the pool's threads, the pages of the result
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def cases():
    """(label, gpuvec call, NumPy call), on fresh random data."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        x = rng.random(1 << 22, dtype=dtype)
        y = rng.random(1 << 22, dtype=dtype)
        dx, dy = gv.to_device(x), gv.to_device(y)
        yield f"sum(x) {name}", lambda x=x: gv.sum(x), lambda x=x: np.sum(x)
        yield f"sum(d) {name}", lambda d=dx: gv.sum(d), lambda x=x: np.sum(x)
        yield f"dot(x, y) {name}", lambda x=x, y=y: gv.dot(x, y), lambda x=x, y=y: np.dot(x, y)
        yield (
            f"dot(d, e) {name}",
            lambda d=dx, e=dy: gv.dot(d, e),
            lambda x=x, y=y: np.dot(x, y),
        )
        yield f"argmax(x) {name}", lambda x=x: gv.argmax(x), lambda x=x: np.argmax(x)
        for rows, cols in ((1 << 16, 64), (2048, 2048), (4096, 4096)):
            m = rng.random((rows, cols), dtype=dtype)
            shape = f"{rows}x{cols}"
            for op in ("mean", "sum", "var", "std"):
                yield (
                    f"{op}(m, axis=0) {shape} {name}",
                    lambda m=m, op=op: getattr(gv, op)(m, axis=0),
                    lambda m=m, op=op: getattr(np, op)(m, axis=0),
                )
            yield (
                f"mean(m, axis=1) {shape} {name}",
                lambda m=m: gv.mean(m, axis=1),
                lambda m=m: np.mean(m, axis=1),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="one JSON object per case")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    for label, ours, theirs in cases():
        if args.names and not any(n in label for n in args.names):
            continue
        us, numpy_us = _median_us(ours, args.repeat), _median_us(theirs, args.repeat)
        if args.json:
            print(json.dumps({"case": label, "gpuvec_us": us, "numpy_us": numpy_us}), flush=True)
        else:
            print(f"{label:34s} {us:9.1f} µs  NumPy {numpy_us:9.1f} µs  {us / numpy_us:5.2f}")


if __name__ == "__main__":
    main()
