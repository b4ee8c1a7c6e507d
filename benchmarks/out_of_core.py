"""Out of core: gpuvec on Dask against NumPy on Dask, in GB/s of data read from disk.

A float32 array several times larger than the device-memory budget, in a
.npy file, goes through two passes, each one Dask computation in chunks:

1. statistics: the mean and standard deviation of every column (one read);
2. a pipeline: y = tanh((x - mean) / std), written to a second .npy file
   (one read, one write).

gpuvec runs both on DeviceArray chunks (gpuvec.dask.to_device): on a
dask_cuda.LocalCUDACluster, one worker per GPU, where dask_cuda and a GPU are
there; on a LocalCluster of --workers processes sharing the current GPU when
that is given; else on Dask's threads in this process. NumPy runs the same Dask
graphs with NumPy chunks on Dask's threads, one per core. Every GB/s is the
input file's bytes over the wall time of the pass (the pipeline's includes
writing its output and syncing it to disk).

For scale it measures the three rates a chunk passes through: reading the
file from disk (the page cache emptied first where the OS allows it; with
--cached, from the page cache, so that the passes show what the GPUs and the
bus sustain rather than the disk), copying
a chunk to the device (gpuvec.to_device, through the pinned staging buffers),
and computing on a chunk already there. If the passes overlap them, so that
the GPU computes while the next chunk is read, a pass runs near the lowest
of the three; if they took turns, it would run at 1 / (sum of 1 / rate).

gpuvec's device memory is capped at the budget (gpuvec.set_memory_limit, and
GPUVEC_MEMORY_LIMIT for worker processes, which share a GPU's budget), so a
pass that needed more would fail; the data is --times times the budget of
every GPU used. Needs the dask extra (and dask-cuda for LocalCUDACluster).

Usage: python3 benchmarks/out_of_core.py [--budget 2GiB] [--times 4] [--size BYTES]
           [--chunk 128MiB] [--workers N] [--threads N] [--dir PATH] [--keep] [--cached]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dask
import dask.array as da
import numpy as np
from dask.utils import format_bytes, parse_bytes

import gpuvec
import gpuvec.dask

COLUMNS = 1024  # float32: 4 KiB rows


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--budget",
        help="device memory per GPU for gpuvec (default: gpuvec.memory_limit(), which "
        "GPUVEC_MEMORY_LIMIT sets, else 2GiB on a GPU and 16MiB on the host backend)",
    )
    parser.add_argument("--times", type=float, default=4.0, help="data size over the budget")
    parser.add_argument("--size", help="the data size instead (e.g. 32GiB)")
    parser.add_argument(
        "--chunk",
        help="bytes per chunk (default: a worker's share of the budget / (8 x its threads))",
    )
    parser.add_argument(
        "--workers", type=int, help="gpuvec on a LocalCluster of this many processes"
    )
    parser.add_argument("--threads", type=int, default=2, help="threads per gpuvec worker")
    parser.add_argument("--dir", help="where to write the data (default: the temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the files (and reuse them)")
    parser.add_argument(
        "--cached",
        action="store_true",
        help="read the input from the page cache, and leave the output there, not on disk",
    )
    parser.add_argument(
        "--progress", action="store_true", help="show Dask's progress bars (threads only)"
    )
    return parser.parse_args(argv)


# -- the data ---------------------------------------------------------------------------------


def write_input(path: Path, rows: int, block_rows: int) -> None:
    """Random float32 data (mean 1, standard deviation 3) in a .npy file, in blocks."""
    if path.exists() and np.load(path, mmap_mode="r").shape == (rows, COLUMNS):
        return  # kept from an earlier run (--keep)
    out = np.lib.format.open_memmap(path, "w+", np.float32, (rows, COLUMNS))
    starts = range(0, rows, block_rows)
    seeds = np.random.SeedSequence(2026).spawn(len(starts))

    def fill(start, seed):
        block = out[start : start + block_rows]
        np.random.default_rng(seed).standard_normal(block.shape, np.float32, out=block)
        block *= 3
        block += 1

    with ThreadPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(fill, starts, seeds))
    out.flush()


def evict(*paths: Path) -> bool:
    """Writes the files to disk and drops them from the page cache, so that the
    next read comes from the disk; False where the OS offers no way to."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for path in paths:
        if path.exists():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
    return True


def sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the rates a chunk passes through -------------------------------------------------------------


def file_read_gbps(path: Path, cold: bool, threads: int = 8) -> float:
    """The file read once in parallel parts: from disk where `cold`, else from the
    page cache."""
    if cold:
        evict(path)
    size = path.stat().st_size
    part = -(-size // threads)

    def read(start):
        fd, buffer = os.open(path, os.O_RDONLY), memoryview(bytearray(min(part, 64 << 20)))
        try:
            done, length = 0, min(part, size - start)
            while done < length:
                n = os.preadv(fd, [buffer[: length - done]], start + done)
                if n == 0:
                    break
                done += n
            return done
        finally:
            os.close(fd)

    begin = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(read, range(0, size, part)))
    return total / (time.perf_counter() - begin) / 1e9


def median_seconds(work, repeat: int = 5) -> float:
    work()  # warm up: the memory pool, the kernels
    times = []
    for _ in range(repeat):
        begin = time.perf_counter()
        work()
        gpuvec.synchronize()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def step_gbps(chunk_rows: int) -> dict[str, float]:
    """The steps of one chunk after the disk: its copy to the device, each pass's work
    on it there, and the copy of the pipeline's result back to the host."""
    chunk = np.random.default_rng(0).standard_normal((chunk_rows, COLUMNS), np.float32)
    d = gpuvec.to_device(chunk)
    mean, std = statistics_of(d)
    steps = {
        "to the device": lambda: gpuvec.to_device(chunk),
        "statistics": lambda: statistics_of(d),
        "pipeline": lambda: transform(d, mean, std),
        "back to the host": lambda: d.to_host(),
    }
    return {name: chunk.nbytes / median_seconds(step) / 1e9 for name, step in steps.items()}


# -- the two passes -------------------------------------------------------------------------------


def statistics_of(x):
    return x.mean(axis=0), x.std(axis=0)


def transform(x, mean, std):
    return np.tanh((x - mean) / std)


def run_passes(
    source: Path, target: Path, chunk_rows: int, on_device: bool, progress, cold: bool
) -> dict:
    """Both passes over ``source``, from disk and to disk where `cold` (else in the
    page cache); returns their seconds and the statistics."""
    x = gpuvec.dask.from_npy(source, chunks=(chunk_rows, COLUMNS))
    if on_device:
        x = gpuvec.dask.to_device(x)
    if cold:
        evict(source, target)
    begin = time.perf_counter()
    with progress():
        mean, std = dask.compute(*(gpuvec.dask.to_host(s) for s in statistics_of(x)))
    stats_seconds = time.perf_counter() - begin
    # The statistics, as Dask arrays of the chunks' kind, for the second pass.
    m, s = da.from_array(mean), da.from_array(std)
    if on_device:
        m, s = gpuvec.dask.to_device(m), gpuvec.dask.to_device(s)
    if cold:
        evict(source, target)
    begin = time.perf_counter()
    with progress():
        gpuvec.dask.to_npy(transform(x, m, s), target)
    if cold:
        sync(target)
    return {
        "statistics": stats_seconds,
        "pipeline": time.perf_counter() - begin,
        "mean": mean,
        "std": std,
    }


def scheduler_kind(args) -> tuple[str, int]:
    """How gpuvec's passes run, and on how many GPUs: "LocalCluster" (--workers
    processes, sharing the current GPU), "LocalCUDACluster" (one worker per GPU,
    where dask_cuda and a GPU are there) or "threads" (Dask's, in this process)."""
    if args.workers:
        return "LocalCluster", 1
    if gpuvec.backend() == "cuda":
        with contextlib.suppress(ImportError):
            import dask_cuda  # noqa: F401

            return "LocalCUDACluster", len(gpuvec.devices())
    return "threads", 1


@contextlib.contextmanager
def gpuvec_scheduler(kind: str, args, budget: int):
    """Runs the block on ``kind``'s scheduler, gpuvec's device memory capped; yields
    a description of it."""
    # Workers on one GPU share its budget; each of LocalCUDACluster's has a GPU.
    os.environ["GPUVEC_MEMORY_LIMIT"] = str(budget // (args.workers or 1))
    if kind == "threads":
        previous = gpuvec.memory_limit()
        gpuvec.set_memory_limit(budget)  # this process's threads
        try:
            with dask.config.set(scheduler="threads", num_workers=args.threads):
                yield f"Dask threads, {args.threads}"
        finally:
            gpuvec.set_memory_limit(previous)
        return
    import distributed

    if kind == "LocalCluster":
        cluster = distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=args.threads,
            processes=True,
            dashboard_address=None,
        )
    else:
        import dask_cuda

        cluster = dask_cuda.LocalCUDACluster(
            threads_per_worker=args.threads, dashboard_address=None
        )
    with cluster, distributed.Client(cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        # Which GPU each worker computes on: LocalCUDACluster's must differ.
        gpus = set(client.run(lambda: gpuvec.current_device().properties.get("uuid")).values())
        gpus.discard(None)  # the host backend's workers
        yield f"{kind}, {workers} workers x {args.threads} threads, {len(gpus)} GPU(s)"


def progress_bar(show: bool):
    if not show:
        return contextlib.nullcontext
    from dask.diagnostics import ProgressBar

    return ProgressBar


def pass_rates(steps: dict[str, float]) -> dict[str, list[float]]:
    """The rates of the steps each pass takes every chunk through."""
    first = [next(k for k in steps if k.endswith(" read")), "to the device"]
    return {
        "statistics": [steps[k] for k in [*first, "statistics"]],
        "pipeline": [steps[k] for k in [*first, "pipeline", "back to the host"]],
    }


# -- the report -----------------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    cuda = gpuvec.backend() == "cuda"
    default_budget = gpuvec.memory_limit() or ("2GiB" if cuda else "16MiB")
    budget = parse_bytes(args.budget or default_budget)
    kind, gpus = scheduler_kind(args)
    size = parse_bytes(args.size) if args.size else int(args.times * budget * gpus)
    row_bytes = COLUMNS * 4
    rows = max(1, size // row_bytes)
    # Each worker on a GPU has its share of the budget, and a chunk's statistics
    # take a few chunks' worth of temporaries in each of its threads.
    share = budget // (args.workers or 1)
    chunk_rows = max(1, parse_bytes(args.chunk or str(share // (8 * args.threads))) // row_bytes)
    folder = Path(args.dir or tempfile.gettempdir()) / "gpuvec-out-of-core"
    folder.mkdir(parents=True, exist_ok=True)
    source, target = folder / "x.npy", folder / "y.npy"
    free = shutil.disk_usage(folder).free + sum(
        p.stat().st_size for p in (source, target) if p.exists()
    )
    if 2 * rows * row_bytes > free:
        print(f"needs {format_bytes(2 * rows * row_bytes)} in {folder}, {format_bytes(free)} free")
        return 2

    where = gpuvec.current_device().properties["name"] if cuda else "the host"
    nbytes = rows * row_bytes
    print(
        f"backend {gpuvec.backend()} on {where}; {format_bytes(nbytes)} of float32 "
        f"({rows:,} x {COLUMNS}) = {nbytes / (budget * gpus):.1f}x the device-memory budget "
        f"({format_bytes(budget)} per GPU, {gpus} GPU(s)); chunks of "
        f"{format_bytes(chunk_rows * row_bytes)}; files in {folder}"
    )
    try:
        begin = time.perf_counter()
        write_input(source, rows, chunk_rows)
        print(f"wrote the input in {time.perf_counter() - begin:.1f} s")
        cold = not args.cached
        read = "disk read" if cold else "page-cache read"
        steps = {read: file_read_gbps(source, cold), **step_gbps(chunk_rows)}
        gpuvec.free_cached()  # the GPU's memory for the workers
        evicted = cold and evict(source)
        print("one chunk's steps, GB/s: " + ", ".join(f"{k} {v:.2f}" for k, v in steps.items()))
        if cold and not evicted:
            print("the page cache may have answered the disk read")
        for name, rates in pass_rates(steps).items():
            print(
                f"  {name}: {1 / sum(1 / r for r in rates):.2f} GB/s with its steps in turn, "
                f"up to {min(rates):.2f} GB/s with them overlapped (output writes not counted)"
            )
        progress = progress_bar(args.progress)
        with gpuvec_scheduler(kind, args, budget) as gpuvec_where:
            ours = run_passes(source, target, chunk_rows, True, progress, cold)
        sample = slice(0, min(rows, 4 * chunk_rows))
        ours_sample = np.array(np.load(target, mmap_mode="r")[sample])
        with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
            theirs = run_passes(source, target, chunk_rows, False, progress, cold)
        theirs_sample = np.load(target, mmap_mode="r")[sample]
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)

    agree = bool(
        np.allclose(ours["mean"], theirs["mean"], rtol=1e-4, atol=1e-4)
        and np.allclose(ours["std"], theirs["std"], rtol=1e-4)
        and np.allclose(ours_sample, theirs_sample, rtol=1e-4, atol=1e-4)
    )
    print(f"{'':44s} {'statistics':>12s} {'pipeline':>12s}")
    for name, how, result in [
        ("gpuvec", gpuvec_where, ours),
        ("NumPy", f"Dask threads, {os.cpu_count()}", theirs),
    ]:
        rates = [nbytes / result[k] / 1e9 for k in ("statistics", "pipeline")]
        print(f"{name + ' (' + how + ')':44s} {rates[0]:7.2f} GB/s {rates[1]:7.2f} GB/s")
    speedup = [theirs[k] / ours[k] for k in ("statistics", "pipeline")]
    print(f"{'gpuvec / NumPy':44s} {speedup[0]:9.2f}x {speedup[1]:10.2f}x")
    print(f"results agree with NumPy's: {agree}")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
