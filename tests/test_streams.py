"""Streams and events: ordering, the current stream, timing."""

import numpy as np
import pytest
from conftest import random_array

import gpuvec


def host(x):
    return x.to_host() if isinstance(x, gpuvec.DeviceArray) else x


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


class ProtocolStream:
    """Another library's stream as the CUDA stream protocol shows it: here the
    default stream (handle 0), which exists on both backends."""

    def __cuda_stream__(self):
        return (0, 0)


def test_another_librarys_stream_by_the_protocol(backend, rng):
    x = random_array(rng, 1001, np.float64)
    d = gpuvec.to_device(x)
    foreign = ProtocolStream()
    np.testing.assert_array_equal(host(gpuvec.scale(d, 3.0, stream=foreign)), 3.0 * x)
    assert float(gpuvec.sum(d, stream=foreign)) == pytest.approx(np.sum(x), rel=1e-12)
    s = gpuvec.Stream(foreign)
    assert s.handle == 0
    assert s._external is foreign  # kept alive, not destroyed
    assert "ProtocolStream" in repr(s)
    with s:
        assert gpuvec.current_stream() is s
        np.testing.assert_array_equal(host(d + 1.0), x + 1.0)
    s.synchronize()
    with pytest.raises(TypeError, match=r"another library's stream .* got object"):
        gpuvec.Stream(object())


def test_a_torch_stream_orders_gpuvec_after_torch(backend):
    # PyTorch fills a tensor on its stream after a long sleep; gpuvec, on the
    # same stream, must read the filled values, not what was there before.
    if backend != "cuda":
        pytest.skip("PyTorch's streams need a GPU")
    torch = pytest.importorskip("torch")
    t = torch.zeros(1 << 20, dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)  # about 20-50 ms of GPU time
        t.fill_(2.0)
    d = gpuvec.asarray(t)  # zero-copy
    total = gpuvec.sum(d, stream=s)
    doubled = gpuvec.multiply(d, 2.0, stream=s)
    assert doubled._stream.handle == s.cuda_stream
    assert float(total) == 2.0 * t.numel()
    np.testing.assert_array_equal(doubled.to_host(), np.full(t.numel(), 4.0, np.float32))


def test_a_cupy_stream_orders_gpuvec_after_cupy(backend):
    if backend != "cuda":
        pytest.skip("CuPy's streams need a GPU")
    cp = pytest.importorskip("cupy")
    late_fill = cp.RawKernel(
        r"""
        extern "C" __global__ void late_fill(float* a, int n, long long cycles) {
          const long long start = clock64();
          while (clock64() - start < cycles) {}
          for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
            a[i] = 3.0f;
        }""",
        "late_fill",
    )
    a = cp.zeros(1 << 20, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    s = cp.cuda.Stream(non_blocking=True)
    with s:  # 5 * 10^7 cycles: tens of milliseconds
        late_fill((64,), (256,), (a, np.int32(a.size), np.int64(50_000_000)))
    result = gpuvec.multiply(gpuvec.asarray(a), 2.0, stream=s)
    assert result._stream.handle == s.ptr
    np.testing.assert_array_equal(result.to_host(), np.full(a.size, 6.0, np.float32))


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
