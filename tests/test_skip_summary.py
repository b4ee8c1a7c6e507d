"""On a machine without a GPU, ``python3 -m pytest`` ends with a readable summary.

The CUDA runs of the tests skip there, thousands of them for one reason: the
summary (``-ra``, set in pyproject.toml) shows them as one line with their
count, and every other skip reason on a line of its own.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_cuda_skips_are_one_line_of_the_summary(tmp_path):
    # Two quick files: test_memory.py also skips a test for a reason of its own.
    files = [str(TESTS / "test_errors.py"), str(TESTS / "test_memory.py")]
    # No visible device makes CUDA unusable on any machine, GPU or not.
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "GPUVEC_BACKEND": "auto"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-ra", *files],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = result.stdout
    assert result.returncode == 0, out[-4000:] + result.stderr[-4000:]
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    no_cuda = [line for line in skipped if "needs a usable CUDA device: " in line]
    assert len(no_cuda) == 1, "\n".join(skipped)
    counts = [int(re.match(r"SKIPPED \[(\d+)\]", line).group(1)) for line in skipped]
    assert counts[skipped.index(no_cuda[0])] > 10
    assert "conftest.py" in no_cuda[0]
    # Other reasons keep their lines.
    assert any("allocates through NumPy" in line for line in skipped), "\n".join(skipped)
    # The CUDA runs are counted as skipped, not passed.
    totals = re.search(r"(\d+) passed, (\d+) skipped", out)
    assert totals, out[-2000:]
    assert int(totals.group(2)) == sum(counts)
