"""Zero-copy exchange with other array libraries, both ways."""

import numpy as np
import pytest
from conftest import random_array

import gpuvec


def cuda_only(backend):
    if backend != "cuda":
        pytest.skip("device-memory exchange needs the cuda backend")


# -- host backend: NumPy through the array interface and CPU DLPack -------------------------


def test_host_backend_shares_memory_with_numpy(backend, rng):
    if backend != "host":
        pytest.skip("host memory exchange is the host backend's")
    x = random_array(rng, 10, np.float64)
    d = gpuvec.to_device(x)
    shared = np.asarray(d)  # through __array_interface__: no copy
    assert np.shares_memory(shared, d._host)
    shared[0] = 123.0
    assert float(d[0]) == 123.0
    d[1] = -5.0
    assert shared[1] == -5.0
    through_dlpack = np.from_dlpack(d)  # CPU DLPack
    assert np.shares_memory(through_dlpack, shared)
    back = gpuvec.from_dlpack(shared)
    back[2] = 7.0
    assert float(d[2]) == 7.0
    assert not hasattr(d, "__cuda_array_interface__")
    assert d.__dlpack_device__() == (1, 0)


# -- cuda backend ---------------------------------------------------------------------------


def test_cuda_array_interface_export(backend):
    cuda_only(backend)
    d = gpuvec.arange(12.0).reshape(3, 4)[:, ::2]
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3
    assert cai["shape"] == (3, 2)
    assert cai["strides"] == (32, 16)
    assert cai["typestr"] == "<f8"
    assert cai["data"][0] == d._address
    assert d.__dlpack_device__() == (2, 0)
    assert not hasattr(d, "__array_interface__")


def test_cupy_shares_memory_both_ways(backend, rng):
    cuda_only(backend)
    cp = pytest.importorskip("cupy")
    x = random_array(rng, (64, 33), np.float32)
    c = cp.asarray(x)
    d = gpuvec.asarray(c)  # zero-copy through __cuda_array_interface__
    assert d._address == c.data.ptr
    d += 1.0  # write through gpuvec...
    np.testing.assert_array_equal(cp.asnumpy(c), x + 1)  # ...read through CuPy
    c[0, 0] = -7.0  # write through CuPy...
    assert float(d[0, 0]) == -7.0  # ...read through gpuvec
    back = cp.asarray(d)  # CuPy imports gpuvec's array without a copy
    assert back.data.ptr == d._address
    via_dlpack = cp.from_dlpack(d)
    assert via_dlpack.data.ptr == d._address
    strided = gpuvec.asarray(c[::2, ::-3])
    np.testing.assert_array_equal(strided.to_host(), cp.asnumpy(c[::2, ::-3]))
    np.testing.assert_array_equal(gpuvec.add(c, c).to_host(), 2 * cp.asnumpy(c))


def test_pytorch_shares_memory_both_ways(backend, rng):
    cuda_only(backend)
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    x = random_array(rng, 1000, np.float64)
    t = torch.from_numpy(x).cuda()
    d = gpuvec.from_dlpack(t)  # zero-copy through DLPack
    assert d._address == t.data_ptr()
    d *= 2.0
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), 2 * x)
    t.add_(1.0)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(d.to_host(), 2 * x + 1)
    back = torch.from_dlpack(d)
    assert back.data_ptr() == d._address
    back.mul_(0.5)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(d.to_host(), (2 * x + 1) * 0.5)
    transposed = t.view(10, 100).t()  # a strided view, shared through the CUDA array interface
    via_cai = gpuvec.asarray(transposed)
    assert via_cai.strides == (8, 800)
    np.testing.assert_array_equal(via_cai.to_host(), transposed.cpu().numpy())


def test_numba_kernel_runs_on_a_gpuvec_array(backend, rng):
    cuda_only(backend)
    try:
        from numba import cuda

        @cuda.jit
        def triple(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] *= 3.0

        probe = cuda.to_device(np.ones(4, np.float32))
        triple[1, 32](probe)  # Numba itself must work here before it can test gpuvec
    except Exception as exc:  # e.g. a Numba release that does not support this NumPy
        pytest.skip(f"Numba's CUDA target does not work here: {type(exc).__name__}: {exc}")

    x = random_array(rng, 1000, np.float32)
    d = gpuvec.to_device(x)
    triple[(1000 + 127) // 128, 128](d)
    cuda.synchronize()
    np.testing.assert_array_equal(d.to_host(), np.float32(3.0) * x)


def test_integer_and_half_arrays_are_shared_and_complex_refused(backend, rng):
    cuda_only(backend)
    cp = pytest.importorskip("cupy")
    ints = cp.arange(-3, 3, dtype=cp.int32)
    shared = gpuvec.asarray(ints)
    assert shared.dtype == np.int32
    np.testing.assert_array_equal(shared.to_host(), np.arange(-3, 3))
    np.testing.assert_array_equal(gpuvec.add(ints, 1.0).to_host(), np.arange(-3, 3) + 1.0)
    halves = rng.standard_normal(5).astype(np.float16)
    on_gpu = cp.asarray(halves)
    assert gpuvec.asarray(on_gpu).dtype == np.float16
    total = gpuvec.add(on_gpu, 1.0)
    assert total.dtype == np.float16
    np.testing.assert_array_equal(total.to_host(), halves + 1.0)  # float16, as NumPy's
    with pytest.raises(TypeError, match="complex64"):
        gpuvec.asarray(cp.arange(3, dtype=cp.complex64))
