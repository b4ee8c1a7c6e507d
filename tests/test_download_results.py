"""Downloads' results: DeviceArray.to_host() and np.asarray(d) of large arrays.

From its third download on, a size's result lives in pinned host memory of
gpuvec's pool (csrc/cuda/pinned_results.hpp), given back when the NumPy array
dies. These tests pin down what a user must not notice: the values, the
layout, that each result is a fresh array of its own, and that a block is
reused only once no array views it.
"""

import gc

import numpy as np
import pytest
from conftest import random_array

import gpuvec

# Sizes over the pool's 1 MiB threshold (and one under it), odd element counts.
SHAPES = [(1 << 17) + 3, (257, 1031), (3, 211, 523), (1000,)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_repeated_downloads_are_exact_fresh_arrays(backend, rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    d = gpuvec.to_device(x)
    results = [d.to_host() for _ in range(3)] + [np.asarray(d)]
    for r in results:
        assert r.shape == x.shape
        assert r.dtype == x.dtype
        assert r.flags.c_contiguous
        assert r.flags.writeable
        np.testing.assert_array_equal(r, x)
    # Each is an array of its own: writing one changes no other, nor the device's.
    results[1][...] = -1
    np.testing.assert_array_equal(results[2], x)
    np.testing.assert_array_equal(d.to_host(), x)


def test_a_dead_result_s_memory_serves_the_next_one(backend, rng):
    first = random_array(rng, 1 << 18, np.float64)
    second = random_array(rng, 1 << 18, np.float64)
    d1, d2 = gpuvec.to_device(first), gpuvec.to_device(second)
    for _ in range(4):  # the first and second downloads of the size, then reuse
        a = d1.to_host()
        view = a[::3]  # outlives `a`: the memory must stay a's
        del a
        gc.collect()
        b = d2.to_host()
        np.testing.assert_array_equal(view, first[::3])
        np.testing.assert_array_equal(b, second)
        del view, b


def test_free_cached_keeps_live_results_intact(backend, rng):
    x = random_array(rng, 1 << 18, np.float32)
    d = gpuvec.to_device(x)
    kept = [d.to_host() for _ in range(3)]
    del kept[1]
    gpuvec.free_cached()
    for r in kept:
        np.testing.assert_array_equal(r, x)
    np.testing.assert_array_equal(d.to_host(), x)


def _bases(array):
    """The objects an array's memory comes from, nearest first."""
    while array is not None:
        yield array
        # NumPy keeps a buffer's exporter behind a memoryview of it.
        array = array.obj if isinstance(array, memoryview) else getattr(array, "base", None)


def test_a_size_downloaded_again_lands_in_pinned_memory(backend, rng):
    if backend == "host":
        pytest.skip("the host backend's DeviceArrays are in host memory: nothing is downloaded")
    d = gpuvec.to_device(random_array(rng, (1 << 18) + 1, np.float64))
    first, second, third = d.to_host(), d.to_host(), d.to_host()
    assert "PinnedHostMemory" in [type(b).__name__ for b in _bases(third)]
    np.testing.assert_array_equal(third, first)
    np.testing.assert_array_equal(second, first)
