"""benchmarks/out_of_core.py runs, at a tiny size, and finds gpuvec's results NumPy's."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.array", reason="the benchmark needs the dask extra")

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "out_of_core.py"


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]], ids=["threads", "two-processes"])
def test_out_of_core_benchmark_runs(tmp_path, workers):
    if workers:
        pytest.importorskip("distributed", reason="--workers needs distributed")
    command = [sys.executable, "-W", "ignore", str(SCRIPT), "--budget", "4MiB", "--times", "4"]
    command += ["--dir", str(tmp_path), *workers]  # chunks of a worker's budget / 16 (2 threads)
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4.0x the device-memory budget" in run.stdout
    assert run.stdout.count("GB/s") >= 4
    assert "results agree with NumPy's: True" in run.stdout
    assert not (tmp_path / "gpuvec-out-of-core").exists()  # its files are gone
