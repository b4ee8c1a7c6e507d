"""After a sticky CUDA error every later call fails clearly, without crashing."""

import os
import subprocess
import sys

import pytest

import gpuvec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A foreign "array" whose device pointer is garbage: reading it is an illegal
# address, which leaves the CUDA context unusable for the rest of the process.
SCRIPT = """
import gpuvec

class BadPointer:
    __cuda_array_interface__ = {
        "shape": (1 << 20,), "typestr": "<f4", "data": (0x10, False), "version": 3,
    }

x = gpuvec.ones(4)
try:
    float(gpuvec.sum(gpuvec.asarray(BadPointer())))
except gpuvec.CudaError as e:
    print("first:", e.name)
for attempt in range(3):
    try:
        float(gpuvec.sum(x))
    except gpuvec.CudaError as e:
        print("later:", e.name, "restart" in str(e))
print("still running")
"""


def test_sticky_error_is_reported_on_every_later_call(backend):
    if backend != "cuda":
        pytest.skip("needs a GPU to fault")
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(ROOT),
        timeout=120,
        env={**os.environ, "GPUVEC_BACKEND": "cuda"},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "first: cudaErrorIllegalAddress"
    assert lines[1:4] == ["later: cudaErrorIllegalAddress True"] * 3
    assert lines[-1] == "still running"
    assert gpuvec.backend() == "cuda"
