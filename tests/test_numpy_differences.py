"""docs/numpy-differences.md stays true: each of its examples runs, on both backends."""

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "numpy-differences.md"
EXAMPLES = re.findall(r"^## (.+?)\n.*?```python\n(.*?)```", PAGE.read_text(), re.S | re.M)


def test_every_row_of_the_table_has_an_example():
    rows = re.findall(r"^\| (\d+) \|", PAGE.read_text(), re.M)
    assert [int(r) for r in rows] == list(range(1, len(EXAMPLES) + 1))


@pytest.mark.parametrize(("title", "code"), EXAMPLES, ids=[t for t, _ in EXAMPLES])
def test_example_shows_the_stated_behaviour(backend, title, code):
    exec(compile(code, f"numpy-differences.md: {title}", "exec"), {})
