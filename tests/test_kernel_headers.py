"""The headers a lab's kernel includes work on both backends.

On a GPU, NVRTC compiles the kernel with gpuvec's stand-ins for the C and
C++ library headers and the toolkit's CUDA headers; on the host backend,
NVRTC checks the same source first, then the host compiler builds it with
gpuvec's stand-ins for CUDA's headers (``gpuvec/kernels/_headers.py``). Each
kernel here includes headers the way course code does and is compared with
NumPy on fresh random data.
"""

import numpy as np
import pytest

import gpuvec
from gpuvec.kernels import _headers

C_LIBRARY = ["stdio.h", "math.h", "stdint.h", "limits.h", "float.h", "assert.h", "stdlib.h"]
CXX_LIBRARY = ["cstdio", "cmath", "cstdint", "climits", "cfloat", "cassert", "cstdlib"]
CXX_LIBRARY += ["type_traits", "limits", "utility"]
CUDA_HEADERS = ["cuda_runtime.h", "cuComplex.h", "cooperative_groups.h"]
CUDA_HEADERS += ["device_launch_parameters.h"]


def _needs_toolkit_headers():
    if _headers.toolkit_header_folder("cudart") is None:
        pytest.fail(
            "CUDA's headers were not found: install the CUDA toolkit, or "
            "python3 -m pip install nvidia-cuda-runtime nvidia-cuda-cccl cuda-pathfinder"
        )


# Headers in groups, each group in one kernel: a compile costs 0.1-1 s.
@pytest.mark.parametrize(
    "headers", [C_LIBRARY, CXX_LIBRARY, CUDA_HEADERS], ids=["c", "c++", "cuda"]
)
def test_a_kernel_including_the_headers_runs(backend, rng, headers):
    if headers is CUDA_HEADERS:
        _needs_toolkit_headers()
    includes = "".join(f"#include <{header}>\n" for header in headers)
    source = f"""{includes}
extern "C" __global__ void twice(const float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}}
"""
    n = int(rng.integers(1, 300))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    gpuvec.RawKernel(source, "twice")(((n + 127) // 128,), (128,), (x, y, np.int32(n)))
    np.testing.assert_array_equal(y, 2 * x)


def test_the_c_library_names_a_lab_uses(backend, rng):
    source = r"""
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
extern "C" __global__ void names(const float* x, float* y, int64_t* z, int n) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sinf(x[i] * (float)M_PI) + (x[i] > 0 ? FLT_EPSILON : 0.0f);
        z[i] = (int64_t)INT_MAX + i + (isinf(x[i] * FLT_MAX * 4.0f) ? 1 : 0);
    }
}
"""
    n = int(rng.integers(100, 400))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    z = np.full(n, -7, np.int64)
    gpuvec.RawKernel(source, "names")(((n + 63) // 64,), (64,), (x, y, z, np.int32(n)))
    expected = np.sin(x * np.float32(np.pi)) + np.where(x > 0, np.finfo(np.float32).eps, 0)
    np.testing.assert_allclose(y, expected, rtol=0, atol=4e-7)
    with np.errstate(over="ignore"):  # float32 overflows to inf, as in the kernel
        big = np.isinf(x * np.finfo(np.float32).max * np.float32(4))
    np.testing.assert_array_equal(z, 2**31 - 1 + np.arange(n) + big)


def test_the_cxx_library_as_std_names(backend, rng):
    source = r"""
#include <cmath>
#include <limits>
#include <type_traits>
template <class T>
__device__ T clipped_root(T v) {
    static_assert(std::is_floating_point<T>::value, "a float type");
    return std::sqrt(std::abs(v)) + std::numeric_limits<T>::epsilon();
}
extern "C" __global__ void roots(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = clipped_root(x[i]);
}
"""
    n = int(rng.integers(1, 500))
    x = rng.standard_normal(n)
    y = np.full(n, np.nan)
    gpuvec.RawKernel(source, "roots")(((n + 127) // 128,), (128,), (x, y, np.int32(n)))
    np.testing.assert_array_equal(y, np.sqrt(np.abs(x)) + np.finfo(np.float64).eps)


def test_cucomplex_gives_the_toolkits_formulas(backend, rng):
    _needs_toolkit_headers()
    source = r"""
#include <cuComplex.h>
extern "C" __global__ void ops(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cuFloatComplex x = make_cuFloatComplex(a[2 * i], a[2 * i + 1]);
        cuFloatComplex y = make_cuFloatComplex(b[2 * i], b[2 * i + 1]);
        cuFloatComplex p = cuCmulf(x, cuConjf(y)), q = cuCdivf(x, y);
        out[4 * i] = cuCrealf(p);
        out[4 * i + 1] = cuCimagf(p);
        out[4 * i + 2] = cuCabsf(q);
        out[4 * i + 3] = cuCrealf(cuCaddf(x, y)) - cuCimagf(cuCsubf(x, y));
    }
}
"""
    n = int(rng.integers(1, 300))
    a = rng.standard_normal(2 * n).astype(np.float32)
    b = rng.standard_normal(2 * n).astype(np.float32)
    out = np.full(4 * n, np.nan, np.float32)
    gpuvec.RawKernel(source, "ops")(((n + 127) // 128,), (128,), (a, b, out, np.int32(n)))
    x = a[0::2] + 1j * a[1::2].astype(np.complex128)
    y = b[0::2] + 1j * b[1::2].astype(np.complex128)
    got = out.reshape(n, 4)
    ar, ai, br, bi = a[0::2], a[1::2], b[0::2], b[1::2]
    # The product is exact to the toolkit's formula, rounded as float32 does each step.
    np.testing.assert_array_equal(got[:, 0], ar * br - ai * -bi)
    np.testing.assert_array_equal(got[:, 1], ar * -bi + ai * br)
    np.testing.assert_allclose(got[:, 2], np.abs(x / y), rtol=3e-6)
    np.testing.assert_array_equal(got[:, 3], (ar + br) - (ai - bi))


COOPERATIVE = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void warp_sums(const int* x, int* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + block.thread_rank();
    int v = i < n ? x[i] : 0;
    for (int offset = warp.size() / 2; offset > 0; offset /= 2) v += warp.shfl_down(v, offset);
    if (warp.thread_rank() == 0) out[i / 32] = v;
    block.sync();
}

extern "C" __global__ void tile_sums(const int* x, int* out, int* votes, int n) {
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<8>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    int sum = cg::reduce(tile, v, cg::plus<int>());
    unsigned positive = tile.ballot(v > 0);
    if (tile.thread_rank() == 0) {
        out[i / 8] = sum;
        votes[i / 8] = (int)positive + 1000 * (tile.meta_group_rank() + 1);
    }
}
"""


def test_cooperative_groups_warps_and_tiles(backend, rng):
    _needs_toolkit_headers()
    module = gpuvec.SourceModule(COOPERATIVE)
    blocks, threads = int(rng.integers(1, 5)), 128
    total = blocks * threads
    n = int(rng.integers(total - threads + 1, total + 1))
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    padded = np.zeros(total, np.int32)
    padded[:n] = x

    sums = np.full(total // 32, -1, np.int32)
    module.warp_sums((blocks,), (threads,), (x, sums, np.int32(n)))
    np.testing.assert_array_equal(sums, padded.reshape(-1, 32).sum(axis=1))

    tiles = np.full(total // 8, -1, np.int32)
    votes = np.full(total // 8, -1, np.int32)
    module.tile_sums((blocks,), (threads,), (x, tiles, votes, np.int32(n)))
    np.testing.assert_array_equal(tiles, padded.reshape(-1, 8).sum(axis=1))
    bits = (padded.reshape(-1, 8) > 0) << np.arange(8)
    meta = np.arange(total // 8) % (threads // 8) + 1
    np.testing.assert_array_equal(votes, bits.sum(axis=1) + 1000 * meta)


def test_libcudacxx_complex(backend, rng):
    if _headers.toolkit_header_folder("cccl") is None:
        pytest.fail("CCCL's headers were not found: install nvidia-cuda-cccl or the toolkit")
    source = r"""
#include <cuda/std/complex>
extern "C" __global__ void rotate(const double* a, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cuda::std::complex<double> z(a[2 * i], a[2 * i + 1]), turn(0.0, 1.0);
        cuda::std::complex<double> r = z * turn;
        out[2 * i] = r.real();
        out[2 * i + 1] = r.imag();
    }
}
"""
    n = int(rng.integers(1, 200))
    a = rng.standard_normal(2 * n)
    out = np.full(2 * n, np.nan)
    gpuvec.RawKernel(source, "rotate")(((n + 63) // 64,), (64,), (a, out, np.int32(n)))
    np.testing.assert_array_equal(out[0::2], -a[1::2])
    np.testing.assert_array_equal(out[1::2], a[0::2])


def test_the_names_nvcc_gives_a_kernel(backend, rng):
    # uint, ushort and ulong come from glibc's <sys/types.h> under nvcc.
    source = r"""
extern "C" __global__ void scale(const uint* x, ulong* y, ushort k, uint n) {
    uint i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (ulong)x[i] * k;
}
"""
    n = int(rng.integers(1, 300))
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    y = np.zeros(n, np.uint64)
    k = int(rng.integers(1, 2**16))
    gpuvec.RawKernel(source, "scale")(((n + 127) // 128,), (128,), (x, y, k, n))
    np.testing.assert_array_equal(y, x.astype(np.uint64) * np.uint64(k))
