"""The Jupyter magics: %load_ext gpuvec, %gpuvec_info, %%gpuvec_timeit and %%gpuvec_kernel."""

import sys

import numpy as np
import pytest

import gpuvec

interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
UsageError = pytest.importorskip("IPython.core.error").UsageError
Timing = pytest.importorskip("gpuvec._ipython").Timing


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


def test_gpuvec_timeit_times_the_cell_and_runs_it(ip, capsys, rng):
    x = rng.standard_normal(1 << 16)
    ip.user_ns["x"] = gpuvec.to_device(x)
    ip.user_ns["count"] = 0
    timing = ip.run_cell_magic("gpuvec_timeit", "-n 3 -r 2", "y = x + x\ncount += 1\n")
    assert ip.user_ns["count"] == 1 + 3 * 2  # a warm-up run, then -r times -n
    assert len(timing.all_ms) == 2
    assert timing.median_ms >= 0
    np.testing.assert_array_equal(gpuvec.asnumpy(ip.user_ns["y"]), x + x)
    with pytest.raises(ValueError, match="at least 1"):
        ip.run_cell_magic("gpuvec_timeit", "-n 0", "pass")


def test_gpuvec_timeit_shows_its_result_once(ip, capsys):
    ip.user_ns["x"] = gpuvec.to_device(np.ones(1 << 10))
    capsys.readouterr()
    result = ip.run_cell("%%gpuvec_timeit -n 2 -r 2\ny = x + x\n", store_history=True)
    assert result.success
    assert isinstance(result.result, Timing)  # the cell's value, shown as Out[N]
    out = capsys.readouterr().out
    assert out.count("ms per run") == 1, out


KERNEL_CELL = """__global__ void add_one(float* a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1.0f;
}
"""


def test_gpuvec_kernel_names_the_cell_by_its_execution_count(ip, capsys, rng):
    count = ip.execution_count
    result = ip.run_cell("%%gpuvec_kernel\n" + KERNEL_CELL, store_history=True)
    assert result.success
    assert result.execution_count == count
    assert f"cell_{count}.cu: add_one" in capsys.readouterr().out
    a = rng.standard_normal(300).astype(np.float32)
    expected = a + np.float32(1)
    ip.user_ns["add_one"](a, a.size, grid=2, block=256)
    np.testing.assert_array_equal(a, expected)


def test_gpuvec_kernel_errors_count_the_lines_as_the_cell_shows_them(ip):
    cell = "%%gpuvec_kernel\n" + KERNEL_CELL.replace("a[i] += 1.0f", "a[i] += one")
    shown = cell.splitlines()
    line = next(k for k, text in enumerate(shown, start=1) if "one;" in text)
    assert line == 5  # the magic's line is line 1
    count = ip.execution_count
    result = ip.run_cell(cell, store_history=True)
    assert isinstance(result.error_in_exec, UsageError)
    message = str(result.error_in_exec)
    assert f"cell_{count}.cu, line {line}:" in message
    assert shown[line - 1].strip() in message
