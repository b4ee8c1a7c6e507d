"""Streams and events: ordering and timing GPU work.

Work queued on one stream runs in order; work on different streams may run
at the same time. Ops take ``stream=``; by default they use the current
stream, which ``with stream:`` sets, and otherwise CUDA's default stream.
Ops on device arrays return as soon as their work is queued; anything that
needs a host value (``to_host()``, ``float()``) waits for it, on the stream
that wrote the array. An op on one stream does not wait for work queued on
another: before reading on the default stream (or a third one) an array that
``s`` wrote, call ``s.synchronize()`` or ``synchronize()`` an Event recorded
on ``s`` after the write, as with CuPy's and PyTorch's streams.

On the host backend these objects exist too and everything runs in order;
events still time (with the host's clock).
"""

from __future__ import annotations

import contextvars
import time

from gpuvec import _backend, _core

__all__ = ["Event", "Stream", "current_stream"]

_current_stream: contextvars.ContextVar[Stream | None] = contextvars.ContextVar(
    "gpuvec_current_stream", default=None
)


class Stream:
    """A CUDA stream; ``with stream:`` makes it the current stream.

    Examples
    --------
    >>> import gpuvec
    >>> s = gpuvec.Stream()
    >>> with s:
    ...     y = gpuvec.scale(gpuvec.ones(4), 3.0)  # queued on s
    >>> s.synchronize()
    >>> float(y.sum())
    12.0
    """

    def __init__(self):
        self._cuda = _core.CudaStream() if _backend.backend() == "cuda" else None
        self._tokens: list[contextvars.Token] = []

    @property
    def handle(self) -> int:
        """The cudaStream_t as an int (0 on the host backend)."""
        return self._cuda.address if self._cuda is not None else 0

    def synchronize(self) -> None:
        """Waits until all work queued on this stream has finished."""
        if self._cuda is not None:
            self._cuda.synchronize()

    def __enter__(self) -> Stream:
        self._tokens.append(_current_stream.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _current_stream.reset(self._tokens.pop())

    def __repr__(self) -> str:
        return f"<gpuvec.Stream {self.handle:#x}>"


def current_stream() -> Stream | None:
    """The stream set by the innermost ``with stream:``, or None (the default stream)."""
    return _current_stream.get()


def resolve_stream(stream: Stream | None = None) -> Stream | None:
    """The stream ops queue on: ``stream``, else the current one, else None (the default)."""
    if stream is None:
        return _current_stream.get()
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a gpuvec.Stream or None, got {type(stream).__name__}")
    return stream


def stream_handle(stream: Stream | None = None) -> int:
    """The cudaStream_t ops queue on, as an int (0: the default stream)."""
    resolved = resolve_stream(stream)
    return 0 if resolved is None else resolved.handle


class Event:
    """A marker in a stream, for waiting and timing.

    Examples
    --------
    Time GPU work with events rather than the wall clock:

    >>> import gpuvec
    >>> x = gpuvec.ones(1 << 16)
    >>> start, end = gpuvec.Event(), gpuvec.Event()
    >>> start.record()
    >>> y = x + x
    >>> end.record()
    >>> end.synchronize()
    >>> start.elapsed_time(end) >= 0
    True
    """

    def __init__(self):
        self._cuda = _core.CudaEvent() if _backend.backend() == "cuda" else None
        self._host_time: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        """Marks the point in ``stream`` (default: the current stream) reached so far."""
        handle = stream_handle(stream)
        if self._cuda is not None:
            self._cuda.record(handle)
        else:
            self._host_time = time.perf_counter()

    def synchronize(self) -> None:
        """Waits until the work before the recorded point has finished."""
        if self._cuda is not None:
            self._cuda.synchronize()

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to ``end``; both must be recorded and reached."""
        if self._cuda is not None:
            return self._cuda.elapsed_ms(end._cuda)
        if self._host_time is None or end._host_time is None:
            raise ValueError("both events must be recorded before timing them")
        return (end._host_time - self._host_time) * 1e3


_core.register_stream_context(_current_stream, Stream)
