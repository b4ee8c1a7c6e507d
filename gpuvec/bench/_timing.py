"""Timing: events around one call (GPU time), or the wall clock over many calls.

Both ways follow the peers' own measurements (``shared/peers/anchors.py`` in
the project's notes): a warm-up, then the median of many timed calls, each
ended by waiting for the work, so that no call is timed twice or not at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

# A median of fewer runs than this is too noisy to report, whatever the time budget says.
MIN_RUNS = 3


class WallClock:
    """Times with the host's clock: for NumPy, and for calls that return host data."""

    def start(self) -> None:
        self._start = time.perf_counter()

    def stop(self) -> float:
        """Milliseconds since :meth:`start`."""
        return (time.perf_counter() - self._start) * 1e3


class EventClock:
    """Times with two events recorded before and after a call: the GPU's time for it.

    Parameters
    ----------
    start, end : event
        Two events of one library (``gpuvec.Event``, ``cupy.cuda.Event``,
        ``torch.cuda.Event(enable_timing=True)``), each with ``record()``
        and ``synchronize()``.
    elapsed_ms : callable
        ``elapsed_ms(start, end)``: milliseconds between the two events.
    """

    def __init__(self, start, end, elapsed_ms: Callable[[object, object], float]):
        self._start, self._end, self._elapsed_ms = start, end, elapsed_ms

    def start(self) -> None:
        self._start.record()

    def stop(self) -> float:
        """Milliseconds between the start event and now, once the work has finished."""
        self._end.record()
        self._end.synchronize()
        return float(self._elapsed_ms(self._start, self._end))


def measure(
    call: Callable,
    operand_sets: Sequence[tuple],
    clock,
    *,
    repeat: int,
    warmup: int,
    max_seconds: float,
) -> list[float]:
    """Milliseconds of each timed call of ``call(*operands)``.

    Parameters
    ----------
    call : callable
        The operation; its result is dropped.
    operand_sets : sequence of tuple
        Arguments of ``call``. Consecutive calls take consecutive sets, in a
        cycle, so that with enough distinct sets no call finds its data in a
        cache left warm by the call before.
    clock : WallClock or EventClock
        Started just before and stopped just after each timed call.
    repeat : int
        The most timed calls.
    warmup : int
        Untimed calls first (compilation, allocator caches, clocks ramping up).
    max_seconds : float
        Budget for the warm-up, and again for the timed calls: once spent,
        timing stops after :data:`MIN_RUNS` calls. It bounds slow cases (NumPy
        on 2^28 elements) without shortening fast ones.

    Returns
    -------
    list of float
        One time per timed call, in milliseconds.
    """
    count = len(operand_sets)
    deadline = time.perf_counter() + max_seconds
    for i in range(warmup):
        call(*operand_sets[i % count])
        if time.perf_counter() > deadline:
            break
    times: list[float] = []
    deadline = time.perf_counter() + max_seconds
    for i in range(repeat):
        operands = operand_sets[i % count]
        clock.start()
        call(*operands)
        times.append(clock.stop())
        if len(times) >= MIN_RUNS and time.perf_counter() > deadline:
            break
    return times


def per_call(
    call: Callable,
    operands: tuple,
    synchronize: Callable[[], None],
    *,
    calls: int,
    batches: int,
    warmup: int,
    max_seconds: float | None = None,
) -> list[float]:
    """Wall milliseconds per call of ``call(*operands)``, one figure per batch of calls.

    Each batch makes ``calls`` calls back to back and then waits for the
    device, so the figure is what a Python loop of tiny ops costs: the
    Python-side overhead and the launch, or, when launches queue up faster
    than they are issued, whichever of the two is slower. With
    ``max_seconds``, a call slow enough that the batches would take longer
    gets fewer calls per batch (at least 10), as the warm-up's pace says.
    """
    start = time.perf_counter()
    for _ in range(warmup):
        call(*operands)
    synchronize()
    if max_seconds is not None and warmup:
        pace = (time.perf_counter() - start) / warmup
        calls = max(min(calls, 10), min(calls, int(max_seconds / (batches * max(pace, 1e-9)))))
    result = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            call(*operands)
        synchronize()
        result.append((time.perf_counter() - start) * 1e3 / calls)
    return result
