"""The install commands the documentation gives work with the pip of a fresh virtualenv.

A new virtualenv may come with pip 23 or 24, which has no ``--group`` (pip
25.1 added it): the documentation installs with extras (``".[docs]"``), and a
hint that does use a dependency group upgrades pip first.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Everything that tells a reader what to install.
HINTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "docs" / "conf.py",
    ROOT / ".ci" / "run",
    ROOT / "tests" / "test_docs.py",
]
UPGRADE_PIP = re.compile(r"pip install (-q )?--upgrade pip")


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", HINTS, ids=[str(p.relative_to(ROOT)) for p in HINTS])
def test_group_installs_upgrade_pip_first(path):
    text = path.read_text(encoding="utf-8")
    # From the last `pip install` before the `--group`, leaving out comments.
    for match in re.finditer(r"pip install(?:(?!pip install)[^\n`#])*--group", text):
        line = text.count("\n", 0, match.start()) + 1
        assert UPGRADE_PIP.search(text, 0, match.start()), (
            f"{path.name}, line {line}: `--group` needs pip 25.1 or newer; "
            "upgrade pip first, or install an extra"
        )


@pytest.mark.parametrize("path", HINTS, ids=[str(p.relative_to(ROOT)) for p in HINTS])
def test_extras_in_install_hints_exist(path):
    extras = _pyproject()["project"]["optional-dependencies"]
    text = path.read_text(encoding="utf-8")
    for names in re.findall(r"pip install[^\n`]*?\.\[([\w,-]+)\]", text):
        for name in names.split(","):
            assert name in extras, f"{path.name} installs the extra {name!r}, which is not defined"


def test_docs_extra_mirrors_the_docs_group():
    pyproject = _pyproject()
    extra = pyproject["project"]["optional-dependencies"].get("docs")
    assert extra is not None, "no `docs` extra: `pip install '.[docs]'` installs nothing more"
    assert extra == pyproject["dependency-groups"]["docs"]
