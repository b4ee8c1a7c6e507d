"""The README's Python examples run as written, in order, on every backend.

The examples that use a peer library (PyTorch, CuPy) run in a test of their
own, which skips where the peer is not installed; the others always run.
"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
PEERS = ("torch", "cupy")


def _peers_of(block: str) -> list[str]:
    return [peer for peer in PEERS if f"import {peer}" in block]


def _run(blocks) -> dict:
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    return namespace


def test_readme_examples_run(backend):
    plain = [block for block in BLOCKS if not _peers_of(block)]
    assert len(plain) >= 3, "the README lost its examples"
    namespace = _run(plain)
    # What the examples compute agrees with NumPy.
    a, b = namespace["a"], namespace["b"]
    np.testing.assert_allclose(namespace["c"], a + b)
    g = namespace["g"].to_host()
    expected = (g - g.mean(axis=0)) / g.std(axis=0)
    np.testing.assert_allclose(namespace["z"].to_host(), expected, rtol=1e-9, atol=1e-12)
    p = np.exp(g - g.max(axis=1, keepdims=True))
    np.testing.assert_allclose(namespace["p"].to_host(), p / p.sum(axis=1, keepdims=True))


def test_readme_interop_examples_run(backend):
    wanted = {peer for block in BLOCKS for peer in _peers_of(block)}
    missing = sorted(peer for peer in wanted if importlib.util.find_spec(peer) is None)
    if missing:
        pytest.skip(f"the README's interop example needs {', '.join(missing)}, not installed here")
    namespace = _run(BLOCKS)
    np.testing.assert_allclose(np.asarray(namespace["t"].cpu()), namespace["e"].to_host())
