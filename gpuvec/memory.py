"""Device memory: how much gpuvec's caching pool holds, giving it back, and a cap on it."""

from __future__ import annotations

import operator
import os
import re

from gpuvec import _backend, _core

__all__ = ["free_cached", "memory_info", "memory_limit", "set_memory_limit"]

# Units of a size written as text, as Dask writes them: kB, MB, ... are
# powers of 1000, KiB, MiB, ... powers of 1024.
_UNITS = {"": 1, "b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_UNITS |= {u + "b": f for u, f in _UNITS.items() if u not in ("", "b")}
_UNITS |= {u + "ib": 1 << (10 * (i + 1)) for i, u in enumerate("kmgt")}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)\s*")

# The environment variable that sets the cap where set_memory_limit does not.
_VARIABLE = "GPUVEC_MEMORY_LIMIT"

# The cap set last (bytes), or None; and whether GPUVEC_MEMORY_LIMIT is still
# to be read (neither an allocation nor set_memory_limit has come yet).
_limit: int | None = None
_environment_pending = True


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


def set_memory_limit(nbytes) -> None:
    """Caps the device memory that gpuvec's arrays and temporaries hold, on each device.

    An allocation that would pass the cap raises :class:`MemoryError`, as on a
    full device, so that a pipeline over more data than the cap (Dask's, say)
    is shown to work in that much memory. Memory already handed out stays.
    The environment variable ``GPUVEC_MEMORY_LIMIT`` sets the cap where this
    function has not: it is read at the first allocation of device memory, so
    it may be set after ``import gpuvec`` (in each Dask worker too, as by a
    Nanny's ``env=``).

    Parameters
    ----------
    nbytes : int, str or None
        Bytes (``4 * 2**30``), a size with a unit (``"4 GiB"``, ``"500 MB"``:
        kB, MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB of 1024), or
        None or 0 for no cap.

    Raises
    ------
    TypeError
        If `nbytes` is not an integer, a string or None.
    ValueError
        If `nbytes` is negative or a string that is not a size.

    Notes
    -----
    The cap counts what gpuvec hands out on the CUDA backend; blocks kept for
    reuse (see :func:`memory_info`'s ``cached``) are not counted. On the host
    backend NumPy allocates and the cap has no effect.

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.set_memory_limit("2 GiB")
    >>> gpuvec.memory_limit()
    2147483648
    >>> gpuvec.set_memory_limit(None)
    >>> gpuvec.memory_limit() is None
    True
    """
    _set_limit(_parse_size(nbytes, "nbytes"))


def _set_limit(limit: int) -> None:
    """Sets the cap (0: none), in place of GPUVEC_MEMORY_LIMIT's."""
    global _limit, _environment_pending
    if _core.cuda_built():
        _core.set_memory_limit(limit)
    _limit = limit or None
    _environment_pending = False
    _core.call_before_allocation(None)  # the environment's cap is not wanted any more


def _limit_from_environment() -> int:
    """GPUVEC_MEMORY_LIMIT's cap in bytes (0 where it is unset or empty)."""
    return _parse_size(os.environ.get(_VARIABLE) or None, _VARIABLE)


def _apply_environment_limit() -> None:
    """Sets GPUVEC_MEMORY_LIMIT's cap: called before the first allocation of
    device memory, where :func:`set_memory_limit` was not called first. A
    value that is not a size raises, at each allocation, until it is fixed."""
    _set_limit(_limit_from_environment())


def memory_limit() -> int | None:
    """The cap, in bytes, or None: the one set by :func:`set_memory_limit`, else
    ``GPUVEC_MEMORY_LIMIT``'s (read at the first allocation of device memory;
    until then, as the environment has it now).

    Examples
    --------
    >>> import gpuvec
    >>> gpuvec.memory_limit() is None
    True
    """
    if _environment_pending:
        return _limit_from_environment() or None
    return _limit


def _parse_size(value, name: str) -> int:
    """Bytes from an int, a size string or None (0), for argument `name`."""
    if value is None:
        return 0
    if isinstance(value, str):
        match = _SIZE.fullmatch(value.lower())
        if match is None or match.group(2) not in _UNITS:
            raise ValueError(f"{name}={value!r} is not a size such as 4 GiB or 500 MB")
        return int(float(match.group(1)) * _UNITS[match.group(2)])
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, a size string or None, not bool")
    try:
        nbytes = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name} must be an integer, a size string or None, not {type(value).__name__}"
        ) from None
    if nbytes < 0:
        raise ValueError(f"{name}={nbytes} is negative")
    return nbytes


_core.call_before_allocation(_apply_environment_limit)
