"""The Python examples of the README and of ``docs/*.md`` run as written, on every backend.

The blocks of a page run in order, in one namespace, as a reader runs them
top to bottom; each page starts afresh, so its blocks must define what they
use. The README's examples that use a peer library (PyTorch, CuPy) run in a
test of their own; a docs page that uses one skips where it is missing,
saying which. Tracebacks name the page and its line.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
# Optional libraries that some examples import: an example runs where they are installed.
PEERS = ("torch", "cupy", "dask", "distributed")


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """The page's ```python blocks, each with the number of the line before its first."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start(1)), match.group(1))
        for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)
    ]


BLOCKS = python_blocks(README)
DOC_PAGES = [page for page in DOCS if python_blocks(page)]


def _peers_of(block: str) -> list[str]:
    return [peer for peer in PEERS if re.search(rf"^\s*(import|from)\s+{peer}\b", block, re.M)]


def _missing_peers(blocks) -> list[str]:
    wanted = {peer for _, block in blocks for peer in _peers_of(block)}
    return sorted(peer for peer in wanted if importlib.util.find_spec(peer) is None)


def _run(page: Path, blocks) -> dict:
    namespace: dict = {"__name__": "__main__"}
    for offset, block in blocks:
        # Blank lines first, so that line numbers in a traceback are the page's.
        exec(compile("\n" * offset + block, str(page), "exec"), namespace)
    return namespace


def test_readme_examples_run(backend):
    plain = [(offset, block) for offset, block in BLOCKS if not _peers_of(block)]
    assert len(plain) >= 3, "the README lost its examples"
    namespace = _run(README, plain)
    # What the examples compute agrees with NumPy.
    a, b = namespace["a"], namespace["b"]
    np.testing.assert_allclose(namespace["c"], a + b)
    g = namespace["g"].to_host()
    expected = (g - g.mean(axis=0)) / g.std(axis=0)
    np.testing.assert_allclose(namespace["z"].to_host(), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(namespace["w"].to_host(), expected, rtol=1e-9, atol=1e-12)
    p = np.exp(g - g.max(axis=1, keepdims=True))
    np.testing.assert_allclose(namespace["p"].to_host(), p / p.sum(axis=1, keepdims=True))
    d = namespace["d"].to_host()
    assert namespace["n"] == np.count_nonzero(d > 0.5)
    np.testing.assert_array_equal(namespace["kept"].to_host(), d[(d > 0.5) & ~np.isnan(d)])
    np.testing.assert_array_equal(namespace["r"].to_host(), np.where(d < 0.1, 0.0, d))
    u, v = namespace["u"].to_host(), namespace["v"].to_host()
    np.testing.assert_array_equal(namespace["y"].to_host(), 2.5 * u * v + u - 0.5)
    np.testing.assert_allclose(float(namespace["total"]), np.sum(u * u), rtol=1e-12)


def test_readme_interop_examples_run(backend):
    missing = _missing_peers(BLOCKS)
    if missing:
        pytest.skip(f"the README's interop example needs {', '.join(missing)}, not installed here")
    namespace = _run(README, BLOCKS)
    np.testing.assert_allclose(np.asarray(namespace["t"].cpu()), namespace["e"].to_host())


def test_docs_examples_found():
    names = [page.name for page in DOC_PAGES]
    for name in ["index.md", "quickstart.md", "kernels.md"]:
        assert name in names, f"no ```python block found in docs/{name}; pages with some: {names}"


@pytest.mark.parametrize("page", DOC_PAGES, ids=[page.name for page in DOC_PAGES])
def test_docs_examples_run(page, backend):
    blocks = python_blocks(page)
    missing = _missing_peers(blocks)
    if missing:
        pytest.skip(f"docs/{page.name}'s examples need {', '.join(missing)}, not installed here")
    _run(page, blocks)


def test_readme_counts_the_tutorials():
    # The layout's line for notebooks/ says how many tutorials there are.
    match = re.search(r"^notebooks/\s+(\S+) tutorials", README.read_text(encoding="utf-8"), re.M)
    assert match, "the README's layout has no line 'notebooks/  N tutorials'"
    count = len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert match.group(1) == str(count), (
        f"the README says {match.group(1)}, notebooks/ has {count}"
    )


# The examples that start worker processes. Dask's processes (and any that
# multiprocessing spawns) run the script's top level again as they start, so
# each such example runs as a reader saves it too: as a script of its own.
SCRIPT_BLOCKS = [
    (page, offset, block)
    for page in DOC_PAGES
    for offset, block in python_blocks(page)
    if "Cluster(" in block
]


def test_examples_that_start_processes_are_found():
    assert "dask.md" in [page.name for page, _, _ in SCRIPT_BLOCKS]


@pytest.mark.parametrize(
    ("page", "offset", "block"),
    SCRIPT_BLOCKS,
    ids=[f"{page.name}:{offset + 1}" for page, offset, _ in SCRIPT_BLOCKS],
)
def test_docs_examples_that_start_processes_run_as_scripts(page, offset, block, backend, tmp_path):
    pytest.importorskip("distributed")
    missing = _missing_peers([(offset, block)])
    if missing:
        pytest.skip(f"docs/{page.name}'s example needs {', '.join(missing)}, not installed here")
    script = tmp_path / f"{page.stem}_example.py"
    script.write_text("\n" * offset + block, encoding="utf-8")  # line numbers as on the page
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env={**os.environ, "GPUVEC_BACKEND": backend},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, (
        f"docs/{page.name}'s example as a script:\n{result.stderr[-4000:]}"
    )


import gpuvec  # noqa: E402  (the op table, for the README's list of ops)
from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS  # noqa: E402
from gpuvec.ufuncs import ALIASES  # noqa: E402


def _op_list() -> set[str]:
    """The names in the README's paragraph that lists the ops ("The ops: ...")."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"The ops: (.*?)\n\n", text, re.S)
    assert match, "the README has no paragraph 'The ops: ...'"
    return set(re.findall(r"`(\w+)`", match.group(1)))


def test_readme_lists_every_op_of_the_table():
    """Every public op of the op table is in the README's list (under its name
    or an alias), and every name there is a gpuvec function."""
    listed = _op_list()
    names = {alias: name for alias, name in ALIASES.items()}
    public = [row.name for row in [*ELEMENTWISE_OPS.values(), *REDUCE_OPS.values()]]
    public = [name for name in public if callable(getattr(gpuvec, name, None))]
    missing = sorted(name for name in public if name not in {names.get(n, n) for n in listed})
    assert not missing, f"the README's list of ops lacks {missing}"
    unknown = sorted(n for n in listed if not callable(getattr(gpuvec, n, None)))
    assert not unknown, f"the README lists {unknown}, which gpuvec lacks"
