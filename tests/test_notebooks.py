"""The tutorial notebooks are tests: each one runs top to bottom and checks itself.

Every ``notebooks/*.ipynb`` is executed with nbclient in a fresh ``python3``
kernel, whose working directory is ``notebooks/``, on the backend gpuvec picks
here (``GPUVEC_BACKEND`` is passed through to the kernel). A failing ``assert``
or any other exception in a cell fails that notebook's test. The run time of
each notebook is reported at the end of the test session.

A notebook may declare, in its metadata:

- ``"mystnb": {"execution_timeout": seconds}``: the per-cell timeout, which
  the documentation build honours too (default: ``DEFAULT_TIMEOUT``);
- ``"gpuvec": {"requires": ["module", ...]}``: modules it imports beyond
  gpuvec and NumPy; where one is missing the notebook is skipped, saying which.

The notebooks are committed without outputs or execution counts; a test
enforces it (``nbstripout --install`` keeps it so on every commit).

The kernel runs as under ``venv/bin/python -m pytest`` without activating the
virtualenv: this Python's ``bin`` folder is taken off ``PATH``, so a notebook
that runs the virtualenv's tools by name (notebook 08's extension build runs
``meson``) must find them itself.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gpuvec

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
KERNEL = "python3"
DEFAULT_TIMEOUT = 120  # seconds per cell
BUDGET = 600  # seconds for all notebooks together
# Notebooks whose plots show measured times, which differ from run to run.
PLOTS_OF_TIMINGS = {
    "07-performance.ipynb",
    "11-fusing-expressions.ipynb",
    "12-beyond-one-gpu.ipynb",
}

_times: dict[str, float] = {}


class _TimingReport:
    """A pytest plugin that prints the notebooks' run times in the summary."""

    def pytest_terminal_summary(self, terminalreporter):
        if not _times:
            return
        terminalreporter.section(f"notebook run times (backend '{gpuvec.backend()}')")
        for name, seconds in _times.items():
            terminalreporter.write_line(f"{seconds:7.1f} s  {name}")
        total = sum(_times.values())
        over = "  OVER BUDGET: make the notebooks faster" if total > BUDGET else ""
        terminalreporter.write_line(f"{total:7.1f} s  total (budget {BUDGET} s){over}")


def pin_kernel(folder: Path) -> dict[str, str]:
    """The environment for a ``python3`` kernel that is this very Python.

    Writes a kernel spec running ``sys.executable`` into ``folder`` and puts
    it first on ``JUPYTER_PATH``, ahead of any ``python3`` kernel installed for
    the user, which could be another Python with another gpuvec.
    """
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3 (gpuvec tests)", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    path = [str(folder), *filter(None, [os.environ.get("JUPYTER_PATH")])]
    return {"JUPYTER_PATH": os.pathsep.join(path)}


def path_without_this_virtualenv() -> str:
    """``PATH`` without this Python's ``bin`` folder, when this Python is a virtualenv's.

    The kernel is started by its full path (pin_kernel), so it runs without it.
    Outside a virtualenv the folder may be /usr/bin, with the compilers: kept.
    """
    path = os.environ.get("PATH", "")
    if sys.prefix == sys.base_prefix:
        return path
    bin_folder = os.path.realpath(os.path.dirname(sys.executable))
    kept = [p for p in path.split(os.pathsep) if os.path.realpath(p or os.curdir) != bin_folder]
    return os.pathsep.join(kept)


@pytest.fixture(scope="session")
def kernel(tmp_path_factory):
    """nbformat and nbclient, with the ``python3`` kernel pinned to this Python.

    Skips, saying what is missing, where they or ipykernel are not installed.
    """
    nbformat = pytest.importorskip("nbformat", reason="executing notebooks needs nbformat")
    nbclient = pytest.importorskip("nbclient", reason="executing notebooks needs nbclient")
    if importlib.util.find_spec("ipykernel") is None:
        pytest.skip("executing notebooks needs ipykernel in this environment")
    patch = pytest.MonkeyPatch()
    for name, value in pin_kernel(tmp_path_factory.mktemp("jupyter")).items():
        patch.setenv(name, value)
    patch.setenv("PATH", path_without_this_virtualenv())
    yield nbformat, nbclient
    patch.undo()


@pytest.fixture(scope="session")
def timing_report(request):
    """Registers the run-time report once per session."""
    plugin_name = "gpuvec-notebook-times"
    if not request.config.pluginmanager.has_plugin(plugin_name):
        request.config.pluginmanager.register(_TimingReport(), plugin_name)
    return _times


def _execute(nb, nbclient, timeout: float, cwd: Path):
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=KERNEL,
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute()
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, kernel, timing_report):
    nbformat, nbclient = kernel
    nb = nbformat.read(path, as_version=4)
    for module in nb.metadata.get("gpuvec", {}).get("requires", []):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{path.name} needs the module '{module}', which is not installed")
    timeout = nb.metadata.get("mystnb", {}).get("execution_timeout", DEFAULT_TIMEOUT)
    start = time.perf_counter()
    try:
        _execute(nb, nbclient, timeout, NOTEBOOK_DIR)
    finally:
        timing_report[path.name] = time.perf_counter() - start


def test_notebooks_found():
    names = [p.name for p in NOTEBOOKS]
    assert "01-first-gpu-vector-add.ipynb" in names, f"notebooks found: {names}"


def test_kernel_imports_installed_gpuvec(kernel):
    """The notebooks' kernel is this Python, and imports the installed gpuvec.

    Its working directory is notebooks/, so the source folder gpuvec/ at the
    repository root is not on its path.
    """
    nbformat, nbclient = kernel
    probe = (
        "import json, sys, gpuvec\n"
        "print(json.dumps({'python': sys.executable, 'gpuvec': gpuvec.__file__, "
        "'backend': gpuvec.backend()}))"
    )
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(probe)],
        metadata={"kernelspec": {"name": KERNEL, "display_name": "Python 3"}},
    )
    _execute(nb, nbclient, 60, NOTEBOOK_DIR)
    stdout = "".join(o.text for o in nb.cells[0].outputs if o.get("name") == "stdout")
    seen = json.loads(stdout.strip().splitlines()[-1])
    assert os.path.realpath(seen["python"]) == os.path.realpath(sys.executable)
    assert os.path.realpath(seen["gpuvec"]) == os.path.realpath(gpuvec.__file__)
    assert seen["backend"] == gpuvec.backend()


def _pictures(nb) -> list[str]:
    return [
        output["data"]["image/png"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]


def _code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


PLOTTING = [p for p in NOTEBOOKS if p.name not in PLOTS_OF_TIMINGS and "matplotlib" in _code(p)]


@pytest.mark.parametrize("path", PLOTTING, ids=[p.name for p in PLOTTING])
def test_plots_are_the_same_on_every_run(path, kernel):
    """Plotted data is seeded: two runs of a notebook draw the same pictures."""
    nbformat, nbclient = kernel
    runs = []
    for _ in range(2):
        nb = nbformat.read(path, as_version=4)
        timeout = nb.metadata.get("mystnb", {}).get("execution_timeout", DEFAULT_TIMEOUT)
        runs.append(_pictures(_execute(nb, nbclient, timeout, NOTEBOOK_DIR)))
    assert runs[0], f"{path.name} drew no picture"
    assert runs[0] == runs[1], f"{path.name} drew different pictures on two runs: seed its data"


def test_kernel_runs_without_the_virtualenv_on_path(kernel):
    """The kernel's ``PATH`` lacks this virtualenv's ``bin``, as without activating it."""
    nbformat, nbclient = kernel
    probe = "import os\nprint(os.environ['PATH'])"
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(probe)],
        metadata={"kernelspec": {"name": KERNEL, "display_name": "Python 3"}},
    )
    _execute(nb, nbclient, 60, NOTEBOOK_DIR)
    seen = "".join(o.text for o in nb.cells[0].outputs if o.get("name") == "stdout").strip()
    assert seen == path_without_this_virtualenv()
    if sys.prefix != sys.base_prefix:
        bin_folder = os.path.realpath(os.path.dirname(sys.executable))
        assert bin_folder not in [os.path.realpath(p) for p in seen.split(os.pathsep) if p]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_without_outputs(path):
    """Notebooks are committed clean: no outputs, no execution counts."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb.get("nbformat") == 4, f"{path.name} is not an nbformat 4 notebook"
    dirty = [
        i
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not dirty, (
        f"{path.name} has outputs or execution counts in cells {dirty}: strip them with "
        f"`nbstripout {path.relative_to(ROOT)}` (or `nbstripout --install` once per clone)"
    )
    assert "widgets" not in nb.get("metadata", {}), f"{path.name} has widget state saved"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_nbstripout_is_clean(path):
    """``nbstripout --verify`` finds nothing to strip, so its git filter changes nothing."""
    if importlib.util.find_spec("nbstripout") is None:
        pytest.skip("nbstripout is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "nbstripout", "--verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, (
        f"nbstripout would change {path.name}: run `nbstripout {path.relative_to(ROOT)}`\n"
        + result.stdout
        + result.stderr
    )


def test_a_kernels_printf_shows_in_the_cell_that_launched_it(kernel, monkeypatch):
    """printf in a kernel prints into the cell, between the cell's own prints.

    The kernel's printf writes to the process's C stdout (the host backend's
    C library, or the CUDA driver at a synchronization), which ipykernel
    shows in the cell; gpuvec flushes it when the launch returns.
    """
    nbformat, nbclient = kernel
    # ipykernel shows what is written to the C stdout unless it runs under pytest.
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    code = (
        "import numpy as np, warnings, gpuvec\n"
        "warnings.simplefilter('ignore')\n"
        "k = gpuvec.RawKernel(r'''#include <stdio.h>\n"
        'extern "C" __global__ void hello(int* out) {\n'
        '    printf("hello from thread %d\\n", threadIdx.x);\n'
        "    out[threadIdx.x] = threadIdx.x;\n"
        "}''', 'hello')\n"
        "print('before the launch', flush=True)\n"
        "out = np.zeros(3, np.int32)\n"
        "k((1,), (3,), (out,))\n"
        "import time; time.sleep(0.5)  # ipykernel forwards C's output from a thread\n"
        "print('after the launch', out.tolist())\n"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    _execute(nb, nbclient, 300, NOTEBOOK_DIR)
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.output_type == "stream")
    lines = [f"hello from thread {t}" for t in range(3)]
    assert all(line in text for line in lines), text
    assert text.index("before the launch") < min(text.index(line) for line in lines), text
    assert max(text.index(line) for line in lines) < text.index("after the launch"), text
