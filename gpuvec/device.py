"""Devices: which GPU arrays live on and ops run on."""

from __future__ import annotations

import operator

from gpuvec import _backend, _core

__all__ = ["Device", "current_device"]


class Device:
    """A GPU, and a context manager that makes it the current one.

    On the host backend there is one device, 0: the host.

    Parameters
    ----------
    id : int
        The device ordinal, from 0 to the number of devices minus one.

    Examples
    --------
    >>> import gpuvec
    >>> with gpuvec.Device(0) as d:
    ...     x = gpuvec.zeros(3)
    >>> x.device == d
    True
    """

    def __init__(self, id: int = 0):
        id = operator.index(id)
        count = _core.cuda_device_count() if _backend.backend() == "cuda" else 1
        if not 0 <= id < count:
            where = (
                "CUDA device(s)" if _backend.backend() == "cuda" else "device on the host backend"
            )
            raise ValueError(f"device {id} does not exist: there is {count} {where}")
        self.id = id
        self._entered: list[int] = []

    def __enter__(self) -> Device:
        if _backend.backend() == "cuda":
            self._entered.append(_core.cuda_get_device())
            _core.cuda_set_device(self.id)
        return self

    def __exit__(self, *exc) -> None:
        if _backend.backend() == "cuda" and self._entered:
            _core.cuda_set_device(self._entered.pop())

    @property
    def properties(self) -> dict:
        """Name, compute capability, memory and more, as a dict.

        ``"uuid"`` names the GPU as ``nvidia-smi -L`` does, the same in every
        process, whatever ``CUDA_VISIBLE_DEVICES`` makes its ``id``.
        """
        if _backend.backend() == "cuda":
            return _core.cuda_device_info(self.id)
        return {"id": 0, "name": "host"}

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("gpuvec.Device", self.id))

    def __repr__(self) -> str:
        return f"<gpuvec.Device {self.id}: {self.properties['name']}>"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{k}</th><td>{v}</td></tr>"
            for k, v in self.properties.items()
        )
        return f"<table><caption>gpuvec.Device {self.id}</caption>{rows}</table>"


def current_device() -> Device:
    """The device new arrays are created on.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.current_device().id
    0
    """
    return Device(_core.cuda_get_device() if _backend.backend() == "cuda" else 0)
