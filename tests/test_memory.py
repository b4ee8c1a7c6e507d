"""The caching allocator: reuse, accounting, release, and running out."""

import gc

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
