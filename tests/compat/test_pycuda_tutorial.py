"""PyCUDA's tutorial, run through gpuvec.compat.pycuda with only its imports changed.

Each test is a step of the tutorial (or a variant of one), on both backends,
checked against NumPy on fresh random data.
"""

import numpy as np
import pytest
from conftest import random_array

import gpuvec
import gpuvec.compat.pycuda.autoinit as autoinit
import gpuvec.compat.pycuda.driver as cuda
import gpuvec.compat.pycuda.gpuarray as gpuarray
from gpuvec.compat.pycuda.compiler import SourceModule

DOUBLIFY = """
  __global__ void doublify(float *a)
  {
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
  }
"""

MULTIPLY_THEM = """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
"""

MULTIPLY_THEM_DOUBLE = MULTIPLY_THEM.replace("float", "double")


def test_doublify_with_mem_alloc_and_memcpy(backend, rng):
    a = random_array(rng, (4, 4), np.float32)
    a_gpu = cuda.mem_alloc(a.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    func = SourceModule(DOUBLIFY).get_function("doublify")
    func(a_gpu, block=(4, 4, 1))
    a_doubled = np.empty_like(a)
    cuda.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, a * 2)


def test_doublify_with_inout(backend, rng):
    a = random_array(rng, (4, 4), np.float32)
    expected = a * 2
    func = SourceModule(DOUBLIFY).get_function("doublify")
    func(cuda.InOut(a), block=(4, 4, 1))
    np.testing.assert_array_equal(a, expected)


def test_doublify_with_gpuarray(backend, rng):
    a = random_array(rng, (4, 4), np.float32)
    a_gpu = gpuarray.to_gpu(a)
    func = SourceModule(DOUBLIFY).get_function("doublify")
    func(a_gpu, block=(4, 4, 1), grid=(1, 1))
    np.testing.assert_array_equal(a_gpu.get(), a * 2)
    func(a_gpu.gpudata, block=(4, 4, 1), grid=(1, 1))  # PyCUDA's other spelling
    np.testing.assert_array_equal(a_gpu.get(), a * 4)


def test_doublify_prepared(backend, rng):
    a = random_array(rng, (4, 4), np.float32)
    a_gpu = gpuarray.to_gpu(a)
    func = SourceModule(DOUBLIFY).get_function("doublify").prepare("P")
    func.prepared_call((1, 1), (4, 4, 1), a_gpu.gpudata)
    np.testing.assert_array_equal(a_gpu.get(), a * 2)


def test_doublify_through_an_address(backend, rng):
    a = random_array(rng, (4, 4), np.float32)
    a_gpu = cuda.to_device(a)
    func = SourceModule(DOUBLIFY).get_function("doublify")
    func(np.intp(int(a_gpu)), block=(4, 4, 1))  # PyCUDA code passes pointers as ints too
    np.testing.assert_array_equal(cuda.from_device_like(a_gpu, a), a * 2)


@pytest.mark.parametrize(
    ("source", "dtype"), [(MULTIPLY_THEM, np.float32), (MULTIPLY_THEM_DOUBLE, np.float64)]
)
def test_multiply_them_with_in_and_out(backend, rng, source, dtype):
    multiply_them = SourceModule(source).get_function("multiply_them")
    a = random_array(rng, 400, dtype)
    b = random_array(rng, 400, dtype)
    dest = np.zeros_like(a)
    multiply_them(cuda.Out(dest), cuda.In(a), cuda.In(b), block=(400, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(dest, a * b)


def test_in_keeps_the_kernels_writes_on_the_device(backend, rng):
    mod = SourceModule("""
    __global__ void consume(float *dest, float *a)
    {
        const int i = threadIdx.x;
        dest[i] = a[i] + 1.0f;
        a[i] = 0.0f;
    }""")
    a = random_array(rng, 64, np.float32)
    original = a.copy()
    dest = np.empty_like(a)
    mod.get_function("consume")(cuda.Out(dest), cuda.In(a), block=(64, 1, 1))
    np.testing.assert_array_equal(a, original)
    np.testing.assert_array_equal(dest, original + np.float32(1))


def test_gpuarray_arithmetic(backend, rng):
    a = random_array(rng, (33, 7), np.float32)
    b = random_array(rng, (33, 7), np.float32)
    a_gpu, b_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    np.testing.assert_array_equal((2 * a_gpu).get(), 2 * a)
    np.testing.assert_array_equal((a_gpu + b_gpu).get(), a + b)
    np.testing.assert_array_equal((a_gpu - b_gpu).get(), a - b)
    np.testing.assert_array_equal((a_gpu * b_gpu).get(), a * b)
    np.testing.assert_array_equal((a_gpu / b_gpu).get(), a / b)
    np.testing.assert_array_equal((1 - a_gpu).get(), 1 - a)
    np.testing.assert_array_equal((-a_gpu).get(), -a)
    np.testing.assert_array_equal(abs(a_gpu).get(), np.abs(a))
    result = a_gpu.mul_add(np.float32(2), b_gpu, np.float32(3)).get()
    np.testing.assert_allclose(result, 2 * a + 3 * b, rtol=1e-6, atol=1e-5)
    a_gpu += b_gpu
    a_gpu *= 0.5
    np.testing.assert_array_equal(a_gpu.get(), (a + b) * np.float32(0.5))
    assert a_gpu.dtype == np.float32


def test_autoinit_device_and_context(backend):
    autoinit.context.synchronize()
    cuda.Context.synchronize()
    device = autoinit.device
    assert isinstance(device.name(), str)
    major, minor = device.compute_capability()
    assert (major, minor) >= (0, 0)
    assert cuda.Device.count() >= 1
    free, total = cuda.mem_get_info()
    assert 0 <= free <= total
    expected = gpuvec.Device(0).properties["name"] if backend == "cuda" else "host"
    assert cuda.Device(0).name() == expected


def test_float64_for_a_float_pointer_is_refused(backend, rng):
    func = SourceModule(DOUBLIFY).get_function("doublify")
    a = random_array(rng, (4, 4), np.float64)
    with pytest.raises(TypeError, match="float"):
        func(cuda.InOut(a), block=(4, 4, 1))
    a_gpu = cuda.to_device(a)  # the allocation remembers its float64 data
    with pytest.raises(TypeError, match="float64"):
        func(a_gpu, block=(4, 4, 1))


def test_integer_arrays_are_held_as_they_are(backend, rng):
    ints = rng.integers(-10, 10, 16).astype(np.int32)
    a_gpu = gpuarray.to_gpu(ints)
    assert a_gpu.dtype == np.int32
    np.testing.assert_array_equal(a_gpu.get(), ints)
    assert gpuarray.empty(4, np.uint8).dtype == np.uint8
    allocation = cuda.mem_alloc(ints.nbytes)
    cuda.memcpy_htod(allocation, ints)
    back = np.empty_like(ints)
    cuda.memcpy_dtoh(back, allocation)
    np.testing.assert_array_equal(back, ints)
    np.testing.assert_array_equal(gpuarray.arange(10).get(), np.arange(10))


def test_halves_and_complex_round_trip_and_longdouble_is_refused(backend, rng):
    halves = rng.standard_normal(16).astype(np.float16)
    on_gpu = gpuarray.to_gpu(halves)
    assert on_gpu.dtype == np.float16
    np.testing.assert_array_equal(on_gpu.get().view(np.uint16), halves.view(np.uint16))
    assert gpuarray.empty(4, np.float16).dtype == np.float16
    z = (rng.standard_normal(16) + 1j * rng.standard_normal(16)).astype(np.complex64)
    on_gpu = gpuarray.to_gpu(z)
    assert on_gpu.dtype == np.complex64
    np.testing.assert_array_equal(on_gpu.get(), z)
    with pytest.raises(TypeError, match="float128"):
        gpuarray.to_gpu(halves.astype(np.longdouble))
    with pytest.raises(TypeError, match="float128"):
        gpuarray.empty(4, np.longdouble)
