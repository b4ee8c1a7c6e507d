"""The host sandbox against compute-sanitizer, on the planted-bug corpus.

Every buggy kernel of ``tests/kernel_bugs/`` runs twice:

- on the host backend, checked (gpuvec's sandbox): the exception it raises;
- on the GPU under each of compute-sanitizer's tools (memcheck, racecheck,
  synccheck, initcheck): whether the tool reports an error in that kernel.

Each bug's kernel is renamed ``<kernel>__<bug>`` so that one sanitizer run
per tool covers the corpus and each report names its bug. The correct
kernels run too: a report on one of them is a false alarm. A fault that
the GPU cannot recover from (a failed ``assert``, an illegal address where
no tool catches it first) would end the run's CUDA context, so each run
leaves out what would: memcheck runs every variant but the failed asserts;
racecheck, synccheck and initcheck run the variants that do not index out
of bounds (which the host run tells). The table says, for each bug, what
the host found and which tools found it ("not run" where none ran it); the
totals follow. Needs a GPU, the cuda backend and ``compute-sanitizer`` on
PATH.

Usage: python3 benchmarks/kernel_bugs_vs_sanitizer.py [--tools memcheck,racecheck,...]
       [--logs DIR]
(``--launch`` is internal: what each sanitizer run executes.)
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import gpuvec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import kernel_bugs  # the corpus lives with the tests

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
CORRECT = "correct"


def corpus():
    """(kernel, bug, source with the kernel renamed, renamed name) for every
    correct kernel (bug None) and every planted bug."""
    cases = []
    for _, module, _ in pkgutil.iter_modules(kernel_bugs.__path__):
        if module.startswith("_"):
            continue
        kernel = importlib.import_module(f"kernel_bugs.{module}").KERNEL
        variants = [(None, kernel.source)]
        variants += [(b, b.source(kernel.source)) for b in kernel.bugs]
        for bug, source in variants:
            renamed = f"{kernel.name}__{bug.name if bug else CORRECT}"
            pattern = rf"\b{kernel.name}\s*\("
            cases.append((kernel, bug, re.sub(pattern, f"{renamed}(", source, count=1), renamed))
    return cases


def launch(kernel, bug, source, name, check=None, options=()):
    """Runs one variant on fresh data; the exception it raised, or None."""
    function = gpuvec.RawKernel(source, name, options=options, source_name=f"{name}.cu")
    args, config, _ = kernel.setup(np.random.default_rng(7))
    if bug is not None and bug.launch is not None:
        config = bug.launch(config)
    try:
        function(*args, **config, check=check)
        gpuvec.synchronize()
    except Exception as error:  # what each variant raises is the datum
        return error
    return None


def run_launches(names: set[str]) -> int:
    """The body of each sanitizer run: the variants named, on the GPU, unchecked."""
    gpuvec.set_backend("cuda")
    for kernel, bug, source, name in corpus():
        if name in names:
            # -lineinfo: the reports name source lines (an NVRTC option only)
            error = launch(kernel, bug, source, name, check=False, options=("-lineinfo",))
            print(f"launched {name}: {type(error).__name__ if error else 'ok'}", flush=True)
    return 0


def sanitizer_findings(tool: str, names: set[str], log_dir: str | None) -> dict[str, int]:
    """Errors compute-sanitizer's `tool` reports on the variants named, per name."""
    command = [
        "compute-sanitizer",
        f"--tool={tool}",
        "--destroy-on-device-error=kernel",
        "--print-limit=10000",
        sys.executable,
        __file__,
        "--launch",
        ",".join(sorted(names)),
    ]
    if tool == "racecheck":
        command.insert(2, "--racecheck-report=hazard")
    env = dict(os.environ, GPUVEC_BACKEND="cuda")
    output = subprocess.run(command, capture_output=True, text=True, env=env).stdout
    if log_dir is not None:  # the tool's own report, to read what it said of each kernel
        (Path(log_dir) / f"{tool}.log").write_text(output)
    counts: dict[str, int] = {}
    block: list[str] = []
    for line in [*output.splitlines(), "========= END"]:
        # A report starts at a line "========= <text>" (not indented further).
        if re.match(r"^========= \S", line) and block:
            found = {n for n in names if any(n in text for text in block)}
            for n in found:
                counts[n] = counts.get(n, 0) + 1
            block = []
        if line.startswith("========="):
            block.append(line)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--logs", help="a folder to keep each tool's report in")
    parser.add_argument("--launch", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.launch is not None:
        return run_launches(set(args.launch.split(",")))
    tools = [t for t in args.tools.split(",") if t]
    cases = corpus()
    gpuvec.set_backend("host")
    host = {}
    for kernel, bug, source, name in cases:
        error = launch(kernel, bug, source, name)
        host[name] = "-" if error is None else getattr(error, "name", "") or type(error).__name__
        if isinstance(error, gpuvec.KernelBugError):
            host[name] = type(error).__name__
    gpuvec.set_backend("cuda")
    runs = {
        tool: {
            name
            for _, _, _, name in cases
            if host[name] != "cudaErrorAssert"
            and (tool == "memcheck" or host[name] not in ("OutOfBoundsError", "cudaErrorAssert"))
        }
        for tool in tools
    }
    found = {tool: sanitizer_findings(tool, runs[tool], args.logs) for tool in tools}
    rows, host_hits, tool_hits, false_host, false_tool = [], 0, dict.fromkeys(tools, 0), 0, 0
    for kernel, bug, _, name in cases:
        by_tool = [tool for tool in tools if found[tool].get(name)]
        if bug is None:
            false_host += host[name] != "-"
            false_tool += bool(by_tool)
        else:
            host_hits += host[name] != "-"
            for tool in by_tool:
                tool_hits[tool] += 1
        ran = any(name in runs[tool] for tool in tools)
        shown = ", ".join(by_tool) or ("-" if ran else "not run")
        rows.append((kernel.name, bug.name if bug else CORRECT, host[name], shown))
    width = max(len(f"{k}/{b}") for k, b, _, _ in rows)
    print(f"| {'kernel/bug':<{width}} | host sandbox | compute-sanitizer |")
    print(f"|{'-' * (width + 2)}|--------------|-------------------|")
    for kernel_name, bug, found_on_host, tools_found in rows:
        print(f"| {f'{kernel_name}/{bug}':<{width}} | {found_on_host} | {tools_found} |")
    bugs = sum(1 for _, b, _, _ in cases if b is not None)
    correct = len(cases) - bugs
    print(f"\nplanted bugs: {bugs}; found by the host sandbox: {host_hits}")
    either = sum(1 for _, b, _, t in rows if b != CORRECT and t not in ("-", "not run"))
    print(f"found by compute-sanitizer (any tool): {either}; per tool: {tool_hits}")
    print(f"variants each tool ran: { {tool: len(runs[tool]) for tool in tools} }")
    print(f"false alarms on {correct} correct kernels: host {false_host}, sanitizer {false_tool}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
