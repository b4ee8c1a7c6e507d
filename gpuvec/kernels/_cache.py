"""The on-disk cache of compiled kernels, so that a second run loads in milliseconds.

Each entry is two files in one folder:

- ``KEY-HASH.SUFFIX``: the payload, a CUBIN or PTX image for the GPU or a
  shared library for the host backend; HASH starts its SHA-256;
- ``KEY.json``: its record: the payload's full SHA-256 and size, and the
  caller's metadata (NVRTC's lowered names, whether the image is a CUBIN).

The folder holds native code that gpuvec loads and runs, so it must be
private. gpuvec creates it with mode 0700 and refuses a folder that another
user owns or that others may write into; a file planted there could
otherwise run as the user. Each entry is checked against its recorded
SHA-256 before it is returned, which turns a damaged or half-copied entry
into a miss (the caller compiles again) instead of a crash in ``dlopen``.

Writes are atomic: a file is written under a temporary name in the same
folder, flushed to disk, and renamed into place (``os.replace``), so another
process sees either no file or the whole file. The payload is renamed in
first and the record last, and the payload's name carries its hash, so a
record always names a complete payload, even when two processes write the
same key at once with different bytes.

The folder is ``$GPUVEC_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/gpuvec/kernels``, else ``~/.cache/gpuvec/kernels``. Where
that folder cannot be created or written (a read-only home, a path through
a file), :func:`gpuvec.kernels.kernel_cache` warns, naming the folder and
``GPUVEC_CACHE_DIR``, and caches in a private temporary folder for the rest
of the process, so that kernels still compile.

Examples
--------
>>> import tempfile, os
>>> cache = KernelCache(os.path.join(tempfile.mkdtemp(), "kernels"))
>>> key = cache_key(source="__global__ void k() {}", backend="host")
>>> cache.get(key) is None
True
>>> entry = cache.put(key, b"compiled code", {"is_cubin": False})
>>> cache.get(key).payload, cache.get(key).metadata
(b'compiled code', {'is_cubin': False})
>>> cache.stats().entries
1
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import stat
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CacheEntry", "CacheStats", "KernelCache", "cache_dir", "cache_key"]

# Bumped when the entries' layout changes, so that old entries are never read.
FORMAT = 1

_KEY = re.compile(r"[0-9a-f]{64}")
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}")
# The files this cache writes; clear() removes these and nothing else, in
# case GPUVEC_CACHE_DIR points at a folder that holds other things too.
_OWN_FILE = re.compile(r"[0-9a-f]{64}(?:\.json|-[0-9a-f]{16}\.[A-Za-z0-9]{1,8})|\.tmp-.*")


@dataclass(frozen=True)
class CacheEntry:
    """One verified entry of the cache.

    Attributes
    ----------
    payload : bytes
        The compiled code, whose SHA-256 matched the record.
    path : pathlib.Path
        The file holding it (the host backend loads the library from there).
    metadata : dict
        What the caller stored with it (through JSON: tuples come back as lists).
    """

    payload: bytes
    path: Path
    metadata: dict[str, Any]


@dataclass(frozen=True)
class CacheStats:
    """How much the cache holds, and how it has served this process.

    Attributes
    ----------
    entries, bytes : int
        The entries in the folder and the bytes of their files.
    hits, misses : int
        The lookups of this process that found an entry, and those that did not.
    """

    entries: int
    bytes: int
    hits: int
    misses: int


def cache_dir() -> Path:
    """The cache's folder, by the environment (see the module's documentation).

    Returns
    -------
    pathlib.Path
        An absolute path; the folder may not exist yet.
    """
    explicit = os.environ.get("GPUVEC_CACHE_DIR", "")
    if explicit:
        return Path(explicit).expanduser().absolute()
    # The XDG specification says to ignore a relative XDG_CACHE_HOME.
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "gpuvec" / "kernels"


def cache_key(**parts: Any) -> str:
    """The cache key of a compile: the SHA-256 of everything its output depends on.

    Parameters
    ----------
    **parts
        What the compile depends on, by name: ``source``, ``options``,
        ``names`` (the name expressions), ``architecture``, ``compiler`` (its
        id and version), ``backend``, ``checked`` and, for the host backend,
        ``header`` (the emulation header's text). Values are str, int,
        bool, None, bytes, or lists, tuples and dicts of them. gpuvec's
        version and this cache's format are always added.

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    TypeError
        A value of another type, whose text could vary between runs.
    """
    everything = {"cache format": FORMAT, "gpuvec version": _gpuvec_version(), **parts}
    # Canonical JSON: keys sorted, no spaces, so equal parts give equal text.
    text = json.dumps(everything, sort_keys=True, separators=(",", ":"), default=_bytes_as_hash)
    return hashlib.sha256(text.encode()).hexdigest()


class KernelCache:
    """The on-disk kernel cache.

    Parameters
    ----------
    directory : path-like, optional
        Its folder; by default :func:`cache_dir`. Created (with any missing
        parents) with mode 0700.
    fallback : bool, optional
        Where the folder cannot be created or written, warn and use a
        private temporary folder, removed when the process exits, instead of
        raising. The kernel cache that gpuvec compiles through has it on.

    Attributes
    ----------
    directory : pathlib.Path
        The folder in use.
    requested : pathlib.Path
        The folder asked for; `directory` differs after a fallback.

    Raises
    ------
    PermissionError
        The folder belongs to another user or may be written by others (no
        fallback: a folder someone else can write must be fixed, not
        silently skipped); or, without `fallback`, it cannot be written.
    OSError
        Without `fallback`, the folder cannot be created; the message names
        it and ``GPUVEC_CACHE_DIR``.
    """

    def __init__(self, directory: str | os.PathLike | None = None, *, fallback: bool = False):
        self.requested = Path(directory).absolute() if directory is not None else cache_dir()
        self.directory = self.requested
        self._fallback = fallback
        self._hits = 0
        self._misses = 0
        self._folder()

    def get(self, key: str) -> CacheEntry | None:
        """The entry of `key`, verified; None (a miss) when there is none or it is damaged.

        A damaged entry (a payload whose hash is not the recorded one, a
        record that is not whole JSON, a missing payload) is removed, so the
        caller's compile replaces it.

        Parameters
        ----------
        key : str
            From :func:`cache_key`.

        Returns
        -------
        CacheEntry or None
        """
        entry = self._read(key)
        if entry is None:
            self._misses += 1
        else:
            self._hits += 1
        return entry

    def put(
        self,
        key: str,
        payload: bytes,
        metadata: dict[str, Any] | None = None,
        suffix: str = ".bin",
    ) -> CacheEntry:
        """Stores `payload` under `key`, with `metadata`; replaces any entry there.

        Parameters
        ----------
        key : str
            From :func:`cache_key`.
        payload : bytes
            The compiled code.
        metadata : dict, optional
            JSON-serializable facts to keep with it.
        suffix : str, optional
            The payload file's suffix: ``".so"`` for a shared library.

        Returns
        -------
        CacheEntry
            The stored entry, as :meth:`get` will return it.
        """
        folder = self._folder()
        _check_key(key)
        if not _SUFFIX.fullmatch(suffix):
            raise ValueError(
                f"a cache file suffix is a dot and 1 to 8 letters or digits, not {suffix!r}"
            )
        metadata = json.loads(json.dumps(metadata or {}))  # as get() will read it back
        digest = hashlib.sha256(payload).hexdigest()
        payload_path = folder / f"{key}-{digest[:16]}{suffix}"
        record = {"format": FORMAT, "sha256": digest, "size": len(payload), "suffix": suffix}
        try:
            # The payload first: a record is never in place before what it names.
            _write_atomically(payload_path, payload)
            _write_atomically(
                folder / f"{key}.json", json.dumps({**record, "metadata": metadata}).encode()
            )
        except OSError as error:  # a folder that exists but cannot be written
            if self.directory != self.requested:
                raise  # the temporary folder failed too: nothing left to try
            self._unwritable(error)
            return self.put(key, payload, metadata, suffix)
        return CacheEntry(payload, payload_path, metadata)

    def stats(self) -> CacheStats:
        """The entries and bytes in the folder, and this process's hits and misses."""
        files = self._own_files()
        entries = sum(1 for f in files if f.name.endswith(".json"))
        size = 0
        for file in files:
            with contextlib.suppress(FileNotFoundError):  # another process may remove it
                size += file.stat().st_size
        return CacheStats(entries, size, self._hits, self._misses)

    def clear(self) -> None:
        """Removes every entry (only the files this cache writes; the folder stays)."""
        for file in self._own_files():
            _remove(file)

    def _read(self, key: str) -> CacheEntry | None:
        folder = self._folder()
        _check_key(key)
        record_path = folder / f"{key}.json"
        try:
            record = json.loads(record_path.read_bytes())
            digest, size, suffix = record["sha256"], record["size"], record["suffix"]
            metadata = record["metadata"]
            if record["format"] != FORMAT or not _KEY.fullmatch(digest):
                raise ValueError("a record of another format")
            if not _SUFFIX.fullmatch(suffix) or not isinstance(metadata, dict):
                raise ValueError("a malformed record")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            _remove(record_path)  # truncated, tampered with or from another format
            return None
        payload_path = folder / f"{key}-{digest[:16]}{suffix}"
        try:
            payload = payload_path.read_bytes()
        except OSError:
            _remove(record_path)
            return None
        if len(payload) != size or hashlib.sha256(payload).hexdigest() != digest:
            _remove(record_path)
            _remove(payload_path)
            return None
        # The host backend loads the library from payload_path after this
        # check. Only this user can write into the folder (_folder checks
        # that), so the file cannot change between the check and the load
        # unless the user changes it themselves.
        return CacheEntry(payload, payload_path, metadata)

    def _folder(self) -> Path:
        """The cache folder, created if missing, after checking that it is private."""
        try:
            _make_folders(self.directory)
        except OSError as error:
            self._unwritable(error)
        _check_private(self.directory)
        return self.directory

    def _unwritable(self, error: OSError) -> None:
        """The requested folder cannot be created or written: falls back to a
        temporary folder with a warning, or raises an error that says how to
        move the cache."""
        reason = error.strerror or str(error)
        if not self._fallback:
            message = (
                f"gpuvec cannot create or write its kernel cache folder {self.requested} "
                f"({reason}). Point GPUVEC_CACHE_DIR at a folder you can write."
            )
            details = (message,) if error.errno is None else (error.errno, message)
            raise type(error)(*details) from error
        # mkdtemp makes it private (mode 0700) and owned by this user.
        self.directory = Path(tempfile.mkdtemp(prefix="gpuvec-kernels-")).absolute()
        atexit.register(shutil.rmtree, self.directory, ignore_errors=True)
        warnings.warn(
            f"gpuvec cannot create or write its kernel cache folder {self.requested} "
            f"({reason}); this process caches compiled kernels in {self.directory} instead, "
            f"which is removed when it exits. To keep them between runs, point "
            f"GPUVEC_CACHE_DIR at a folder you can write.",
            RuntimeWarning,
            stacklevel=2,
        )

    def _own_files(self) -> list[Path]:
        folder = self._folder()
        return [f for f in folder.iterdir() if _OWN_FILE.fullmatch(f.name) and f.is_file()]


_ELSEWHERE = "Point GPUVEC_CACHE_DIR at a folder of your own (gpuvec creates it, private)."


def _current_uid() -> int:
    """The user the cache must belong to (a function, so that tests can pretend otherwise)."""
    return os.geteuid()


def _make_folders(directory: Path) -> None:
    """Creates `directory` and its missing parents, each with mode 0700.

    One by one, since ``os.makedirs`` gives the parents it creates the
    default mode, and a new ``~/.cache`` should be private too.
    """
    missing = []
    folder = directory
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process was first
            os.mkdir(folder, 0o700)


def _check_private(directory: Path) -> None:
    """Raises PermissionError unless only the current user can write into `directory`.

    The folder itself is checked (a symbolic link to it too): its parents
    may be shared, like /tmp, which is safe as long as nobody else can
    replace the folder's contents.
    """
    uid = _current_uid()
    link = os.lstat(directory)
    if stat.S_ISLNK(link.st_mode) and link.st_uid != uid:
        _refuse(directory, "is a symbolic link owned by another user", _ELSEWHERE)
    target = os.stat(directory)
    if not stat.S_ISDIR(target.st_mode):
        raise NotADirectoryError(
            f"the kernel cache folder {directory} is not a folder; "
            "point GPUVEC_CACHE_DIR at a folder of your own"
        )
    if target.st_uid != uid:
        _refuse(directory, f"belongs to another user (uid {target.st_uid})", _ELSEWHERE)
    if target.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = "its group and other users" if target.st_mode & stat.S_IWOTH else "its group"
        mode = stat.S_IMODE(target.st_mode)
        fix = f"Run chmod go-w {directory}, or point GPUVEC_CACHE_DIR at a folder of your own."
        _refuse(directory, f"may be written by {who} (mode {mode:o})", fix)


def _refuse(directory: Path, reason: str, fix: str) -> None:
    raise PermissionError(
        f"gpuvec will not use the kernel cache folder {directory}: it {reason}. It holds "
        "compiled code that gpuvec loads and runs, so nobody else may write into it. " + fix
    )


def _write_atomically(path: Path, data: bytes) -> None:
    """Writes `path` so that no reader ever sees part of it (temporary file, fsync, rename)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        _remove(Path(temporary))
        raise


def _remove(path: Path) -> None:
    # Best effort: an entry that cannot be removed is still never returned.
    with contextlib.suppress(OSError):
        path.unlink()


def _check_key(key: str) -> None:
    # A key names files: anything but a hash could reach outside the folder.
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"a cache key is 64 hexadecimal digits (from cache_key), not {key!r}")


def _bytes_as_hash(value: Any) -> str:
    """JSON for what json cannot write itself: bytes (by their hash), paths."""
    if isinstance(value, bytes | bytearray | memoryview):
        return "sha256:" + hashlib.sha256(value).hexdigest()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(
        f"cache_key takes str, numbers, bytes and lists of them, not {type(value).__name__}"
    )


@functools.cache
def _gpuvec_version() -> str:
    try:
        return importlib.metadata.version("gpuvec")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "unknown"
