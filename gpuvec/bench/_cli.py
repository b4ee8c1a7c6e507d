"""The command line, ``python3 -m gpuvec.bench``."""

from __future__ import annotations

import argparse
import shlex
import sys

from gpuvec.bench._report import SUMMARY_SIZES, to_markdown, write
from gpuvec.bench._suite import (
    DTYPES,
    KERNEL_GROUP,
    KERNEL_ONLY_PEERS,
    KERNEL_OPS,
    OPS,
    PEERS,
    run,
)

_EPILOG = """\
examples:
  python3 -m gpuvec.bench --quick --out /tmp/bench       a fast check that all runs and is right
  python3 -m gpuvec.bench --out results                  everything, 2^10..2^28 on a GPU
  python3 -m gpuvec.bench --ops add,sum --sizes 20:28:2 --dtypes float32 --peers cupy
  python3 -m gpuvec.bench --ops kernels                  users' own kernels: launch, compile, host

The exit status is 1 when any gpuvec result disagrees with NumPy, whatever the times.
"""


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``python3 -m gpuvec.bench``."""
    p = argparse.ArgumentParser(
        prog="python3 -m gpuvec.bench",
        description="Time gpuvec's ops and compare them with CuPy, PyTorch and NumPy "
        "in the same run; write bench.json, bench.md and bench.png.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--ops",
        default=None,
        help=f"comma-separated benchmarks (default all): {','.join(OPS + KERNEL_OPS)}; "
        f"'{KERNEL_GROUP}' for all of {','.join(KERNEL_OPS)}",
    )
    p.add_argument(
        "--sizes",
        default=None,
        help="element counts of the swept benchmarks: '10:28' is 2^10..2^28, '10:28:2' every "
        "other power, or a list such as '20,24,28' (exponents up to 40, counts above); "
        "default 10:28 on a GPU, 10:24 on the host backend",
    )
    p.add_argument("--dtypes", default=None, help=f"comma-separated, default {','.join(DTYPES)}")
    p.add_argument(
        "--peers",
        default=None,
        help=f"comma-separated from {','.join(PEERS + KERNEL_ONLY_PEERS)} (numba: the kernel "
        "rows only), or 'none'; default whichever import (NumPy alone on the host backend)",
    )
    p.add_argument("--repeat", type=int, default=None, help="timed runs per figure (default 50)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up runs (default 5)")
    p.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="time budget per figure for warm-up and again for timed runs; at least 3 runs "
        "are timed (default 1.0)",
    )
    p.add_argument(
        "--out", default="gpuvec-bench", help="folder for the results (default ./gpuvec-bench)"
    )
    p.add_argument(
        "--quick", action="store_true", help="a tiny fast run, for CI: checks, not timings"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random data (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv=None) -> int:
    """Runs ``python3 -m gpuvec.bench`` with ``argv`` (default: the command line).

    Returns
    -------
    int
        0 when every gpuvec result agreed with NumPy, 1 otherwise, 2 for bad arguments.
    """
    p = parser()
    args = p.parse_args(argv)
    given = sys.argv[1:] if argv is None else list(argv)
    try:
        results = run(
            args.ops,
            args.sizes,
            args.dtypes,
            args.peers,
            repeat=args.repeat,
            warmup=args.warmup,
            max_seconds=args.max_seconds,
            quick=args.quick,
            progress=not args.no_progress,
            seed=args.seed,
            command=shlex.join(["python3", "-m", "gpuvec.bench", *given]),
        )
    except ValueError as exc:  # a bad --ops, --sizes, ... value
        p.print_usage(sys.stderr)
        print(f"{p.prog}: error: {exc}", file=sys.stderr)
        return 2
    paths = write(results, args.out)
    # The full table can run to hundreds of rows: print the sizes people quote; the files
    # hold the rest.
    swept = {row["n"] for row in results["rows"] if row["kind"] == "bandwidth"}
    keep = set(SUMMARY_SIZES) & swept or None
    print(to_markdown(results, sizes=keep))
    if keep:
        shown = ", ".join(f"2^{n.bit_length() - 1}" for n in sorted(keep))
        print(f"(swept rows of sizes {shown} only; bench.md has them all)")
    print("wrote " + ", ".join(str(path) for path in paths.values() if path is not None))
    if not results["correct"]:
        rows = results["rows"] + results["kernels"]
        wrong = [f"{r['op']} n={r['n']} {r['dtype']}" for r in rows if not r["correct"]]
        print(f"gpuvec results disagree with NumPy: {'; '.join(wrong)}", file=sys.stderr)
        return 1
    return 0
