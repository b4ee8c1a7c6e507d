"""What a kernel of the planted-bug corpus is: a correct kernel, how to run it
and check it against NumPy, and its buggy variants.

Each module of this folder defines KERNEL, a Kernel. A Bug names one edit of
the correct source (``old`` replaced by ``new``, each found exactly once), the
exception checked mode must raise, and the line the message must name: the
line of the buggy source that holds ``line`` (by default the line the edit
leaves ``new`` on). A bug of the launch rather than of the source (a grid too
big for a kernel that has no guard) leaves ``old`` and ``new`` empty and gives
``launch``, which changes the launch's keywords.
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
    # The class's name in gpuvec ("RaceError", "OutOfBoundsError", ...), or
    # the name of a CUDA error that is no kernel bug of checked mode's own
    # ("cudaErrorAssert": a device-side assert() failed), which gpuvec raises
    # as a CudaError of that name.
    error: str
    # A text of the line the message names (default: new's line), or texts
    # of lines of which it names one: a race between the threads of a
    # sorting network names whichever two accesses the data make meet first.
    line: str | tuple[str, ...] | None = None
    # A change of the launch's keywords (grid, block, shared_mem), for a bug
    # of the launch: the kernel's source is then unchanged.
    launch: Callable[[dict], dict] | None = None

    def source(self, correct: str) -> str:
        if self.launch is not None and not self.old and not self.new:
            return correct
        assert correct.count(self.old) == 1, f"{self.name}: {self.old!r} is not in the source once"
        return correct.replace(self.old, self.new)

    def expected_lines(self, correct: str) -> set[int]:
        """The lines of the buggy source of which the message must name one."""
        buggy = self.source(correct).splitlines()
        if self.line is None:
            needles = (self.new.strip().splitlines()[0],)
        elif isinstance(self.line, str):
            needles = (self.line,)
        else:
            needles = self.line
        found = set()
        for needle in needles:
            lines = [k + 1 for k, text in enumerate(buggy) if needle in text]
            assert len(lines) == 1, f"{self.name}: {needle!r} is on lines {lines}"
            found.add(lines[0])
        return found


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
    # Whether the outputs are the same bits on both backends. False, with the
    # reason in a comment, where they depend on the order of float atomics or
    # of a parallel float sum, or on a transcendental function (the host's
    # libm and CUDA's round some results differently).
    same_bits: bool = True


def floats(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Random float32 values in [-1, 1)."""
    return (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)


def close(actual, expected, rtol=1e-5, atol=1e-5):
    """A check: actual (a kernel's output, read when called) against expected."""

    def check():
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)

    return check


def equal(actual, expected):
    """A check of exact results (integers): actual against expected."""

    def check():
        np.testing.assert_array_equal(actual, expected)

    return check
