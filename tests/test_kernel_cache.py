"""The on-disk kernel cache: a private folder, verified entries, atomic writes."""

import json
import os
import stat
import subprocess
import sys

import pytest

from gpuvec.kernels import _cache
from gpuvec.kernels._cache import KernelCache, cache_dir, cache_key

KEY = cache_key(source="__global__ void k(float* a) { a[0] = 1; }", backend="host")


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


# --- where the cache lives --------------------------------------------------------------------


def test_folder_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("GPUVEC_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "gpuvec" / "kernels"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "gpuvec" / "kernels"
    monkeypatch.setenv("GPUVEC_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"


def test_folder_and_missing_parents_are_created_private(monkeypatch, tmp_path):
    monkeypatch.delenv("GPUVEC_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "new-cache"))
    cache = KernelCache()
    assert cache.directory == tmp_path / "new-cache" / "gpuvec" / "kernels"
    for folder in (tmp_path / "new-cache", tmp_path / "new-cache" / "gpuvec", cache.directory):
        assert mode_of(folder) == 0o700


def test_existing_private_folder_is_used(tmp_path):
    folder = tmp_path / "kernels"
    folder.mkdir(mode=0o755)  # readable by others is fine: only writing matters
    assert KernelCache(folder).get(KEY) is None


@pytest.mark.parametrize(("mode", "who"), [(0o770, "its group"), (0o707, "other users")])
def test_folder_writable_by_others_is_refused(tmp_path, mode, who):
    folder = tmp_path / "kernels"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(PermissionError) as raised:
        KernelCache(folder)
    message = str(raised.value)
    assert str(folder) in message
    assert who in message
    assert "loads and runs" in message  # why
    assert f"chmod go-w {folder}" in message  # what to do
    assert "GPUVEC_CACHE_DIR" in message


def test_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "kernels"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(_cache, "_current_uid", lambda: os.geteuid() + 1)
    with pytest.raises(PermissionError, match=r"belongs to another user.*GPUVEC_CACHE_DIR"):
        KernelCache(folder)


def test_symlink_of_another_user_is_refused(tmp_path, monkeypatch):
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(target)
    assert KernelCache(link).get(KEY) is None  # one's own link to one's own folder is fine
    real_lstat = os.lstat

    def lstat_owned_by_someone_else(path, *args, **kwargs):
        result = real_lstat(path, *args, **kwargs)
        if os.fspath(path) == os.fspath(link):
            fields = list(result)
            fields[stat.ST_UID] = os.geteuid() + 1
            return os.stat_result(fields)
        return result

    monkeypatch.setattr(_cache.os, "lstat", lstat_owned_by_someone_else)
    with pytest.raises(PermissionError, match="symbolic link owned by another user"):
        KernelCache(link)


def test_a_file_in_place_of_the_folder(tmp_path):
    path = tmp_path / "kernels"
    path.write_text("not a folder")
    with pytest.raises(NotADirectoryError, match="GPUVEC_CACHE_DIR"):
        KernelCache(path)


# --- keys ---------------------------------------------------------------------------------------


def test_key_depends_on_every_part():
    parts = dict(
        source="__global__ void k() {}",
        options=["-DN=4"],
        names=["k"],
        architecture=90,
        compiler="nvrtc 13.0",
        backend="cuda",
        checked=False,
        header=b"#pragma once",
    )
    key = cache_key(**parts)
    assert len(key) == 64
    assert (
        cache_key(**dict(reversed(parts.items()))) == key
    )  # the order of keywords does not count
    for name, other in [
        ("source", "__global__ void k() { }"),
        ("options", ["-DN=5"]),
        ("names", ["k", "j"]),
        ("architecture", 89),
        ("compiler", "nvrtc 12.9"),
        ("backend", "host"),
        ("checked", True),
        ("header", b"#pragma  once"),
    ]:
        assert cache_key(**{**parts, name: other}) != key, name


def test_key_refuses_values_without_a_stable_text():
    with pytest.raises(TypeError, match="cache_key takes"):
        cache_key(source=object())


def test_key_includes_gpuvec_version(monkeypatch):
    key = cache_key(source="x")
    _cache._gpuvec_version.cache_clear()
    monkeypatch.setattr(_cache.importlib.metadata, "version", lambda name: "999.0")
    try:
        assert cache_key(source="x") != key
    finally:
        _cache._gpuvec_version.cache_clear()


# --- entries ----------------------------------------------------------------------------------


def test_put_then_get(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    assert cache.get(KEY) is None
    stored = cache.put(KEY, b"\x7fELF library", {"lowered": ("_Z1kPf",), "is_cubin": True}, ".so")
    entry = cache.get(KEY)
    assert entry == stored
    assert entry.payload == b"\x7fELF library"
    assert entry.metadata == {"lowered": ["_Z1kPf"], "is_cubin": True}  # through JSON
    assert entry.path.parent == cache.directory
    assert entry.path.suffix == ".so"
    assert entry.path.read_bytes() == b"\x7fELF library"
    assert mode_of(entry.path) == 0o600


def test_put_replaces_an_entry(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    cache.put(KEY, b"first")
    cache.put(KEY, b"second", {"n": 2})
    assert cache.get(KEY).payload == b"second"
    assert cache.get(KEY).metadata == {"n": 2}


def test_stats_count_this_process_hits_and_misses(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    assert cache.stats() == _cache.CacheStats(entries=0, bytes=0, hits=0, misses=0)
    cache.get(KEY)
    cache.put(KEY, b"12345")
    cache.get(KEY)
    cache.get(KEY)
    stats = cache.stats()
    assert (stats.entries, stats.hits, stats.misses) == (1, 2, 1)
    record = next(cache.directory.glob("*.json"))
    assert stats.bytes == 5 + record.stat().st_size


def test_clear_removes_only_the_caches_files(tmp_path):
    folder = tmp_path / "kernels"
    cache = KernelCache(folder)
    cache.put(KEY, b"code")
    (folder / ".tmp-left-by-a-crash").write_bytes(b"part")
    (folder / "notes.txt").write_text("the user's own file")
    cache.clear()
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert cache.get(KEY) is None


def test_keys_must_be_hashes(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        cache.get("../../somewhere")
    with pytest.raises(ValueError, match="suffix"):
        cache.put(KEY, b"x", suffix="/../x")


# --- damaged entries ----------------------------------------------------------------------------


def test_tampered_payload_is_a_miss_and_is_removed(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    entry = cache.put(KEY, b"the compiled code", suffix=".so")
    entry.path.write_bytes(b"the planted code!")  # same size, other bytes
    assert cache.get(KEY) is None
    assert list(cache.directory.iterdir()) == []
    assert cache.stats().misses == 1


def test_planted_entry_with_a_wrong_hash_is_not_returned(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    payload = b"planted"
    wrong = "0" * 64
    (cache.directory / f"{KEY}-{wrong[:16]}.so").write_bytes(payload)
    record = {"format": 1, "sha256": wrong, "size": len(payload), "suffix": ".so", "metadata": {}}
    (cache.directory / f"{KEY}.json").write_text(json.dumps(record))
    assert cache.get(KEY) is None
    assert list(cache.directory.iterdir()) == []


def test_truncated_record_is_a_miss_and_is_removed(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    cache.put(KEY, b"code", {"lowered": ["_Z1kPf"]})
    record = cache.directory / f"{KEY}.json"
    record.write_bytes(record.read_bytes()[:20])
    assert cache.get(KEY) is None
    assert not record.exists()
    cache.put(KEY, b"code", {"lowered": ["_Z1kPf"]})  # the caller compiles again
    assert cache.get(KEY).payload == b"code"


@pytest.mark.parametrize(
    "record",
    [
        [],
        {"format": 1},
        {"format": 2, "sha256": "0" * 64, "size": 1, "suffix": ".so", "metadata": {}},
        {"format": 1, "sha256": "../x", "size": 1, "suffix": ".so", "metadata": {}},
        {"format": 1, "sha256": "0" * 64, "size": 1, "suffix": "/x", "metadata": {}},
        {"format": 1, "sha256": "0" * 64, "size": 1, "suffix": ".so", "metadata": []},
    ],
)
def test_malformed_records_are_misses(tmp_path, record):
    cache = KernelCache(tmp_path / "kernels")
    path = cache.directory / f"{KEY}.json"
    path.write_text(json.dumps(record))
    assert cache.get(KEY) is None
    assert not path.exists()


def test_missing_payload_is_a_miss(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    entry = cache.put(KEY, b"code")
    entry.path.unlink()
    assert cache.get(KEY) is None
    assert list(cache.directory.iterdir()) == []


def test_folder_made_unsafe_later_is_refused(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    cache.put(KEY, b"code")
    cache.directory.chmod(0o777)
    with pytest.raises(PermissionError):
        cache.get(KEY)


def test_folder_removed_later_is_made_again(tmp_path):
    cache = KernelCache(tmp_path / "kernels")
    cache.directory.rmdir()
    assert cache.get(KEY) is None
    assert mode_of(cache.directory) == 0o700


# --- concurrent processes -----------------------------------------------------------------------

PAYLOAD_SIZE = 1 << 20


# A writer process: keeps storing its own payload under KEY (a compile's
# output). Run with subprocess rather than multiprocessing, whose "spawn"
# needs a __main__ module that IPython's tests replace.
WRITER = """
import sys
from gpuvec.kernels._cache import KernelCache
folder, writer, rounds, key, size = sys.argv[1:]
cache = KernelCache(folder)
for _ in range(int(rounds)):
    cache.put(key, bytes([int(writer)]) * int(size), {"writer": int(writer)}, ".so")
"""


def test_concurrent_writers_never_show_a_partial_entry(tmp_path):
    folder = tmp_path / "kernels"
    reader = KernelCache(folder)
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(folder), str(w), "20", KEY, str(PAYLOAD_SIZE)]
        )
        for w in (1, 2, 3)
    ]
    while True:
        writing = any(process.poll() is None for process in writers)
        entry = reader.get(KEY)
        if entry is not None:
            # A whole payload, and the metadata written with it.
            assert entry.payload == bytes([entry.metadata["writer"]]) * PAYLOAD_SIZE
        if not writing:
            break
    for process in writers:
        assert process.wait() == 0
    assert entry is not None  # read after the last write
    assert not list(folder.glob(".tmp-*"))  # every temporary file was renamed or removed
