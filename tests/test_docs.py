"""The documentation builds without warnings, with executed notebooks and the whole API.

Builds ``docs/`` with Sphinx (warnings are errors) into a temporary folder,
executing the tutorial notebooks as the real build does, except notebook 08,
whose extension build ``tests/test_notebooks.py`` already runs; then checks
the rendered pages.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpuvec

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SKIP_EXECUTING = "tutorials/08-*"  # built and run by tests/test_notebooks.py


def pin_kernel(folder: Path) -> dict[str, str]:
    """The environment for a ``python3`` kernel that is this very Python.

    As in test_notebooks.py: a kernel spec running ``sys.executable``, first
    on ``JUPYTER_PATH``, so that no other Python's kernel runs the notebooks.
    """
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3 (gpuvec tests)", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    path = [str(folder), *filter(None, [os.environ.get("JUPYTER_PATH")])]
    return {"JUPYTER_PATH": os.pathsep.join(path)}


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    """The built HTML folder."""
    for module in ["sphinx", "myst_nb", "numpydoc"]:
        if importlib.util.find_spec(module) is None:
            pytest.skip(
                f'building the docs needs {module}: `python3 -m pip install ".[docs]"` installs it'
            )
    if importlib.util.find_spec("ipykernel") is None:
        pytest.skip("the docs execute notebooks, which needs ipykernel in this environment")
    build = tmp_path_factory.mktemp("docs")
    out = build / "html"
    command = [
        sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
        "-d", str(build / "doctrees"),
        str(DOCS), str(out),
    ]  # fmt: skip
    env = {
        **os.environ,
        **pin_kernel(build / "jupyter"),
        "GPUVEC_DOCS_SKIP_EXECUTING": SKIP_EXECUTING,
    }
    result = subprocess.run(
        command, cwd=build, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, (
        "sphinx-build failed:\n" + result.stdout[-6000:] + "\n" + result.stderr[-6000:]
    )
    return out


def test_notebook_pages_have_executed_outputs(html):
    page = (html / "tutorials" / "01-first-gpu-vector-add.html").read_text(encoding="utf-8")
    assert "cell_output" in page
    # Printed by the first cell; the page's source shows only the f-string.
    backend = re.search(r"gpuvec \d+\.\d+\.\d+\S*, backend: (host|cuda)", page)
    assert backend, "the output of notebook 01's first cell is missing"
    assert backend.group(1) == gpuvec.backend()
    assert re.search(r"a\[:3\] \+ b\[:3\] = \[[-+0-9.e ]+\]", page)


def test_every_notebook_has_a_page(html):
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (html / "tutorials" / f"{notebook.stem}.html").is_file(), notebook.name
    index = (html / "tutorials.html").read_text(encoding="utf-8")
    assert "01-first-gpu-vector-add.html" in index


def test_api_reference_documents_every_public_name(html):
    page = (html / "api.html").read_text(encoding="utf-8")
    missing = [name for name in gpuvec.__all__ if f'id="gpuvec.{name}"' not in page]
    assert not missing, f"not in the API reference: {missing}"


def test_dtype_page_shows_the_policy(html):
    page = (html / "dtypes.html").read_text(encoding="utf-8")
    assert "<table" in page
    assert "Python scalars do not count" in page
