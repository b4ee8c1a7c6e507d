"""Many short-lived streams, each used once by a reduction, leave no device memory behind.

A reduction may keep scratch memory (partial sums, staged inputs, result
slots) per stream. Streams that come and go, as a framework's do, must not
leave that scratch behind, in gpuvec's pool or outside it: after 10^4 of them
the pool's usage is back within a few MB of where it started, and the
device's free memory within a pool chunk or two. gpuvec keeps scratch only
for its own streams, which it frees as it destroys them; another library's
stream (CuPy's, PyTorch's) gets the call's own.
"""

import gc

import numpy as np
import pytest
from conftest import random_array
from tolerances import assert_reduction_close

import gpuvec

N_STREAMS = 10_000
SLACK = 4 << 20  # bytes: a few MB of in-use memory may move, never 10^4 blocks' worth
# The pool reserves memory in chunks (32 MiB on current drivers): a chunk or
# two of growth, never the 10^4 scratch buffers.
RESERVE_SLACK = 64 << 20


def cuda_only(backend):
    if backend != "cuda":
        pytest.skip("gpuvec's device memory pool exists on the cuda backend only")


def settled_usage():
    """The pool's usage (in use, reserved) and the device's free memory, once
    nothing is queued and dropped arrays are gone."""
    gc.collect()
    gpuvec.synchronize()
    info = gpuvec.memory_info()
    return info["in_use"], info["in_use"] + info["cached"], info["device_free"]


def reduce_once_on_each_of_many_streams(rng, new_stream, as_gpuvec_stream):
    """Runs one reduction on each of N_STREAMS fresh streams, dropped right after."""
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
        result = reduce(as_gpuvec_stream(stream))
        if check:
            values = result.to_host() if isinstance(result, gpuvec.DeviceArray) else result
            assert_reduction_close(name, values, x, np.float32, axis)

    for i in range(len(reductions)):  # first uses may set up state that lives on by design
        run(i, check=True)
    in_use, reserved, free = settled_usage()
    for i in range(N_STREAMS):
        run(i, check=i % 997 == 0)
    after_in_use, after_reserved, after_free = settled_usage()
    assert after_in_use - in_use <= SLACK, (in_use, after_in_use)
    assert after_reserved - reserved <= RESERVE_SLACK, (reserved, after_reserved)
    # scratch outside the pool (32 KB a stream: 320 MB for 10^4) would show here
    assert free - after_free <= RESERVE_SLACK, (free, after_free)
    np.testing.assert_array_equal(d.to_host(), x)


def test_short_lived_gpuvec_streams_do_not_leak_scratch(backend, rng):
    cuda_only(backend)
    reduce_once_on_each_of_many_streams(rng, gpuvec.Stream, lambda stream: stream)


def test_short_lived_cupy_streams_do_not_leak_scratch(backend, rng):
    cuda_only(backend)
    cp = pytest.importorskip("cupy")
    reduce_once_on_each_of_many_streams(
        rng, lambda: cp.cuda.Stream(non_blocking=True), lambda stream: stream
    )


def test_short_lived_torch_streams_do_not_leak_scratch(backend, rng):
    cuda_only(backend)
    torch = pytest.importorskip("torch")
    reduce_once_on_each_of_many_streams(rng, torch.cuda.Stream, lambda stream: stream)
