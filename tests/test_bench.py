"""The benchmark harness, ``python3 -m gpuvec.bench``: its smoke run, files and checks.

Times are never asserted: only that the harness runs, writes what it
promises, in the documented schema, and catches a wrong result.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import gpuvec
import gpuvec.bench

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
    assert set(settings["ops"]) == set(gpuvec.bench.OPS)
    assert settings["dtypes"] == ["float32", "float64"]
    assert all(isinstance(n, int) for n in settings["sizes"])
    if gpuvec.backend() == "host":
        assert settings["peers"] == ["numpy"]
        assert set(results["peers_skipped"]) == {"cupy", "torch"}

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
        assert item["op"] in gpuvec.bench.OPS
        assert item["reason"]

    # Every benchmark and dtype is there, or said to be skipped.
    for op in gpuvec.bench.OPS:
        measured = {r["dtype"] for r in results["rows"] if r["op"] == op}
        whole = any(s["op"] == op and s["dtype"] is None for s in results["skipped"])
        assert whole or measured == {"float32", "float64"}, op
    swept = {r["n"] for r in results["rows"] if r["op"] == "add"}
    assert swept == set(settings["sizes"])
    assert results["correct"] is True


def test_markdown_table(quick_run):
    results = json.loads((quick_run / "bench.json").read_text())
    text = (quick_run / "bench.md").read_text(encoding="utf-8")
    assert text.startswith("# gpuvec benchmarks")
    assert results["command"] in text
    lines = [line for line in text.splitlines() if line.startswith("|")]
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
