"""The benchmark harness, ``python3 -m gpuvec.bench``: its smoke run, files and checks.

Times are never asserted: only that the harness runs, writes what it
promises, in the documented schema, and catches a wrong result.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import gpuvec
import gpuvec.bench
from gpuvec.bench import KERNEL_OPS, _kernels
from gpuvec.bench._libraries import WORKLOADS_BY_OP as BY_OP

ROOT = Path(__file__).resolve().parent.parent


def _load_smoke():
    spec = importlib.util.spec_from_file_location("smoke", ROOT / "benchmarks" / "smoke.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


smoke = _load_smoke()


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """The smoke path: ``python3 -m gpuvec.bench --quick`` in a subprocess; its output folder."""
    out = tmp_path_factory.mktemp("bench") / "out"
    result = smoke.run_harness(out)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def test_smoke_run_writes_correct_results(quick_run):
    assert smoke.check_outputs(quick_run) == []


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_entry(entry: dict, peer: bool, kind: str) -> None:
    assert isinstance(entry["how"], str)
    if "error" in entry:
        assert peer, "gpuvec's failures belong in the row's error"
        assert isinstance(entry["error"], str)
        return
    for key in ("median_ms", "min_ms"):
        assert _is_number(entry[key])
        assert entry[key] >= 0
    assert entry["min_ms"] <= entry["median_ms"]
    assert entry["runs"] == len(entry["times_ms"]) >= 1
    assert all(_is_number(t) for t in entry["times_ms"])
    if kind == "latency":
        assert entry["gbps"] is None
        assert _is_number(entry["us_per_call"])
    else:
        assert _is_number(entry["gbps"])
        assert entry["gbps"] > 0
    assert entry["pct_copy"] is None or _is_number(entry["pct_copy"])
    if kind == "bandwidth" and entry["gbps"]:
        assert _is_number(entry["pct_copy"])
    if peer:
        assert _is_number(entry["ratio"])
        assert entry["ratio"] > 0


def test_json_schema(quick_run):
    results = json.loads((quick_run / "bench.json").read_text())
    assert results["schema"] == gpuvec.bench.SCHEMA == "gpuvec.bench/1"
    for key, kind in {
        "date": str,
        "command": str,
        "backend": str,
        "device": dict,
        "host": dict,
        "versions": dict,
        "settings": dict,
        "timing": dict,
        "peers_skipped": dict,
        "copy": dict,
        "rows": list,
        "kernels": list,
        "skipped": list,
        "notes": list,
        "correct": bool,
        "elapsed_s": float,
    }.items():
        assert isinstance(results[key], kind), key
    assert results["backend"] == gpuvec.backend()
    assert "--quick" in results["command"]
    assert isinstance(results["device"]["name"], str)
    assert results["versions"]["gpuvec"] == gpuvec.__version__
    assert results["versions"]["numpy"] == np.__version__
    settings = results["settings"]
    assert settings["quick"] is True
    assert set(settings["ops"]) == set(gpuvec.bench.OPS) | set(KERNEL_OPS)
    assert settings["dtypes"] == ["float32", "float64"]
    assert all(isinstance(n, int) for n in settings["sizes"])
    if gpuvec.backend() == "host":
        assert settings["peers"] == ["numpy"]
        assert set(results["peers_skipped"]) == {"cupy", "torch", "numba"}

    copy = results["copy"]
    assert copy["dtype"] == "float32"
    assert copy["bytes"] == 8 * copy["n"]
    assert copy["reference"] in copy["results"]
    assert _is_number(copy["reference_gbps"])
    assert copy["reference_gbps"] > 0
    assert "gpuvec" in copy["results"]

    assert results["rows"]
    for row in results["rows"]:
        assert row["op"] in gpuvec.bench.OPS
        assert row["kind"] in ("bandwidth", "latency", "roundtrip")
        assert row["dtype"] in gpuvec.bench.DTYPES
        assert isinstance(row["n"], int)
        assert row["n"] >= 1
        assert int(np.prod(row["shape"])) == row["n"]
        assert isinstance(row["bytes"], int)
        assert row["bytes"] > 0
        assert row["correct"] is True, row
        assert row["error"] is None
        assert _is_number(row["max_rel_error"])
        assert row["max_rel_error"] <= row["tolerance"]
        assert "gpuvec" in row["results"]
        for name, entry in row["results"].items():
            assert name in ("gpuvec", *gpuvec.bench.PEERS)
            _check_entry(entry, name != "gpuvec", row["kind"])
    for item in results["skipped"]:
        assert set(item) == {"op", "n", "dtype", "reason"}
        assert item["op"] in gpuvec.bench.OPS + KERNEL_OPS
        assert item["reason"]

    # Every benchmark and dtype is there, or said to be skipped.
    for op in gpuvec.bench.OPS:
        measured = {r["dtype"] for r in results["rows"] if r["op"] == op}
        whole = any(s["op"] == op and s["dtype"] is None for s in results["skipped"])
        dtypes = set(BY_OP[op].dtypes) if op in BY_OP else {"float32", "float64"}
        assert whole or measured == dtypes, op
    swept = {r["n"] for r in results["rows"] if r["op"] == "add"}
    assert swept == set(settings["sizes"])
    assert results["correct"] is True


def test_markdown_table(quick_run):
    results = json.loads((quick_run / "bench.json").read_text())
    text = (quick_run / "bench.md").read_text(encoding="utf-8")
    assert text.startswith("# gpuvec benchmarks")
    assert results["command"] in text
    lines = smoke.markdown_tables(text)[0]
    results["rows"] = [row for row in results["rows"] if not row.get("group")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    expected = ["benchmark", "size", "dtype", "gpuvec time", "gpuvec GB/s", "% of copy"]
    for peer in results["settings"]["peers"]:
        expected += [f"{peer} GB/s", f"gpuvec/{peer}"]
    assert header == [*expected, "correct"]
    assert set(lines[1].replace("|", "").replace(":", "")) == {"-"}
    body = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert len(body) == len(results["rows"])
    for cells, row in zip(body, results["rows"], strict=True):
        assert len(cells) == len(header)
        assert cells[0] == row["op"]
        assert cells[2].startswith(row["dtype"])
        assert cells[-1] == "yes"
        if row["kind"] == "latency":
            assert cells[3].endswith("s/call")
        else:
            assert float(cells[4]) == pytest.approx(row["results"]["gpuvec"]["gbps"], abs=0.051)
    assert "add | 2^10 | float32" in text


def test_plot_png_and_figure(quick_run):
    assert (quick_run / "bench.png").read_bytes()[:8] == smoke.PNG_SIGNATURE
    results = json.loads((quick_run / "bench.json").read_text())
    fig = gpuvec.bench.plot(results)
    swept = {(r["op"], r["dtype"]) for r in results["rows"] if r["op"] in ("add", "sum")}
    assert len(fig.axes) >= len(swept)
    titles = [ax.get_title() for ax in fig.axes]
    assert "add, float32" in titles
    assert "sum, float64" in titles
    assert fig.axes[0].get_xscale() == "log"


def test_run_in_process_for_notebooks():
    results = gpuvec.bench.run(ops="add,tiny_sum", quick=True, progress=False, peers="numpy")
    assert results["correct"] is True
    assert {row["op"] for row in results["rows"]} == {"add", "tiny_sum"}
    assert "| add | 2^10 | float32 |" in gpuvec.bench.to_markdown(results)
    json.dumps(results, allow_nan=False)  # strict JSON, as write() stores it


def test_wrong_result_fails_the_run(monkeypatch, tmp_path, capsys):
    real_add = gpuvec.add

    def wrong_add(a, b, out=None, **kwargs):
        return real_add(a, a, out=out, **kwargs)  # x + x, not x + y

    monkeypatch.setattr(gpuvec, "add", wrong_add)
    options = ["--quick", "--ops", "add,axpy", "--dtypes", "float64", "--peers", "none"]
    status = gpuvec.bench.main([*options, "--no-progress", "--out", str(tmp_path)])
    assert status == 1
    assert "disagree with NumPy" in capsys.readouterr().err
    results = json.loads((tmp_path / "bench.json").read_text())
    verdicts = {row["op"]: row["correct"] for row in results["rows"]}
    assert set(verdicts) == {"add", "axpy"}
    assert not verdicts["add"]
    assert verdicts["axpy"]
    assert "## Incorrect results" in (tmp_path / "bench.md").read_text(encoding="utf-8")


def test_bad_arguments(capsys):
    assert gpuvec.bench.main(["--ops", "add,nope", "--no-progress"]) == 2
    assert "unknown benchmark nope" in capsys.readouterr().err
    assert gpuvec.bench.main(["--sizes", "1:2:3:4", "--no-progress"]) == 2


def test_parse_sizes():
    assert gpuvec.bench.parse_sizes("10:28") == tuple(1 << k for k in range(10, 29))
    assert gpuvec.bench.parse_sizes("20:24:2,2^10,1000") == (
        1000,
        1 << 10,
        1 << 20,
        1 << 22,
        1 << 24,
    )
    assert gpuvec.bench.parse_sizes([4096, 1024, 4096]) == (1024, 4096)
    with pytest.raises(ValueError, match="positive"):
        gpuvec.bench.parse_sizes("")


def test_progress_falls_back_to_text_lines(monkeypatch, capsys):
    import sys

    from gpuvec.bench._progress import Progress

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # as if tqdm were not installed
    with Progress(3) as bar:
        bar.describe("add 2^10 float32")
        bar.advance()
        bar.describe("sum 2^10 float32")
    assert capsys.readouterr().err.splitlines() == [
        "[0/3] add 2^10 float32",
        "[1/3] sum 2^10 float32",
    ]


def _user_rows(results) -> dict:
    rows: dict[str, list] = {}
    for row in results["rows"]:
        if row.get("group") == "users":
            rows.setdefault(row["op"], []).append(row)
    return rows


def test_what_users_write_rows(quick_run):
    """Every workload of the group has its rows (or a reason), with sane numbers, never times."""
    results = json.loads((quick_run / "bench.json").read_text())
    rows = _user_rows(results)
    skipped = {s["op"]: s["reason"] for s in results["skipped"] if s["op"] in BY_OP}
    assert set(rows) | set(skipped) == set(gpuvec.bench.USER_OPS)
    assert {"expr_chain", "softmax_rows", "colstats", "call_add", "np_tiny_sum"} <= set(rows)
    if gpuvec.backend() == "host":
        assert set(skipped) == {"softmax_rows_torch", "to_host", "np_asarray"}
        assert "compares with torch" in skipped["softmax_rows_torch"]
    peers = results["settings"]["peers"]
    for op, op_rows in rows.items():
        w = BY_OP[op]
        assert len(op_rows) == len(w.quick_shapes or w.shapes) * len(w.dtypes), op
        for row in op_rows:
            assert row["kind"] == w.kind
            assert row["correct"] is True, row
            assert row["data"] == ("host" if w.host_data else "device")
            ours = row["results"]["gpuvec"]
            assert ours["us_per_call"] > 0
            assert ours["us_per_call"] == pytest.approx(ours["median_ms"] * 1e3, rel=1e-5)
            if row["kind"] == "latency":
                assert ours["gbps"] is None
            else:
                assert ours["gbps"] > 0  # a byte count is natural for every timed-call row
            for name in peers:
                if w.text(w.code, name, "xp") is not None:  # the library has code for it
                    entry = row["results"][name]
                    assert "error" not in entry, entry
                    assert entry["ratio"] > 0
                    assert entry["us_per_call"] > 0
                else:
                    assert name not in row["results"]
            if w.baseline:
                assert row["baseline"] == w.baseline
                for name, entry in row["results"].items():
                    assert entry["vs_baseline"] > 0, (op, name)
    # The code shown is the code that ran, each library in its own spelling.
    softmax = rows["softmax_rows"][0]["results"]
    assert softmax["gpuvec"]["how"] == (
        "e = gv.exp(x - gv.max(x, axis=1, keepdims=True)); e / gv.sum(e, axis=1, keepdims=True)"
    )
    assert "np.exp" in softmax["numpy"]["how"]
    assert rows["expr_chain"][0]["results"]["gpuvec"]["how"] == "2.5*a*b + a - 0.5"
    assert rows["call_stream"][0]["results"]["gpuvec"]["how"].startswith("with gv.Stream(): ")

    text = (quick_run / "bench.md").read_text(encoding="utf-8")
    assert "## What users write" in text
    table = next(t for t in smoke.markdown_tables(text) if "gpuvec code" in t[0])
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    assert header[:7] == [
        "benchmark",
        "gpuvec code",
        "shape",
        "dtype",
        "gpuvec \u00b5s",
        "gpuvec GB/s",
        # each row's own baseline: the small calls', the fused chain's, the fused softmax's
        "vs call_add/expr_chain/softmax_rows",
    ]
    for peer in peers:
        assert f"gpuvec/{peer}" in header
    body = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    assert [cells[0] for cells in body] == [r["op"] for r in results["rows"] if r.get("group")]
    expr = next(cells for cells in body if cells[0] == "expr_chain")
    assert expr[1] == "`2.5*a*b + a - 0.5`"
    assert float(expr[4].replace(",", "")) > 0


def test_user_rows_without_peers_and_dtypes():
    """A missing peer costs its columns and the rows that compare with it alone, not the run."""
    results = gpuvec.bench.run(
        ops="softmax_rows_torch,call_add,call_stream,sqrt",
        dtypes="float64",
        peers="none",
        quick=True,
        progress=False,
    )
    assert results["correct"] is True
    reasons = {s["op"]: s["reason"] for s in results["skipped"]}
    assert "compares with torch" in reasons["softmax_rows_torch"]
    assert "float32 only" in reasons["sqrt"]
    assert "call_add" in reasons  # float32 only as well
    assert results["rows"] == []
    results = gpuvec.bench.run(
        ops="call_add,call_stream", peers="none", quick=True, progress=False
    )
    assert [row["op"] for row in results["rows"]] == ["call_add", "call_stream"]
    for row in results["rows"]:
        assert set(row["results"]) == {"gpuvec"}
    assert results["rows"][1]["results"]["gpuvec"]["vs_baseline"] > 0
    text = gpuvec.bench.to_markdown(results)
    assert "| call_stream | `with gv.Stream(): gv.add(a, b)` | 2^10 | float32 |" in text
    json.dumps(results, allow_nan=False)


def test_wrong_user_row_fails_the_run(monkeypatch):
    real_exp = gpuvec.exp
    monkeypatch.setattr(gpuvec, "exp", lambda x, *args, **kwargs: real_exp(x) + 1e-3)
    results = gpuvec.bench.run(ops="softmax_rows,expr_chain", quick=True, progress=False)
    verdicts = {row["op"]: row["correct"] for row in results["rows"]}
    assert verdicts == {"softmax_rows": False, "expr_chain": True}
    assert results["correct"] is False
    assert "softmax_rows" in gpuvec.bench.to_markdown(results).split("## Incorrect results")[1]


# -- users' own kernels (--ops kernels) -------------------------------------------------------

_KERNEL_ROW_KEYS = {
    "op",
    "kind",
    "backend",
    "unit",
    "n",
    "shape",
    "dtype",
    "bytes",
    "correct",
    "max_rel_error",
    "tolerance",
    "error",
    "target",
    "results",
}


def _check_kernel_row(row, peers_asked=None) -> None:
    """A kernel row's schema and sanity, never its times."""
    assert _KERNEL_ROW_KEYS <= set(row), row
    assert row["op"] in KERNEL_OPS
    assert row["correct"] is True, row
    assert row["error"] is None
    assert row["max_rel_error"] <= row["tolerance"]
    host_row = row["op"].startswith("kernel_host_")
    assert row["backend"] == ("host" if host_row else gpuvec.backend())
    ours = row["results"]["gpuvec"]
    for name, entry in row["results"].items():
        assert name in ("gpuvec", "cupy", "numba", "numpy"), name
        assert "error" not in entry, (name, entry)
        assert isinstance(entry["how"], str)
        assert 0 <= entry["min_ms"] <= entry["median_ms"]
        assert entry["runs"] == len(entry["times_ms"]) >= 1
        assert entry["value"] > 0
        # GB/s only where the job is one of bandwidth
        assert (entry["gbps"] > 0) if row["kind"] == "bandwidth" else entry["gbps"] is None
        if name != "gpuvec":
            assert entry["ratio"] == pytest.approx(
                entry["median_ms"] / ours["median_ms"], rel=1e-4
            )
    unit = {"us": 1e3, "ms": 1.0}.get(row["unit"])
    if unit is not None:
        assert ours["value"] == pytest.approx(ours["median_ms"] * unit, rel=1e-5)
    if row["op"] in ("kernel_launch", "kernel_launch_indexed"):
        assert (row["kind"], row["unit"], row["n"]) == ("latency", "us", 1024)
        assert row["reference"]["how"] == "gv.add(a, b, out=c)"
        assert ours["vs_reference"] == pytest.approx(
            ours["median_ms"] / row["reference"]["median_ms"], rel=1e-4
        )
        expected_peers = {"cupy", "numba"} if gpuvec.backend() == "cuda" else set()
        if peers_asked is not None:
            expected_peers &= set(peers_asked)
        assert set(row["results"]) - {"gpuvec"} <= expected_peers
    elif row["op"] in ("kernel_compile", "kernel_cached_load"):
        assert (row["kind"], row["unit"], row["shape"]) == ("compile", "ms", None)
        assert row["compiler"]
    elif row["op"] == "kernel_host_fiber":
        blocks, threads = row["shape"]
        assert row["switches"] == blocks * threads * row["rounds"]
        assert ours["value"] == pytest.approx(ours["median_ms"] * 1e6 / row["switches"], rel=1e-5)
        assert row["target"] is None
    else:
        assert host_row
        assert row["unit"] == "ms"
        if peers_asked is None or "numpy" in peers_asked:
            assert "numpy" in row["results"]
    if row["op"] != "kernel_host_fiber":
        assert row["target"]["text"]
        assert row["target"]["met"] in (True, False, None)


def _kernels_table(text: str) -> list[list[str]]:
    """The body of bench.md's table of users' kernels, as cells."""
    assert "## Users' kernels" in text
    table = next(
        t
        for t in smoke.markdown_tables(text)
        if t[0].startswith("| benchmark | gpuvec code | backend |")
    )
    return [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]


def test_kernel_rows(quick_run):
    """Every kernel benchmark has a row (or a reason), checked against NumPy, with sane numbers."""
    results = json.loads((quick_run / "bench.json").read_text())
    rows = {row["op"]: row for row in results["kernels"]}
    skipped = {s["op"]: s["reason"] for s in results["skipped"] if s["op"] in KERNEL_OPS}
    assert len(rows) == len(results["kernels"])  # one row each
    assert set(rows) | set(skipped) == set(KERNEL_OPS)
    assert not any(row["op"].startswith("kernel_") for row in results["rows"])
    if gpuvec.backend() == "host":
        assert set(rows) == set(KERNEL_OPS)
        # Absent peers are said to be absent, not errors.
        assert "host backend" in results["peers_skipped"]["numba"]
    for row in results["kernels"]:
        _check_kernel_row(row)
        # --quick: the targets are shown, never judged.
        if row["target"] is not None:
            assert row["target"]["met"] is None
            assert "--quick" in row["target"]["unchecked"][0]
    body = _kernels_table((quick_run / "bench.md").read_text(encoding="utf-8"))
    assert [cells[0] for cells in body] == [row["op"] for row in results["kernels"]]
    launch = next(cells for cells in body if cells[0] == "kernel_launch")
    assert launch[1] == "`k(a, b, c, n, grid=1, block=1024)  [k = gv.RawKernel(source, 'vecadd')]`"
    assert launch[4].endswith("\u00b5s")
    assert all(cells[-1] == "yes" for cells in body)


def test_kernels_alone_leave_the_users_cache_alone(tmp_path, monkeypatch, capsys):
    """``--ops kernels`` runs the group alone, in a cache of its own: the user's stays empty."""
    users_cache = tmp_path / "users-cache"
    monkeypatch.setenv("GPUVEC_CACHE_DIR", str(users_cache))
    out = tmp_path / "out"
    status = gpuvec.bench.main(["--quick", "--ops", "kernels", "--no-progress", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    assert os.environ["GPUVEC_CACHE_DIR"] == str(users_cache)
    assert not users_cache.exists() or not any(users_cache.iterdir())
    results = json.loads((out / "bench.json").read_text())
    assert results["rows"] == []
    assert [row["op"] for row in results["kernels"]] == list(KERNEL_OPS)
    assert results["correct"] is True
    text = (out / "bench.md").read_text(encoding="utf-8")
    assert "| benchmark | size | dtype |" not in text  # no empty table of the other rows
    assert len(_kernels_table(text)) == len(KERNEL_OPS)
    assert "kernel_host_fiber" in capsys.readouterr().out  # the table is printed too


def test_kernel_rows_without_peers():
    """Asked-for peers that cannot run are reported absent; those not asked for, not at all."""
    results = gpuvec.bench.run(ops="kernel_launch", peers="numba", quick=True, progress=False)
    assert results["correct"] is True
    assert results["settings"]["peers"] == []
    (row,) = results["kernels"]
    _check_kernel_row(row, peers_asked=("numba",))
    if gpuvec.backend() == "host":
        assert set(row["results"]) == {"gpuvec"}
        assert "numba" in results["peers_skipped"]
        assert row["target"]["met"] is None
    results = gpuvec.bench.run(
        ops="kernel_cached_load,kernel_host_vecadd", peers="none", quick=True, progress=False
    )
    assert "numba" not in results["peers_skipped"]  # no launch rows, and not asked for
    assert [row["op"] for row in results["kernels"]] == [
        "kernel_cached_load",
        "kernel_host_vecadd",
    ]
    for row in results["kernels"]:
        assert set(row["results"]) == {"gpuvec"}  # NumPy was not asked for either
        _check_kernel_row(row, peers_asked=())
    json.dumps(results, allow_nan=False)


def test_numba_that_does_not_import_is_absent(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # as if numba-cuda were not installed
    numba, reason = _kernels._load_numba(None, "cuda")
    assert numba is None
    assert "numba does not import" in reason
    assert _kernels._load_numba(("cupy",), "cuda") == (None, None)  # not asked for


def test_wrong_kernel_result_fails_the_run(monkeypatch):
    """Each kernel row checks gpuvec's result against NumPy once: a wrong kernel is caught."""
    wrong = _kernels.VECADD.replace("a[i] + b[i]", "a[i] - b[i]")
    monkeypatch.setattr(_kernels, "VECADD", wrong)
    results = gpuvec.bench.run(
        ops="kernel_launch,kernel_cached_load,kernel_host_fiber", quick=True, progress=False
    )
    verdicts = {row["op"]: row["correct"] for row in results["kernels"]}
    assert verdicts == {
        "kernel_launch": False,
        "kernel_cached_load": False,
        "kernel_host_fiber": True,
    }
    assert results["correct"] is False
    incorrect = gpuvec.bench.to_markdown(results).split("## Incorrect results")[1]
    assert "kernel_launch" in incorrect
    assert "kernel_cached_load" in incorrect
