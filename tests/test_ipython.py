"""The Jupyter magics: %load_ext gpuvec, %gpuvec_info and %%gpuvec_timeit."""

import sys

import numpy as np
import pytest

import gpuvec

interactiveshell = pytest.importorskip("IPython.core.interactiveshell")


@pytest.fixture
def ip(backend):
    main = sys.modules["__main__"]
    shell = interactiveshell.InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gpuvec")
    shell.user_ns["gpuvec"] = gpuvec
    yield shell
    # The shell is a process-wide singleton: drop the test's arrays from its
    # namespace and output cache, or their device memory outlives the test.
    shell.reset()
    # Creating it made its namespace module __main__, which has no __spec__:
    # later tests that start processes (multiprocessing's spawn) need the real one.
    sys.modules["__main__"] = main


def test_gpuvec_info(ip, backend):
    info = ip.run_line_magic("gpuvec_info", "")
    text, page = repr(info), info._repr_html_()
    assert f"backend {backend}" in " ".join(text.split())
    assert "<table>" in page
    assert "memory in use" in page
    for d in gpuvec.devices():
        assert d["name"] in text
    # Each memory row says whose memory it counts: on the host backend,
    # gpuvec.memory_info() reports the host's RAM, not a device's.
    memory = gpuvec.memory_info()
    free_total = f"{memory['device_total']:,} bytes"
    (row,) = [line for line in text.splitlines() if line.endswith(free_total)]
    if backend == "host":
        assert row.startswith("host RAM free / total"), text
        assert "device free" not in text
        assert "NumPy allocates" in text
    else:
        assert row.startswith("device free / total"), text


def test_gpuvec_timeit_times_the_cell_and_runs_it(ip, capsys):
    ip.user_ns["x"] = gpuvec.to_device(np.ones(1 << 16))
    ip.user_ns["count"] = 0
    timing = ip.run_cell_magic("gpuvec_timeit", "-n 3 -r 2", "y = x + x\ncount += 1\n")
    assert ip.user_ns["count"] == 1 + 3 * 2  # a warm-up run, then -r times -n
    assert len(timing.all_ms) == 2
    assert timing.median_ms >= 0
    assert float(gpuvec.sum(ip.user_ns["y"])) == 2.0 * (1 << 16)
    assert "gpuvec_timeit:" in capsys.readouterr().out
    with pytest.raises(ValueError, match="at least 1"):
        ip.run_cell_magic("gpuvec_timeit", "-n 0", "pass")
