"""The main job, ``python3 -m gpuvec``."""

import os
import subprocess
import sys

import gpuvec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_main_job_runs_and_checks_pass():
    result = subprocess.run(
        [sys.executable, "-m", "gpuvec"],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(ROOT),
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"backend '{gpuvec.backend()}'" in out
    assert "[ok] add two random float64 vectors" in out
    assert "[ok] double a 4x4 float32 matrix" in out
    assert "[ok] sum of arange(53735) = 1443698245" in out
    assert "GB/s" in out
    if gpuvec.backend() == "cuda":
        assert gpuvec.devices()[0]["name"] in out
    else:
        assert "why not CUDA:" in out
