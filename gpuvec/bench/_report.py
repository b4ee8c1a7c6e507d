"""Reports of a run: a Markdown table, a plot, and the files that hold them."""

from __future__ import annotations

import json
from pathlib import Path

from gpuvec.bench._suite import DTYPES, KERNEL_ONLY_PEERS, PEERS, SWEEP_OPS, USER_GROUP

MICRO = "\u00b5"
_TITLES = {
    "add": "add",
    "axpy": "axpy (2x + y)",
    "sum": "sum",
    "dot": "dot",
    "norm": "norm",
    "add_step2": "add of step-2 views (useful GB/s)",
}
_COLORS = {"gpuvec": "C0", "cupy": "C1", "torch": "C2", "numpy": "C3"}
# The sizes the short summary keeps: those of the peers' table in the project's notes.
SUMMARY_SIZES = (1 << 20, 1 << 24, 1 << 28)


def _time(ms) -> str:
    if ms is None:
        return "-"
    if ms < 1:
        return f"{ms * 1e3:.2f} {MICRO}s"
    if ms < 1000:
        return f"{ms:.3f} ms"
    return f"{ms / 1e3:.2f} s"


def _size(row) -> str:
    if len(row["shape"]) > 1:
        return "x".join(str(s) for s in row["shape"])
    n = row["n"]
    return f"2^{n.bit_length() - 1}" if n > 1 and n & (n - 1) == 0 else f"{n:,}"


def _peers_in(results, group=None) -> list[str]:
    rows = [row for row in results["rows"] if row.get("group") == group]
    present = {name for row in rows for name in row["results"]}
    return [name for name in PEERS if name in present]


def _figure(row, entry) -> str:
    """A library's cell: GB/s, or the time per call for latency rows; its error if it failed."""
    if entry is None:
        return "-"
    if "error" in entry:
        return "error"
    if row["kind"] == "latency" or entry.get("gbps") is None:
        return _time(entry.get("median_ms"))
    return f"{entry['gbps']:.1f}"


def _row_label(row) -> str:
    """Size and dtype, as the lists under the tables name a row (kernel rows may have none)."""
    return "-" if row.get("shape") is None else f"{_size(row)} {row['dtype']}"


def _dtype(row) -> str:
    source = row.get("input_dtype")
    return row["dtype"] if source in (None, row["dtype"]) else f"{row['dtype']} (from {source})"


def table(results, sizes=None) -> str:
    """The Markdown table of a run: one row per benchmark, size and dtype.

    Parameters
    ----------
    results : dict
        From :func:`gpuvec.bench.run` (or a ``bench.json`` loaded back).
    sizes : collection of int, optional
        Keep only the swept rows of these sizes (the other rows stay).

    Returns
    -------
    str
        The table, with columns for gpuvec's time, GB/s and percent of the
        device copy bandwidth, each peer's GB/s (time, for latency rows)
        and gpuvec/peer (gpuvec's speed over the peer's: above 1, gpuvec
        is faster), and whether gpuvec's result agreed with NumPy.
    """
    peers = _peers_in(results)
    header = ["benchmark", "size", "dtype", "gpuvec time", "gpuvec GB/s", "% of copy"]
    for peer in peers:
        header += [f"{peer} GB/s", f"gpuvec/{peer}"]
    header.append("correct")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 3 + "---:|" * (len(header) - 4)]
    lines[-1] += "---|"
    for row in results["rows"]:
        if row.get("group") is not None:  # "what users write" has a table of its own
            continue
        if sizes is not None and row["op"] in SWEEP_OPS and row["n"] not in sizes:
            continue
        ours = row["results"].get("gpuvec")
        cells = [row["op"], _size(row), _dtype(row)]
        if ours is None or "median_ms" not in ours:
            cells += ["error", "-", "-"]
        else:
            latency = row["kind"] == "latency"
            cells.append(_time(ours["median_ms"]) + ("/call" if latency else ""))
            cells.append("-" if latency or ours.get("gbps") is None else f"{ours['gbps']:.1f}")
            pct = ours.get("pct_copy")
            cells.append("-" if pct is None else f"{pct:.1f}%")
        for peer in peers:
            entry = row["results"].get(peer)
            cells.append(_figure(row, entry))
            ratio = None if entry is None else entry.get("ratio")
            cells.append("-" if ratio is None else f"{ratio:.2f}")
        cells.append("yes" if row["correct"] else "**NO**")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _us(entry) -> str:
    """A time per call in microseconds, as many digits as mean something."""
    if entry is None:
        return "-"
    if "error" in entry:
        return "error"
    us = entry["median_ms"] * 1e3
    return f"{us:.2f}" if us < 100 else f"{us:,.1f}" if us < 10_000 else f"{us:,.0f}"


def _ratio(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def users_table(results) -> str:
    """The Markdown table of "what users write": one row per workload, shape and dtype.

    Columns: gpuvec's code, its microseconds per call, GB/s (where the job
    moves a natural number of bytes) and its time over its baseline's
    (``vs call_add``: the contiguous add of the same size), then each peer's
    microseconds and gpuvec/peer (above 1, gpuvec is faster). Empty where
    no such row ran.
    """
    rows = [row for row in results["rows"] if row.get("group") == USER_GROUP]
    if not rows:
        return ""
    peers = _peers_in(results, USER_GROUP)
    bases = sorted({row["baseline"] for row in rows if row.get("baseline")})
    header = ["benchmark", "gpuvec code", "shape", "dtype", f"gpuvec {MICRO}s", "gpuvec GB/s"]
    if bases:
        header.append(f"vs {'/'.join(bases)}")
    for peer in peers:
        header += [f"{peer} {MICRO}s", f"gpuvec/{peer}"]
    header.append("correct")
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|---|" + "---:|" * (len(header) - 5)]
    lines[-1] += "---|"
    for row in rows:
        ours = row["results"].get("gpuvec")
        code = ours["how"] if ours else ""
        cells = [row["op"], f"`{code}`", _size(row), row["dtype"]]
        if ours is None or "median_ms" not in ours:
            cells += ["error", "-"]
        else:
            cells.append(_us(ours))
            cells.append("-" if ours.get("gbps") is None else f"{ours['gbps']:.1f}")
        if bases:
            cells.append(_ratio(None if ours is None else ours.get("vs_baseline")))
        for peer in peers:
            entry = row["results"].get(peer)
            cells += [_us(entry), _ratio(None if entry is None else entry.get("ratio"))]
        cells.append("yes" if row["correct"] else "**NO**")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _kernel_figure(row, entry) -> str:
    """A kernel row's figure in its unit: µs per call, ms, or ns per fiber switch."""
    if entry is None:
        return "-"
    if "error" in entry:
        return "error"
    value = entry.get("value")
    if value is None:
        return "-"
    if row["unit"] == "ms":
        return _time(value)
    unit = f"{MICRO}s" if row["unit"] == "us" else row["unit"]
    return f"{value:.2f} {unit}" if value < 100 else f"{value:,.1f} {unit}"


def _figure3(value) -> str:
    """Three significant digits: the host rows' GB/s and ratios run from 1e-4 to 100."""
    return "-" if value is None else f"{value:.3g}"


def _kernel_size(row) -> str:
    if row["shape"] is None:
        return "-"
    return f"{_size(row)} {row['dtype']}"


def _met(target) -> str:
    if target is None:
        return "-"
    verdict = {True: "yes", False: "**no**", None: "-"}[target["met"]]
    unchecked = "; ".join(target["unchecked"])
    return f"{verdict} ({unchecked})" if unchecked else verdict


def kernels_table(results) -> str:
    """The Markdown table of users' own kernels: one row per benchmark of ``--ops kernels``.

    Columns: gpuvec's code, the backend it ran on, the data, gpuvec's figure
    (µs per launch, ms, or ns per fiber switch), GB/s where the job is one of
    bandwidth, its time over ``gv.add``'s (the launch rows), each peer's
    figure and gpuvec/peer (above 1, gpuvec is faster), the target and
    whether it was met. Empty where no such row ran.
    """
    rows = results.get("kernels", [])
    if not rows:
        return ""
    present = {name for row in rows for name in row["results"]}
    peers = [name for name in (*PEERS, *KERNEL_ONLY_PEERS) if name in present]
    header = ["benchmark", "gpuvec code", "backend", "data", "gpuvec", "GB/s", "vs gv.add"]
    for peer in peers:
        header += [peer, f"gpuvec/{peer}"]
    header += ["target", "met", "correct"]
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|---|" + "---:|" * (len(header) - 7)]
    lines[-1] += "---|---|---|"
    for row in rows:
        ours = row["results"].get("gpuvec")
        cells = [row["op"], f"`{ours['how']}`" if ours else "", row["backend"], _kernel_size(row)]
        cells.append("error" if ours is None else _kernel_figure(row, ours))
        cells.append(_figure3(None if ours is None else ours.get("gbps")))
        cells.append(_figure3(None if ours is None else ours.get("vs_reference")))
        for peer in peers:
            entry = row["results"].get(peer)
            cells += [_kernel_figure(row, entry), _figure3(entry and entry.get("ratio"))]
        target = row["target"]
        cells += ["-" if target is None else target["text"], _met(target)]
        cells.append("yes" if row["correct"] else "**NO**")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _kernels_section(results) -> list[str]:
    """The heading, what the kernels table shows, the table, and its rows' notes."""
    rows = results["kernels"]
    reference = next((row["reference"]["how"] for row in rows if row.get("reference")), None)
    compilers = sorted({row["compiler"] for row in rows if row.get("compiler")})
    lines = [
        "",
        "## Users' kernels",
        "",
        "Kernels written by users, `gv.SourceModule` and `gv.RawKernel`, in a kernel cache of "
        "the run's own (a temporary folder). bench.json (`kernels`) has every library's code.",
        f"Figures: the median; launch rows in {MICRO}s per launch of a 1024-element vecadd on "
        "resident data, the other rows in ms, the fiber switch in ns; `vs gv.add`: gpuvec's "
        "time over its own tiny add on the same arrays"
        + (f" (`{reference}`)" if reference else "")
        + "; gpuvec/peer: above 1, gpuvec is faster; `met`: whether gpuvec's median meets "
        "the target.",
        "",
        f"- timing: {results['timing'].get('kernels', '')}",
        "- host rows (`kernel_host_*`) run on the host backend, whatever the machine: they "
        "measure the emulation",
    ]
    if compilers:
        lines.append(f"- compile rows: {', '.join(compilers)}")
    lines += ["", kernels_table(results)]
    notes = [f"- {row['op']}: {row['note']}" for row in rows if row.get("note")]
    return lines + (["", *notes] if notes else [])


def _users_preamble(results) -> list[str]:
    """What the users table shows, and how each of its rows was timed."""
    kinds: dict[str, list[str]] = {}
    for row in results["rows"]:
        if row.get("group") == USER_GROUP and row["op"] not in kinds.get(row["kind"], []):
            kinds.setdefault(row["kind"], []).append(row["op"])
    how = {
        "bandwidth": "events around each call, as the rows above",
        "latency": "per call, over batches of calls, as the latency rows above",
        "roundtrip": "wall time of each call, as the roundtrip rows above",
    }
    return [
        "Each job as the users of each library write it, on the same data: device arrays "
        "that gpuvec, CuPy and PyTorch share, host copies for NumPy; NumPy arrays for both "
        "gpuvec and NumPy in the `np_*` rows. bench.json has every library's code.",
        f"{MICRO}s: the median time per call; GB/s: the bytes the job must move at the least "
        "(inputs read once, results written once) over that time; `vs`: gpuvec's time over "
        "its own time for the baseline row; gpuvec/peer: above 1, gpuvec is faster; `-`: the "
        "library has no such call, or is not measured here.",
        "",
        *(f"- timed {how[kind]}: {', '.join(ops)}" for kind, ops in kinds.items()),
    ]


def to_markdown(results, sizes=None) -> str:
    """The report of a run in Markdown: where and how it ran, the table, what was skipped.

    Parameters
    ----------
    results : dict
        From :func:`gpuvec.bench.run`.
    sizes : collection of int, optional
        As for :func:`table`: keep only the swept rows of these sizes.

    Returns
    -------
    str
        The Markdown text of ``bench.md``.
    """
    device = results["device"].get("name", "?")
    versions = ", ".join(f"{k} {v}" for k, v in results["versions"].items())
    settings = results["settings"]
    copy = results.get("copy", {})
    lines = [
        "# gpuvec benchmarks",
        "",
        f"- device: {device} (gpuvec backend `{results['backend']}`)",
        f"- date: {results['date']} ({results.get('elapsed_s')} s)",
        f"- command: `{results['command']}`",
        f"- versions: {versions}",
    ]
    if copy.get("results"):
        measured = ", ".join(
            f"{name} `{entry['how']}` "
            + ("failed" if "error" in entry else f"{entry['gbps']:.1f} GB/s")
            for name, entry in copy["results"].items()
        )
        lines.append(
            f"- copy bandwidth ({copy['n']:,} float32, read + write): {measured}; "
            f"'% of copy' is of {copy.get('reference') or 'none'}'s"
        )
    lines += [
        f"- timing: {results['timing']['bandwidth']}; up to {settings['repeat']} runs after "
        f"{settings['warmup']} warm-up runs, at most {settings['max_seconds']} s each way",
        f"- latency rows: {results['timing']['latency']} (up to {settings['tiny_calls']} calls "
        f"x {settings['tiny_batches']} batches)",
        f"- roundtrip rows: {results['timing']['roundtrip']}; GB/s counts the host arrays",
        "- GB/s: bytes of every input read once and every output written once, over the "
        "median time; gpuvec/peer: gpuvec's speed over the peer's (above 1, gpuvec is faster)",
    ]
    kernel_rows = results.get("kernels", [])
    if not kernel_rows or any(row.get("group") is None for row in results["rows"]):
        lines += ["", table(results, sizes)]  # not when it would be empty (--ops kernels)
    users = users_table(results)
    if users:
        lines += ["", "## What users write", "", *_users_preamble(results), "", users]
        notes = {r["op"]: r["note"] for r in results["rows"] if r.get("group") and r.get("note")}
        if notes:
            lines += ["", *(f"- {op}: {note}" for op, note in notes.items())]
    if kernel_rows:
        lines += _kernels_section(results)
    skipped = results.get("skipped", [])
    if skipped or results.get("peers_skipped"):
        lines += ["", "## Not measured", ""]
        for name, reason in results.get("peers_skipped", {}).items():
            lines.append(f"- {name}: {reason}")
        for item in skipped:
            size = _size({"shape": [0], "n": item["n"]}) if item["n"] else None
            where = " ".join(part for part in (item["op"], size, item["dtype"]) if part)
            lines.append(f"- {where}: {item['reason']}")
    every_row = results["rows"] + kernel_rows
    problems = [
        f"- {row['op']} {_row_label(row)}: "
        f"{row['error'] or 'the result disagrees with NumPy'} "
        f"(max relative error {row['max_rel_error']}, tolerance {row['tolerance']:.3g})"
        for row in every_row
        if not row["correct"]
    ]
    peer_errors = [
        f"- {name}, {row['op']} {_row_label(row)}: {entry['error']}"
        for row in every_row
        for name, entry in row["results"].items()
        if "error" in entry
    ]
    if problems:
        lines += ["", "## Incorrect results", "", *problems]
    if peer_errors or results.get("notes"):
        lines += ["", "## Notes", "", *peer_errors, *(f"- {n}" for n in results["notes"])]
    return "\n".join(lines) + "\n"


def plot(results, *, ops=None, dtypes=None):
    """GB/s against size: one panel per swept op and dtype, one line per library.

    Parameters
    ----------
    results : dict
        From :func:`gpuvec.bench.run` (or a ``bench.json`` loaded back).
    ops, dtypes : sequence of str, optional
        The panels to draw; default every swept op and dtype in ``results``.

    Returns
    -------
    matplotlib.figure.Figure
        A figure made without pyplot, so that a notebook shows it once, as
        the cell's value, and a script can ``savefig`` it anywhere.

    Examples
    --------
    >>> import gpuvec.bench
    >>> results = gpuvec.bench.run(ops="add", quick=True, progress=False)
    >>> fig = gpuvec.bench.plot(results)
    >>> len(fig.axes)  # add, in float32 and float64
    2
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, FuncFormatter

    rows = [
        row
        for row in results["rows"]
        if row["op"] in SWEEP_OPS and row["results"].get("gpuvec", {}).get("gbps")
    ]
    panel_ops = [op for op in SWEEP_OPS if any(r["op"] == op for r in rows)]
    panel_dtypes = [d for d in DTYPES if any(r["dtype"] == d for r in rows)]
    if ops is not None:
        panel_ops = [op for op in panel_ops if op in ops]
    if dtypes is not None:
        panel_dtypes = [d for d in panel_dtypes if d in dtypes]
    title = (
        f"gpuvec {results['versions'].get('gpuvec', '')} on {results['device'].get('name', '?')}"
        f" ({results['backend']} backend), {results['date'][:10]}"
    )
    if not panel_ops or not panel_dtypes:
        fig = Figure(figsize=(6, 2))
        ax = fig.subplots()
        ax.axis("off")
        ax.text(0.5, 0.5, "no swept benchmark in these results", ha="center", va="center")
        fig.suptitle(title, fontsize=9)
        return fig
    reference = results.get("copy", {}).get("reference_gbps")
    nrows, ncols = len(panel_ops), len(panel_dtypes)
    fig = Figure(figsize=(5.2 * ncols, 3.3 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    libraries = ["gpuvec", *PEERS]
    for i, op in enumerate(panel_ops):
        for j, dtype in enumerate(panel_dtypes):
            ax = axes[i][j]
            mine = [r for r in rows if r["op"] == op and r["dtype"] == dtype]
            mine.sort(key=lambda r: r["n"])
            exponents = set()
            for name in libraries:
                points = [
                    (r["n"], r["results"][name]["gbps"])
                    for r in mine
                    if r["results"].get(name, {}).get("gbps")
                ]
                if points:
                    xs, ys = zip(*points, strict=True)
                    ax.plot(xs, ys, marker="o", ms=3, lw=1.4, label=name, color=_COLORS[name])
                    exponents.update(n.bit_length() - 1 for n in xs if n & (n - 1) == 0)
            if reference:
                ax.axhline(reference, ls="--", lw=1, color="0.5", label="copy (the limit)")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            if exponents:
                step = 2 if len(exponents) > 10 else 1
                ticks = [1 << k for k in sorted(exponents)[::step]]
                ax.xaxis.set_major_locator(FixedLocator(ticks))
                ax.xaxis.set_major_formatter(
                    FuncFormatter(lambda x, _: f"$2^{{{int(x).bit_length() - 1}}}$")
                )
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(f"{_TITLES[op]}, {dtype}", fontsize=10)
            if i == nrows - 1:
                ax.set_xlabel("elements")
            if j == 0:
                ax.set_ylabel("GB/s")
            if i == 0 and j == 0:
                ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    return fig


def write(results, out) -> dict[str, Path | None]:
    """Writes ``bench.json``, ``bench.md`` and ``bench.png`` into the folder ``out``.

    The PNG is left out, with a note on stderr, where matplotlib does not import.

    Returns
    -------
    dict
        ``json``, ``md`` and ``png``: the paths written (``png`` may be None).
    """
    import sys

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path | None] = {
        "json": out / "bench.json",
        "md": out / "bench.md",
        "png": out / "bench.png",
    }
    # allow_nan=False: the file must be strict JSON for every reader, so no NaN slips in.
    paths["json"].write_text(json.dumps(results, indent=1, allow_nan=False) + "\n")
    paths["md"].write_text(to_markdown(results), encoding="utf-8")
    try:
        fig = plot(results)
    except ImportError as exc:
        print(f"bench.png not written: {exc} (pip install matplotlib)", file=sys.stderr)
        paths["png"] = None
    else:
        fig.savefig(paths["png"], dpi=110)
    return paths
