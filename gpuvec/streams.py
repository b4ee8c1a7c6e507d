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

Another library's stream works too: ``stream=`` takes any object of the
CUDA stream protocol (``__cuda_stream__``: cuda.core's, Numba's and recent
PyTorch's streams) and CuPy's and PyTorch's streams, and ``gpuvec.Stream(other)`` stands for
one (for ``with``). gpuvec keeps no memory for such a stream across calls,
since it cannot see when the stream is destroyed.

On the host backend these objects exist too and everything runs in order;
events still time (with the host's clock).
"""

from __future__ import annotations

import contextvars
import time

from gpuvec import _backend, _core

__all__ = ["Event", "Stream", "current_stream"]

# The current stream: kept in the core, where every call reads it.
_current_stream = _core.CURRENT_STREAM


class Stream:
    """A CUDA stream; ``with stream:`` makes it the current stream.

    Parameters
    ----------
    external : object, optional
        Another library's stream to stand for, instead of a new one: an
        object of the CUDA stream protocol (``__cuda_stream__``), or a CuPy
        or PyTorch stream. The Stream keeps it alive, and does not destroy it.

    Raises
    ------
    TypeError
        If ``external`` is not a stream gpuvec can read a handle from.

    Examples
    --------
    >>> import gpuvec
    >>> s = gpuvec.Stream()
    >>> with s:
    ...     y = gpuvec.scale(gpuvec.ones(4), 3.0)  # queued on s
    >>> s.synchronize()
    >>> float(y.sum())
    12.0

    With a GPU, a PyTorch or CuPy stream is used as it is (``stream=`` takes
    it too): ``with gpuvec.Stream(torch.cuda.Stream()): ...``.
    """

    def __init__(self, external=None):
        on_gpu = _backend.backend() == "cuda"
        self._external = external
        if external is None:
            self._cuda = _core.CudaStream() if on_gpu else None
            self._handle = self._cuda.address if on_gpu else 0
        else:
            self._cuda = None
            handle = foreign_stream_handle(external)
            self._handle = handle if on_gpu else 0
        self._tokens: list[contextvars.Token] = []

    @property
    def handle(self) -> int:
        """The cudaStream_t as an int (0 on the host backend)."""
        return self._handle

    def synchronize(self) -> None:
        """Waits until all work queued on this stream has finished."""
        if self._cuda is not None:
            self._cuda.synchronize()
        elif self._handle:
            _core.stream_synchronize(self._handle)

    def __enter__(self) -> Stream:
        self._tokens.append(_current_stream.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _current_stream.reset(self._tokens.pop())

    def __repr__(self) -> str:
        of = "" if self._external is None else f" of {type(self._external).__name__}"
        return f"<gpuvec.Stream {self.handle:#x}{of}>"


def current_stream() -> Stream | None:
    """The stream set by the innermost ``with stream:``, or None (the default stream)."""
    return _current_stream.get()


def foreign_stream_handle(stream) -> int:
    """The cudaStream_t of another library's stream, as an int.

    Raises
    ------
    TypeError
        For an object that is no stream gpuvec knows how to read.
    """
    if hasattr(type(stream), "__cuda_stream__"):  # the CUDA stream protocol
        _version, handle = stream.__cuda_stream__()
        return int(handle)
    module = type(stream).__module__
    if module.startswith("cupy") and hasattr(stream, "ptr"):
        return int(stream.ptr)  # CuPy's streams, which predate the protocol
    if module.startswith("torch") and hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)  # PyTorch's, before it took up the protocol
    raise TypeError(
        "stream must be a gpuvec.Stream, another library's stream (with __cuda_stream__, "
        f"or CuPy's or PyTorch's) or None, got {type(stream).__name__}"
    )


def resolve_stream(stream=None) -> Stream | None:
    """The stream ops queue on: ``stream`` (another library's as a Stream),
    else the current one, else None (the default)."""
    if stream is None:
        return _current_stream.get()
    return stream if isinstance(stream, Stream) else Stream(stream)


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


_core.register_stream_class(Stream)
