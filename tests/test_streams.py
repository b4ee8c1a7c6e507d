"""Streams and events: ordering, the current stream, timing."""

import numpy as np
import pytest
from conftest import random_array

import gpuvec


def test_with_stream_sets_the_current_stream(backend):
    s = gpuvec.Stream()
    assert gpuvec.current_stream() is None
    with s:
        assert gpuvec.current_stream() is s
        with gpuvec.Stream() as inner:
            assert gpuvec.current_stream() is inner
        assert gpuvec.current_stream() is s
    assert gpuvec.current_stream() is None


def test_ops_on_a_stream_are_ordered(backend, rng):
    x = random_array(rng, 1 << 20, np.float32)
    s = gpuvec.Stream()
    d = gpuvec.to_device(x, stream=s)
    with s:
        for _ in range(10):
            d = gpuvec.axpy(0.5, d, d)  # each step reads the previous one
        total = gpuvec.sum(d)
    s.synchronize()
    expected = x.astype(np.float32)
    for _ in range(10):
        expected = np.float32(0.5) * expected + expected
    np.testing.assert_array_equal(d.to_host(), expected)
    assert float(total) == pytest.approx(float(expected.astype(np.float64).sum()), rel=1e-5)


def test_explicit_stream_argument(backend, rng):
    x = random_array(rng, 1000, np.float64)
    s = gpuvec.Stream()
    d = gpuvec.to_device(x)
    result = gpuvec.scale(d, 3.0, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(result.to_host(), 3.0 * x)
    with pytest.raises(TypeError, match=r"stream must be a gpuvec\.Stream"):
        gpuvec.scale(d, 3.0, stream=7)


def test_memory_used_on_another_stream_is_freed_after_it(backend, rng):
    # An array allocated on the default stream, read by a long chain of work on
    # another stream, then dropped: its memory must not be reused (and
    # overwritten) before that work has read it.
    x = random_array(rng, 1 << 22, np.float32)
    s = gpuvec.Stream()
    d = gpuvec.to_device(x)
    with s:
        results = [gpuvec.scale(d, 2.0) for _ in range(20)]
    del d
    overwrite = [gpuvec.full(1 << 22, -1.0, np.float32) for _ in range(4)]
    s.synchronize()
    for r in results:
        np.testing.assert_array_equal(r.to_host(), np.float32(2.0) * x)
    del overwrite


def test_results_of_a_stream_come_back_without_a_synchronize(backend, rng):
    # to_host() of an array written on a stream waits for that stream's work,
    # not the default stream's: a reduction's one value (in a result slot)
    # and an elementwise result alike, read right after the calls are queued.
    x = random_array(rng, (1 << 22) + 3, np.float32)
    d = gpuvec.to_device(x)
    expected = np.float32(2.0) * x
    for _ in range(5):
        s = gpuvec.Stream()
        doubled = gpuvec.scale(d, 2.0, stream=s)
        total = gpuvec.sum(doubled, stream=s)
        np.testing.assert_array_equal(doubled.to_host(), expected)
        np.testing.assert_allclose(
            float(total.to_host()), expected.sum(dtype=np.float64), rtol=1e-5
        )


def test_events_time_work(backend):
    x = gpuvec.ones(1 << 20)
    start, end = gpuvec.Event(), gpuvec.Event()
    start.record()
    for _ in range(5):
        x = x + 1.0
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert ms > 0
    assert ms < 10_000
    assert float(x[0]) == 6.0


def test_events_on_streams(backend):
    s = gpuvec.Stream()
    e = gpuvec.Event()
    with s:
        y = gpuvec.ones(1000) * 4.0
    e.record(s)
    e.synchronize()
    assert float(gpuvec.sum(y)) == 4000.0


def test_unrecorded_event_cannot_time(backend):
    if backend == "cuda":
        pytest.skip("CUDA reports this itself (cudaErrorInvalidResourceHandle)")
    with pytest.raises(ValueError, match="must be recorded"):
        gpuvec.Event().elapsed_time(gpuvec.Event())


def test_synchronize(backend):
    y = gpuvec.ones(10) + 1.0
    gpuvec.synchronize()
    assert float(gpuvec.sum(y)) == 20.0
