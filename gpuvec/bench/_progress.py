"""The progress bar: tqdm where it is installed, a plain line per step where not."""

from __future__ import annotations

import sys


class Progress:
    """Counts finished steps out of ``total``, and says what runs now.

    Uses ``tqdm.auto`` (a widget in Jupyter, text in a terminal). Without
    tqdm it prints one ``[k/total] what`` line per step to stderr, which
    also reads well in a CI log.

    Parameters
    ----------
    total : int
        The number of steps.
    enabled : bool
        False shows nothing.
    """

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.done, self.enabled = total, 0, enabled
        self._bar = None
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        # Redrawn less often where stderr is a log file, not a terminal, so as not to flood it.
        interactive = sys.stderr.isatty() or "ipykernel" in sys.modules
        self._bar = tqdm(
            total=total,
            unit="step",
            dynamic_ncols=True,
            mininterval=0.2 if interactive else 10.0,
        )

    def describe(self, text: str) -> None:
        """Says what runs now."""
        if self._bar is not None:
            self._bar.set_description_str(text, refresh=False)
        elif self.enabled:
            print(f"[{self.done}/{self.total}] {text}", file=sys.stderr, flush=True)

    def advance(self, steps: int = 1) -> None:
        """Marks ``steps`` more steps done."""
        self.done += steps
        if self._bar is not None:
            self._bar.update(steps)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()
