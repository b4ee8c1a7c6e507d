"""gpuvec's extension modules export their init function and nothing else.

Where the C++ runtime is linked statically (``-static-libstdc++``, a custom
GCC, manylinux's devtoolset), a module that exported its symbols would export
that runtime's too (``__cxa_*``, ``std::``): the next C++ extension Python
loads (ml_dtypes, which CuPy and PyTorch import) would bind to gpuvec's
private copy and crash. gpuvec/extension.map.in keeps them local; these tests
read the installed modules' dynamic symbol tables, and import such a
neighbour after gpuvec in a fresh interpreter.
"""

from __future__ import annotations

import importlib.util
import itertools
import shutil
import signal
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import gpuvec

PACKAGE = Path(gpuvec.__file__).resolve().parent
# Every extension module of the installed package, gpuvec._core and any later one.
MODULES = sorted(
    path for path in PACKAGE.rglob("*") if any(path.name.endswith(s) for s in EXTENSION_SUFFIXES)
)


def _is_elf(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(4) == b"\x7fELF"


def _exported_definitions(path: Path) -> list[str]:
    """The names that the dynamic symbol table of ``path`` defines, by ``nm``."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("reading the dynamic symbol table needs nm (GNU binutils or LLVM)")
    listing = subprocess.run(
        [nm, "-D", "--defined-only", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    # Lines are "VALUE TYPE NAME"; a versioned name reads "NAME@@VERSION".
    return [line.split()[-1].split("@")[0] for line in listing.splitlines() if line.strip()]


def test_the_package_has_an_extension_module():
    assert MODULES, f"no extension module (suffixes {EXTENSION_SUFFIXES}) under {PACKAGE}"


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_only_the_init_function_is_exported(path):
    if not _is_elf(path):
        pytest.skip(f"{path.name} is not an ELF file: its symbol table is read only on ELF")
    init = "PyInit_" + path.name.split(".")[0]
    exported = _exported_definitions(path)
    others = sorted(set(exported) - {init})
    assert init in exported, f"{path.name} does not export its init function {init}"
    assert not others, (
        f"{path.name} exports {len(others)} symbols besides {init}, "
        f"the first of them {others[:10]}: link it with gpuvec/extension.map.in"
    )


# C++ extensions that users import beside gpuvec: ml_dtypes (in the `test`
# extra), and CuPy and PyTorch where they are installed (both import ml_dtypes).
NEIGHBOURS = [name for name in ("ml_dtypes", "cupy", "torch") if importlib.util.find_spec(name)]
# Every order of importing gpuvec and them: the crash depends on which comes first.
ORDERS = list(itertools.permutations(["gpuvec", *NEIGHBOURS]))


def test_ml_dtypes_is_installed():
    assert "ml_dtypes" in NEIGHBOURS, "ml_dtypes (the `test` extra) is needed by the tests below"


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(order) for order in ORDERS])
def test_cpp_extensions_import_beside_gpuvec_in_any_order(order, tmp_path):
    code = "; ".join(f"import {name}" for name in order)
    # Use each one a little once all are loaded: a bad binding shows there too.
    code += "; import numpy as np; assert float(gpuvec.sum(np.arange(4.0))) == 6.0"
    if "ml_dtypes" in order:
        code += "; ml_dtypes.bfloat16(1.5) + 1"
    # A fresh interpreter, since the crash comes at import and depends on the
    # order; outside the source tree, so that the installed gpuvec is imported.
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    status = result.returncode
    crash = f"it exited with {status}"
    if status < 0:
        crash = f"it died of signal {-status} ({signal.strsignal(-status)})"
    assert status == 0, f"`{code}`: {crash}\n{result.stderr}"
