"""Smoke test of the benchmark harness, for CI: it runs, writes its files, and is right.

Runs ``python3 -m gpuvec.bench --quick`` (of the installed gpuvec) into a
temporary folder and checks that it exits with status 0, that it wrote
bench.json, bench.md and bench.png, that every benchmark asked for has rows
or a stated reason to be skipped, and that every row's gpuvec result agreed
with NumPy (the harness checks each once). It never looks at a time: on a
CI machine they mean nothing.

Usage: python3 benchmarks/smoke.py [--out DIR] [-- more harness options]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FILES = ("bench.json", "bench.md", "bench.png")


def run_harness(out: Path, options=(), timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs ``python3 -m gpuvec.bench --quick --out OUT [options]`` and returns the process.

    It runs in ``out``'s parent folder, not the repository root, so that it
    is the installed gpuvec that runs, as for the test suite.
    """
    out = Path(out).resolve()
    command = [sys.executable, "-m", "gpuvec.bench", "--quick", "--out", str(out), *options]
    return subprocess.run(
        command, cwd=out.parent, capture_output=True, text=True, timeout=timeout, check=False
    )


def check_outputs(out: Path, ops=None) -> list[str]:
    """What is wrong with a quick run's files in ``out``: an empty list when nothing is.

    Parameters
    ----------
    out : Path
        The harness's ``--out`` folder.
    ops : sequence of str, optional
        The benchmarks that were asked for; default all of them.
    """
    out = Path(out)
    problems = [
        f"{name} is missing or empty"
        for name in FILES
        if not (out / name).is_file() or (out / name).stat().st_size == 0
    ]
    if problems:
        return problems
    if (out / "bench.png").read_bytes()[:8] != PNG_SIGNATURE:
        problems.append("bench.png is not a PNG file")
    results = json.loads((out / "bench.json").read_text())
    from gpuvec.bench import OPS, SCHEMA

    if results.get("schema") != SCHEMA:
        problems.append(f"bench.json has schema {results.get('schema')!r}, not {SCHEMA!r}")
    rows, skipped = results.get("rows", []), results.get("skipped", [])
    for op in OPS if ops is None else ops:
        if not any(r["op"] == op for r in rows) and not any(s["op"] == op for s in skipped):
            problems.append(f"{op}: no rows, and no reason given for skipping it")
    for row in rows:
        if row["correct"] is not True:
            why = row["error"] or f"max relative error {row['max_rel_error']}"
            problems.append(f"{row['op']} n={row['n']} {row['dtype']}: gpuvec is wrong ({why})")
        if "gpuvec" not in row["results"]:
            problems.append(f"{row['op']} n={row['n']} {row['dtype']}: gpuvec was not timed")
    if results.get("correct") is not all(r["correct"] for r in rows):
        problems.append("bench.json's 'correct' does not match its rows")
    tables = markdown_tables((out / "bench.md").read_text(encoding="utf-8"))
    grouped = [r for r in rows if r.get("group")]
    expected = [
        ("| benchmark | size | dtype | gpuvec time", "results", len(rows) - len(grouped)),
        ("| benchmark | gpuvec code | shape |", "what-users-write", len(grouped)),
    ]
    for start, name, count in expected:
        table = next((t for t in tables if t[0].startswith(start)), None)
        if table is None:
            if count:
                problems.append(f"bench.md has no {name} table")
        elif len(table) - 2 != count:
            problems.append(f"bench.md's {name} table has {len(table) - 2} rows, not {count}")
    return problems


def markdown_tables(text: str) -> list[list[str]]:
    """The tables of a Markdown text, each a list of its lines (header and rule included)."""
    tables: list[list[str]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    return tables


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="keep the files here (default: a temp folder)")
    parser.add_argument("options", nargs="*", help="more options for the harness, after --")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gpuvec-bench-") as temp:
        out = args.out or Path(temp) / "out"
        result = run_harness(out, args.options)
        sys.stdout.write(result.stdout)
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            print(f"smoke: the harness exited with status {result.returncode}", file=sys.stderr)
            return 1
        problems = check_outputs(out)
    for problem in problems:
        print(f"smoke: {problem}", file=sys.stderr)
    if not problems:
        print(f"smoke: ok ({os.path.basename(sys.executable)} -m gpuvec.bench --quick)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
