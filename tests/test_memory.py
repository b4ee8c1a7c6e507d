"""The caching allocator: reuse, accounting, release, running out, and the cap."""

import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import gpuvec


def test_memory_info_fields(backend):
    info = gpuvec.memory_info()
    assert set(info) == {"in_use", "cached", "device_free", "device_total"}
    assert 0 < info["device_free"] <= info["device_total"]


def test_allocations_are_counted_and_cached(backend):
    if backend == "host":
        pytest.skip("the host backend allocates through NumPy, without a pool")
    gc.collect()  # arrays of earlier tests caught in reference cycles go now, not mid-test
    gpuvec.synchronize()
    before = gpuvec.memory_info()
    d = gpuvec.empty(1 << 20, np.float32)
    gpuvec.synchronize()
    during = gpuvec.memory_info()
    assert during["in_use"] >= before["in_use"] + d.nbytes
    del d
    gpuvec.synchronize()
    after = gpuvec.memory_info()
    assert after["in_use"] == before["in_use"]
    assert after["cached"] >= 1 << 22  # kept for reuse
    gpuvec.free_cached()
    assert gpuvec.memory_info()["cached"] == 0


def test_many_allocate_free_cycles_return_to_the_start(backend):
    gpuvec.synchronize()
    start = gpuvec.memory_info()
    for i in range(100_000):
        d = gpuvec.empty(1 + i % 4096, np.float32)
        del d
    gpuvec.synchronize()
    end = gpuvec.memory_info()
    assert end["in_use"] == start["in_use"]
    # The pool reserves memory in chunks (32 MiB on current drivers): it may
    # have grown by a chunk or two, never by the 10^5 blocks (about 800 MB).
    growth = end["in_use"] + end["cached"] - start["in_use"] - start["cached"]
    assert growth <= 64 << 20


def test_out_of_memory_names_the_size(backend):
    huge = 1 << 47  # float64 elements: 1 PiB
    with pytest.raises(gpuvec.OutOfMemoryError, match=str(huge * 8)) as info:
        gpuvec.empty(huge)
    assert isinstance(info.value, MemoryError)
    # Nothing leaked and the library still works.
    assert float(gpuvec.sum(gpuvec.ones(10))) == 10.0


@pytest.fixture
def restore_memory_limit():
    """Puts back the cap that was set before the test (GPUVEC_MEMORY_LIMIT's, say)."""
    before = gpuvec.memory_limit()
    yield
    gpuvec.set_memory_limit(before)


@pytest.mark.parametrize(
    ("text", "nbytes"),
    [("4 GiB", 4 << 30), ("500MB", 500 * 10**6), ("1.5 kib", 1536), ("12", 12), (" 3 B ", 3)],
)
def test_memory_limit_reads_sizes_with_units(text, nbytes, restore_memory_limit):
    gpuvec.set_memory_limit(text)
    assert gpuvec.memory_limit() == nbytes


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (-1, ValueError),
        ("4 parsecs", ValueError),
        ("GiB", ValueError),
        (1.5, TypeError),
        (True, TypeError),
    ],
)
def test_memory_limit_refuses_what_is_not_a_size(value, error, restore_memory_limit):
    with pytest.raises(error, match="nbytes"):
        gpuvec.set_memory_limit(value)


def test_memory_limit_none_and_zero_remove_the_cap(restore_memory_limit):
    gpuvec.set_memory_limit(1 << 30)
    gpuvec.set_memory_limit(0)
    assert gpuvec.memory_limit() is None


def test_memory_limit_refuses_an_allocation_past_it(backend, restore_memory_limit):
    if backend == "host":
        pytest.skip("the host backend allocates through NumPy, which the cap does not reach")
    gc.collect()
    in_use = gpuvec.memory_info()["in_use"]
    gpuvec.set_memory_limit(in_use + (4 << 20))
    kept = gpuvec.empty(1 << 19)  # 4 MiB of float64: exactly up to the cap
    with pytest.raises(gpuvec.OutOfMemoryError, match="memory limit") as info:
        gpuvec.empty(1)
    assert isinstance(info.value, MemoryError)
    del kept
    # Freed memory counts no more, also when it comes back from the cache.
    again = gpuvec.ones(1 << 19)
    assert float(gpuvec.sum(again)) == 1 << 19
    gpuvec.set_memory_limit(None)
    assert gpuvec.empty(1 << 20).size == 1 << 20


def test_memory_limit_comes_from_the_environment():
    code = "import gpuvec; print(gpuvec.memory_limit())"
    env = dict(os.environ, GPUVEC_MEMORY_LIMIT="64 MiB")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(64 << 20)
