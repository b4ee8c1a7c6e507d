"""PyCUDA's devices, contexts, streams and events, over gpuvec's.

gpuvec has no contexts of its own: a device's primary context is what its
CUDA backend runs in, and the host backend has one device, the host. So a
:class:`Context` here only stands for its device, and pushing or popping one
changes nothing.
"""

from __future__ import annotations

import operator

import gpuvec

__all__ = [
    "CompileError",
    "Context",
    "Device",
    "Error",
    "Event",
    "MemoryError",
    "Stream",
    "init",
    "mem_get_info",
]

# PyCUDA's exception classes, as gpuvec's.
Error = gpuvec.GpuvecError
CompileError = gpuvec.CompileError
MemoryError = gpuvec.OutOfMemoryError  # PyCUDA names it so, over the builtin


def init(flags: int = 0) -> None:
    """Chooses gpuvec's backend (CUDA where it can run, else the host), as ``cuInit`` would.

    Examples
    --------
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> cuda.init()
    """
    gpuvec.backend()


def mem_get_info() -> tuple[int, int]:
    """Free and total bytes of the current device (of the host, on the host backend).

    Examples
    --------
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> free, total = cuda.mem_get_info()
    >>> 0 <= free <= total
    True
    """
    info = gpuvec.memory_info()
    return info["device_free"], info["device_total"]


class Device:
    """A device: a GPU on the CUDA backend, the host on the host backend.

    Parameters
    ----------
    number : int
        The device ordinal.

    Examples
    --------
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> dev = cuda.Device(0)
    >>> isinstance(dev.name(), str), len(dev.compute_capability())
    (True, 2)
    >>> cuda.Device.count() >= 1
    True
    """

    def __init__(self, number: int = 0):
        self._device = gpuvec.Device(operator.index(number))

    @staticmethod
    def count() -> int:
        """The number of devices: the GPUs on the CUDA backend, 1 on the host backend."""
        return len(gpuvec.devices()) if gpuvec.backend() == "cuda" else 1

    def name(self) -> str:
        """The device's name (``"host"`` on the host backend)."""
        return self._device.properties["name"]

    def compute_capability(self) -> tuple[int, int]:
        """(major, minor); (0, 0) on the host backend, which emulates no GPU in particular."""
        return tuple(self._device.properties.get("compute_capability", (0, 0)))

    def total_memory(self) -> int:
        """Bytes of device memory (of host memory, on the host backend)."""
        properties = self._device.properties
        if "total_memory" in properties:
            return properties["total_memory"]
        return gpuvec.memory_info()["device_total"]

    def get_attributes(self) -> dict:
        """The device's properties, as :attr:`gpuvec.Device.properties` has them."""
        return dict(self._device.properties)

    def make_context(self, flags: int = 0) -> Context:
        """The device's context, made current."""
        context = Context(self)
        context.push()
        return context

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other._device == self._device

    def __hash__(self) -> int:
        return hash(self._device)

    def __repr__(self) -> str:
        return f"<Device {self._device.id}: {self.name()}>"


# The contexts pushed and not popped yet, the current one last.
_contexts: list[Context] = []


class Context:
    """A device's context: ``synchronize()`` waits for all of its work.

    Examples
    --------
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> context = cuda.Device(0).make_context()
    >>> context.synchronize()
    >>> context.get_device().name() == cuda.Device(0).name()
    True
    >>> context.pop()
    """

    def __init__(self, device: Device | None = None):
        self._device = device if device is not None else Device(0)

    @staticmethod
    def synchronize() -> None:
        """Waits until all queued GPU work has finished (:func:`gpuvec.synchronize`)."""
        gpuvec.synchronize()

    @staticmethod
    def get_device() -> Device:
        """The current context's device."""
        return Context.get_current()._device

    @staticmethod
    def get_current() -> Context:
        """The context pushed last, or the current device's."""
        if _contexts:
            return _contexts[-1]
        return Context(Device(gpuvec.current_device().id))

    def push(self) -> None:
        """Makes this context current (its device, gpuvec's current device)."""
        self._device._device.__enter__()
        _contexts.append(self)

    @staticmethod
    def pop() -> None:
        """Makes the context current before the last :meth:`push` current again."""
        if _contexts:
            _contexts.pop()._device._device.__exit__(None, None, None)

    def detach(self) -> None:
        """Done with this context: pops it where it is current."""
        if self in _contexts:
            while _contexts and _contexts[-1] is not self:
                Context.pop()
            Context.pop()


class Stream(gpuvec.Stream):
    """A stream, as gpuvec's :class:`gpuvec.Stream` (which it is), with PyCUDA's methods.

    Pass it as ``stream=`` to a kernel launch, or to gpuvec's own ops.

    Examples
    --------
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> s = cuda.Stream()
    >>> s.synchronize()
    >>> s.is_done()
    True
    """

    def __init__(self, flags: int = 0):
        super().__init__()

    def is_done(self) -> bool:
        """True: it waits for the stream's work first (gpuvec does not poll streams)."""
        self.synchronize()
        return True

    def wait_for_event(self, event: Event) -> None:
        """Makes later work wait for ``event``: here, the host waits for it."""
        event.synchronize()


class Event(gpuvec.Event):
    """A point in a stream, for waiting and timing; a :class:`gpuvec.Event`.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> start, end = cuda.Event(), cuda.Event()
    >>> _ = start.record()
    >>> _ = np.ones(1000).sum()
    >>> _ = end.record().synchronize()
    >>> start.time_till(end) >= 0, end.time_since(start) >= 0
    (True, True)
    """

    def __init__(self, flags: int = 0):
        super().__init__()

    def record(self, stream=None) -> Event:
        """Marks the point reached in ``stream`` (by default the current one); returns self."""
        super().record(stream)
        return self

    def synchronize(self) -> Event:
        """Waits for the work before the recorded point; returns self."""
        super().synchronize()
        return self

    def query(self) -> bool:
        """True: it waits for the recorded point first (gpuvec does not poll events)."""
        self.synchronize()
        return True

    def time_since(self, event: gpuvec.Event) -> float:
        """Milliseconds from ``event`` to this one: ``end.time_since(start)``."""
        return event.elapsed_time(self)

    def time_till(self, event: gpuvec.Event) -> float:
        """Milliseconds from this event to ``event``: ``start.time_till(end)``."""
        return self.elapsed_time(event)
