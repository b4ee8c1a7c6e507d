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


def test_main_job_gives_the_fallback_reason_once(tmp_path):
    # Without a usable GPU (none visible here, on any machine) the report says
    # why, once: not again as a HostFallbackWarning, even where every warning
    # is shown.
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "GPUVEC_BACKEND": "auto"}
    result = subprocess.run(
        [sys.executable, "-W", "always", "-m", "gpuvec"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "HostFallbackWarning" not in result.stderr, result.stderr
    assert "backend 'host'" in result.stdout
    reasons = [line for line in result.stdout.splitlines() if "why not CUDA:" in line]
    assert len(reasons) == 1, result.stdout
    reason = reasons[0].split("why not CUDA: ", 1)[1]
    assert reason
    assert reason != "the host backend was selected"
    assert (result.stdout + result.stderr).count(reason) == 1
