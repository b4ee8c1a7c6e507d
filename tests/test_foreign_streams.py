"""Many short-lived streams, each used once by a reduction, leave no device memory behind.

A reduction may keep scratch memory (partial sums, staged inputs, result
slots) per stream. Streams that come and go, as a framework's do, must not
leave that scratch behind: after 10^4 of them the memory this process holds
is back within a few MB of where it started. gpuvec keeps scratch only for
its own streams, which it frees as it destroys them; another library's
stream (CuPy's, PyTorch's) gets the call's own.

What the process holds is read from the allocators' own counters: gpuvec's
(:func:`gpuvec.memory_info`'s ``in_use`` and ``cached``, which count its
per-stream scratch too) and, where the test makes CuPy's or PyTorch's
streams, that library's. The device's free memory would not do: other
processes (``pytest -n``'s workers among them) change it meanwhile.
"""

import gc

import numpy as np
import pytest
from conftest import random_array
from tolerances import assert_reduction_close

import gpuvec

N_STREAMS = 10_000
SLACK = 4 << 20  # bytes: a few MB of in-use memory may move, never 10^4 blocks' worth
# Pools reserve memory in chunks (32 MiB for CUDA's on current drivers): a
# chunk or two of growth, never the 10^4 scratch buffers (32 KB each: 320 MB).
RESERVE_SLACK = 64 << 20


def cuda_only(backend):
    if backend != "cuda":
        pytest.skip("gpuvec's device memory pool exists on the cuda backend only")


def settled_usage(counters):
    """What this process holds, once nothing is queued and dropped arrays are
    gone: {name: (bytes, how much it may grow)}, for gpuvec's pool and each
    of `counters` ({name: (function giving bytes, how much it may grow)})."""
    gc.collect()
    gpuvec.synchronize()  # the whole device: other libraries' streams too
    info = gpuvec.memory_info()
    usage = {
        "gpuvec in use": (info["in_use"], SLACK),
        "gpuvec held": (info["in_use"] + info["cached"], RESERVE_SLACK),
    }
    usage.update({name: (read(), slack) for name, (read, slack) in counters.items()})
    return usage


def assert_nothing_leaked(before, after):
    grown = {name: after[name][0] - used for name, (used, _) in before.items()}
    leaks = {name: growth for name, growth in grown.items() if growth > before[name][1]}
    assert not leaks, f"bytes gained after {N_STREAMS} streams: {leaks} (before: {before})"


def reduce_once_on_each_of_many_streams(rng, new_stream, counters=None):
    """Runs one reduction on each of N_STREAMS fresh streams, dropped right
    after, and checks that the memory counted by gpuvec and by `counters`
    (see settled_usage) did not grow."""
    counters = counters or {}
    x = random_array(rng, (33, 257), np.float32)
    d = gpuvec.to_device(x)
    reductions = [
        ("sum", lambda s: gpuvec.sum(d, stream=s), None),
        ("sum", lambda s: gpuvec.sum(d, axis=1, stream=s), 1),
        ("max", lambda s: gpuvec.max(x, axis=0, stream=s), 0),  # NumPy input: staged
    ]

    def run(i, check):
        stream = new_stream()
        name, reduce, axis = reductions[i % len(reductions)]
        result = reduce(stream)
        if check:
            values = result.to_host() if isinstance(result, gpuvec.DeviceArray) else result
            assert_reduction_close(name, values, x, np.float32, axis)

    for i in range(len(reductions)):  # first uses may set up state that lives on by design
        run(i, check=True)
    before = settled_usage(counters)
    for i in range(N_STREAMS):
        run(i, check=i % 997 == 0)
    assert_nothing_leaked(before, settled_usage(counters))
    np.testing.assert_array_equal(d.to_host(), x)


def test_short_lived_gpuvec_streams_do_not_leak_scratch(backend, rng):
    cuda_only(backend)
    reduce_once_on_each_of_many_streams(rng, gpuvec.Stream)


def test_short_lived_cupy_streams_do_not_leak_scratch(backend, rng):
    cuda_only(backend)
    cp = pytest.importorskip("cupy")
    pool = cp.get_default_memory_pool()
    reduce_once_on_each_of_many_streams(
        rng,
        lambda: cp.cuda.Stream(non_blocking=True),
        {"CuPy in use": (pool.used_bytes, SLACK), "CuPy held": (pool.total_bytes, RESERVE_SLACK)},
    )


def test_short_lived_torch_streams_do_not_leak_scratch(backend, rng):
    cuda_only(backend)
    torch = pytest.importorskip("torch")
    reduce_once_on_each_of_many_streams(
        rng,
        torch.cuda.Stream,
        {
            "PyTorch in use": (torch.cuda.memory_allocated, SLACK),
            "PyTorch held": (torch.cuda.memory_reserved, RESERVE_SLACK),
        },
    )
