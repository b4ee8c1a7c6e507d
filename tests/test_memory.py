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


def run_python(code, **env):
    """Runs code in a fresh interpreter with ``env`` added to the environment."""
    environment = {k: v for k, v in os.environ.items() if k != "GPUVEC_MEMORY_LIMIT"}
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_memory_limit_set_in_the_environment_after_import_applies(backend):
    # As a Dask Nanny's env= sets it: after the worker has imported gpuvec.
    code = (
        "import os, gpuvec\n"
        "os.environ['GPUVEC_MEMORY_LIMIT'] = '3 MiB'\n"
        "kept = gpuvec.zeros(1000)\n"  # the first allocation reads it
        "print(gpuvec.memory_limit())\n"
        "try:\n"
        "    gpuvec.empty(1 << 19)\n"  # 4 MiB of float64
        "except MemoryError as error:\n"
        "    print(type(error).__name__, 'memory limit' in str(error))\n"
        "else:\n"
        "    print('allocated')\n"
    )
    result = run_python(code, GPUVEC_BACKEND=backend)
    assert result.returncode == 0, result.stderr
    limit, allocation = result.stdout.splitlines()
    assert limit == str(3 << 20)
    if backend == "cuda":
        assert allocation == "OutOfMemoryError True"
    else:  # NumPy allocates on the host: the cap is reported, and has no effect
        assert allocation == "allocated"


def test_set_memory_limit_overrides_the_environment(backend):
    code = (
        "import os, gpuvec\n"
        "os.environ['GPUVEC_MEMORY_LIMIT'] = '1 MiB'\n"
        "gpuvec.set_memory_limit('64 MiB')\n"
        "kept = gpuvec.empty(1 << 19)\n"  # 4 MiB: over the environment's cap only
        "print(gpuvec.memory_limit())\n"
        "gpuvec.set_memory_limit(None)\n"
        "print(gpuvec.memory_limit())\n"
    )
    result = run_python(code, GPUVEC_BACKEND=backend, GPUVEC_MEMORY_LIMIT="2 MiB")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(64 << 20), "None"]


def test_memory_limit_in_the_environment_is_read_once_on_the_device(backend):
    code = (
        "import os, gpuvec\n"
        "print(gpuvec.memory_limit())\n"  # not read yet: as the environment has it now
        "kept = gpuvec.zeros(10)\n"
        "os.environ['GPUVEC_MEMORY_LIMIT'] = '5 MiB'\n"
        "print(gpuvec.memory_limit())\n"
    )
    result = run_python(code, GPUVEC_BACKEND=backend, GPUVEC_MEMORY_LIMIT="7 MiB")
    assert result.returncode == 0, result.stderr
    # On the device the first allocation read it; the host backend allocates
    # no device memory, and reports the environment's cap as it is.
    later = 7 << 20 if backend == "cuda" else 5 << 20
    assert result.stdout.split() == [str(7 << 20), str(later)]


def test_memory_limit_in_the_environment_that_is_no_size_is_named(backend):
    code = (
        "import gpuvec\n"  # the import works: nothing is read yet
        "try:\n"
        "    gpuvec.memory_limit()\n"
        "except ValueError as error:\n"
        "    print(error)\n"
    )
    result = run_python(code, GPUVEC_BACKEND=backend, GPUVEC_MEMORY_LIMIT="lots")
    assert result.returncode == 0, result.stderr
    expected = "GPUVEC_MEMORY_LIMIT='lots' is not a size such as 4 GiB or 500 MB"
    assert result.stdout.strip() == expected
