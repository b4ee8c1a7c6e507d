"""Device memory: how much gpuvec's caching pool holds, and giving it back."""

from __future__ import annotations

import os

from gpuvec import _backend, _core

__all__ = ["free_cached", "memory_info"]


def memory_info() -> dict:
    """Memory in use and cached by gpuvec, and the device's free and total memory.

    Returns
    -------
    dict
        ``in_use``: bytes held by live arrays and buffers; ``cached``: bytes
        freed by gpuvec but kept for reuse; ``device_free`` and
        ``device_total``: what the driver reports for the whole device. On
        the host backend ``in_use`` and ``cached`` are 0 (NumPy allocates) and
        the device figures are the host's memory.

    Examples
    --------
    >>> import gpuvec
    >>> sorted(gpuvec.memory_info())
    ['cached', 'device_free', 'device_total', 'in_use']
    """
    if _backend.backend() == "host":
        page = os.sysconf("SC_PAGE_SIZE")
        return {
            "in_use": 0,
            "cached": 0,
            "device_free": os.sysconf("SC_AVPHYS_PAGES") * page,
            "device_total": os.sysconf("SC_PHYS_PAGES") * page,
        }
    used, reserved = _core.pool_usage()
    free, total = _core.cuda_mem_info()
    return {"in_use": used, "cached": reserved - used, "device_free": free, "device_total": total}


def free_cached() -> None:
    """Gives the cached device memory back to the driver (after waiting for the GPU).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.free_cached()
    >>> gpuvec.memory_info()["cached"]
    0
    """
    if _backend.backend() == "cuda":
        _core.pool_release_cached()
