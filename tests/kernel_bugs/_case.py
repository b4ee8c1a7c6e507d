"""What a kernel of the planted-bug corpus is: a correct kernel, how to run it
and check it against NumPy, and its buggy variants.

Each module of this folder defines KERNEL, a Kernel. A Bug names one edit of
the correct source (``old`` replaced by ``new``, each found exactly once), the
exception checked mode must raise, and the line the message must name: the
line of the buggy source that holds ``line`` (by default the line the edit
leaves ``new`` on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Bug:
    name: str
    old: str
    new: str
    error: str  # the class's name in gpuvec: "RaceError", "OutOfBoundsError", ...
    line: str | None = None  # a text of the line the message names; default: new's line

    def source(self, correct: str) -> str:
        assert correct.count(self.old) == 1, f"{self.name}: {self.old!r} is not in the source once"
        return correct.replace(self.old, self.new)

    def expected_line(self, correct: str) -> int:
        buggy = self.source(correct)
        needle = self.line if self.line is not None else self.new.strip().splitlines()[0]
        lines = [k + 1 for k, text in enumerate(buggy.splitlines()) if needle in text]
        assert len(lines) == 1, f"{self.name}: {needle!r} is on lines {lines} of the buggy source"
        return lines[0]


# A setup takes a generator and gives the launch: the arguments, the launch's
# keywords (grid, block, shared_mem), and a function that checks the outputs
# against NumPy once the kernel ran.
Setup = Callable[[np.random.Generator], tuple[tuple, dict, Callable[[], None]]]


@dataclass(frozen=True)
class Kernel:
    name: str  # the __global__ function
    source: str
    setup: Setup
    bugs: list[Bug] = field(default_factory=list)


def floats(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Random float32 values in [-1, 1)."""
    return (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)


def close(actual, expected, rtol=1e-5, atol=1e-5):
    """A check: actual (a kernel's output, read when called) against expected."""

    def check():
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)

    return check
