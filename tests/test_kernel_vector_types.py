"""CUDA's vector types in users' kernels, on both backends.

A pointer to a vector type (``float2*``, ``uchar4*``, ``cuFloatComplex*``)
takes an array of its components, read `lanes` at a time: a float32 array
of 2n elements (or n complex64) for a ``float2*``, the bytes a GPU kernel
would see. Each kernel is compared with NumPy on fresh random data.
"""

import numpy as np
import pytest

import gpuvec
from gpuvec.kernels._signature import VECTOR_TYPES, parse_kernels

VECTORS = r"""
extern "C" __global__ void rgba_to_gray(const uchar4* pixels, unsigned char* gray, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = pixels[i];
        gray[i] = (unsigned char)((p.x * 77 + p.y * 150 + p.z * 29) >> 8);
    }
}

extern "C" __global__ void norms(const float4* v, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 a = v[i];
        out[i] = a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w;
    }
}

extern "C" __global__ void swap_halves(double2* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = make_double2(z[i].y, z[i].x);
}

extern "C" __global__ void cross(const float3* a, const float3* b, float3* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 u = a[i], v = b[i];
        c[i] = make_float3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x);
    }
}

extern "C" __global__ void shorts(const short2* s, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s[i].x - s[i].y;
}
"""


@pytest.fixture(scope="module")
def module():
    return gpuvec.SourceModule(VECTORS)


def blocks(n):
    return ((n + 127) // 128,), (128,)


def test_the_vector_types_are_their_components_lanes_at_a_time():
    kernels = {k.name: k for k in parse_kernels(VECTORS)}
    pixels = kernels["rgba_to_gray"].parameters[0]
    assert (pixels.dtype, pixels.lanes) == (np.dtype(np.uint8), 4)
    assert kernels["cross"].parameters[2].lanes == 3
    assert kernels["cross"].parameters[3].lanes == 1
    assert VECTOR_TYPES["cuDoubleComplex"] == ("float64", 2)


def test_uchar4_pixels(backend, module, rng):
    n = int(rng.integers(1, 1000))
    pixels = rng.integers(0, 256, (n, 4), dtype=np.uint8)
    gray = np.full(n, 7, np.uint8)
    module.rgba_to_gray(*blocks(n), (pixels, gray, np.int32(n)))
    p = pixels.astype(np.int32)
    np.testing.assert_array_equal(gray, (p[:, 0] * 77 + p[:, 1] * 150 + p[:, 2] * 29) >> 8)


def test_float4_and_float3(backend, module, rng):
    n = int(rng.integers(1, 700))
    v = rng.standard_normal((n, 4)).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    module.norms(*blocks(n), (v, out, np.int32(n)))
    x, y, z, w = v.T
    np.testing.assert_array_equal(out, x * x + y * y + z * z + w * w)

    a = rng.standard_normal((n, 3)).astype(np.float32)
    b = rng.standard_normal((n, 3)).astype(np.float32)
    c = np.full((n, 3), np.nan, np.float32)
    module.cross(*blocks(n), (a, b, c, np.int32(n)))
    np.testing.assert_allclose(c, np.cross(a, b), rtol=1e-5, atol=1e-5)


def test_double2_takes_complex128_or_float64_pairs(backend, module, rng):
    n = int(rng.integers(1, 500))
    z = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    expected = z.imag + 1j * z.real
    module.swap_halves(*blocks(n), (z, np.int32(n)))
    np.testing.assert_array_equal(z, expected)
    pairs = rng.standard_normal(2 * n)
    swapped = pairs.reshape(n, 2)[:, ::-1].ravel().copy()
    module.swap_halves(*blocks(n), (pairs, np.int32(n)))
    np.testing.assert_array_equal(pairs, swapped)


def test_short2(backend, module, rng):
    n = int(rng.integers(1, 500))
    s = rng.integers(-(2**15), 2**15, (n, 2), dtype=np.int16)
    out = np.zeros(n, np.int32)
    module.shorts(*blocks(n), (s, out, np.int32(n)))
    np.testing.assert_array_equal(out, s[:, 0].astype(np.int32) - s[:, 1])


def test_an_array_of_the_wrong_size_or_dtype_is_refused(backend, module):
    with pytest.raises(ValueError, match=r"'v' \(const float4\*\) reads 4 float32 at a time"):
        module.norms((1,), (32,), (np.ones(6, np.float32), np.zeros(2, np.float32), np.int32(1)))
    with pytest.raises(TypeError, match="parameter 'v' is const float4"):
        module.norms((1,), (32,), (np.ones(8), np.zeros(2, np.float32), np.int32(2)))
    with pytest.raises(TypeError, match="parameter 'z' is double2"):
        module.swap_halves((1,), (32,), (np.ones(4, np.complex64), np.int32(2)))
