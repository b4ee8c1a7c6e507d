// The elementwise kernels of the CUDA backend, shared by every elementwise op.
//
// Three kernels cover every layout:
//   - contiguous: 16-byte packs (float4 / double2 loads and stores; a
//     bool result of float inputs is stored 4 bytes at a time), with a
//     scalar tail;
//   - one strided dimension: offsets are i * stride, no division;
//   - N-d strided: each thread decomposes its linear index.
// Each input is an Operand: an array, or a scalar that every lane reads as a
// value (a test that is uniform across the launch).
// The grid covers the whole array in one pass: each block takes one tile of
// kUnroll * blockDim.x packs (elements). A loop over tiles remains only for
// arrays beyond what one grid can count.
#ifndef GPUVEC_CUDA_MAP_CUH
#define GPUVEC_CUDA_MAP_CUH

#include <stdint.h>

#include <algorithm>
#include <utility>

#include "../kit/operand.hpp"
#include "check.cuh"
#include "gpuvec/layout.hpp"
#include "launch.cuh"

namespace gpuvec::cuda {
// Internal linkage: every .cu file that includes this gets its own copy of
// the kernels, so no kernel is registered with the CUDA runtime twice.
namespace {

// The packs come by value, not by reference: copying a whole aligned pack out
// of global memory is what makes the compiler emit one 16-byte load
// (ld.global.nc.v4.f32) instead of V scalar ones.
template <class T, int V, class F, class... P>
__device__ __forceinline__ Pack<T, V> apply_lanes(F f, const P... in) {
  Pack<T, V> r;
#pragma unroll
  for (int j = 0; j < V; ++j) r.v[j] = f(in.v[j]...);
  return r;
}

// Each thread handles kUnroll packs of its block's tile, loaded before any is
// used, so that it keeps several 16-byte loads in flight: what a kernel that
// does almost no arithmetic needs to reach the memory bandwidth. On an H100,
// one-pass grids with kUnroll = 2 beat grid-stride loops of 8 to 32 blocks
// per SM by 3-6% from 2^24 elements up, and matched them below.
constexpr int kUnroll = 2;

template <class T, int V, class F, class... In>
__global__ void map_contiguous(int64_t n, F f, T* __restrict__ out, const Operand<In>... in) {
  const int64_t packs = n / V;
  const int64_t tile = static_cast<int64_t>(blockDim.x) * kUnroll;
  auto* out_packs = reinterpret_cast<Pack<T, V>*>(out);
  for (int64_t p = blockIdx.x * tile + threadIdx.x; p < packs; p += gridDim.x * tile) {
    if (p + (kUnroll - 1) * blockDim.x < packs) {
      Pack<T, V> r[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        r[u] = apply_lanes<T, V>(f, in.template pack<V>(p + u * blockDim.x)...);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) out_packs[p + u * blockDim.x] = r[u];
    } else {  // the last tile
      for (int64_t q = p; q < packs; q += blockDim.x) {
        out_packs[q] = apply_lanes<T, V>(f, in.template pack<V>(q)...);
      }
    }
  }
  // The n % V elements after the last pack.
  const int64_t i = packs * V + threadIdx.x;
  if (blockIdx.x == 0 && i < n) out[i] = f(in.at(i)...);
}

// Element i of an N-d layout. Index is the type its linear index is split
// in: uint32_t wherever the array is small enough, because a 64-bit division
// is a long emulated sequence on the GPU, one per dimension and element (a
// broadcast `x - m` spent most of its time there).
template <class Index, int N, class T, class F, class... In, size_t... K>
__device__ __forceinline__ void map_one(const Layout<N>& L, Index i, F f, T* out,
                                        std::index_sequence<K...>, const Operand<In>... in) {
  int64_t off[N] = {};
  for (int d = L.ndim - 1; d >= 0; --d) {
    const Index extent = static_cast<Index>(L.shape[d]);
    const Index idx = i % extent;
    i /= extent;
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += static_cast<int64_t>(idx) * L.strides[k][d];
  }
  out[off[0]] = f(in.at(off[K + 1])...);
}

// One strided dimension (a step slice, a reversed array, a column): offsets
// are i * stride, and each thread computes kUnroll elements of its block's
// tile, all loads first, for the same reason as map_contiguous.
template <int N, class T, class F, class... In, size_t... K>
__device__ __forceinline__ void map_1d(const Layout<N>& L, F f, T* out, std::index_sequence<K...>,
                                       const Operand<In>... in) {
  const int64_t n = L.size;
  const int64_t tile = static_cast<int64_t>(blockDim.x) * kUnroll;
  for (int64_t i = blockIdx.x * tile + threadIdx.x; i < n; i += gridDim.x * tile) {
    if (i + (kUnroll - 1) * blockDim.x < n) {
      T r[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        r[u] = f(in.at((i + u * blockDim.x) * L.strides[K + 1][0])...);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) out[(i + u * blockDim.x) * L.strides[0][0]] = r[u];
    } else {  // the last tile
      for (int64_t j = i; j < n; j += blockDim.x) {
        out[j * L.strides[0][0]] = f(in.at(j * L.strides[K + 1][0])...);
      }
    }
  }
}

template <int N, class T, class F, class... In>
__global__ void map_strided(const Layout<N> L, F f, T* out, const Operand<In>... in) {
  if (L.ndim == 1) {
    map_1d(L, f, out, std::index_sequence_for<In...>{}, in...);
    return;
  }
  if (L.size < (int64_t{1} << 31)) {  // i + step stays below 2^32: no wrap-around
    const uint32_t n = static_cast<uint32_t>(L.size);
    const uint32_t step = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
      map_one<uint32_t>(L, i, f, out, std::index_sequence_for<In...>{}, in...);
    }
    return;
  }
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.size;
       i += step) {
    map_one<int64_t>(L, i, f, out, std::index_sequence_for<In...>{}, in...);
  }
}

// Whether p may be read or written V elements at a time: aligned to a pack.
template <int V, class P>
bool pack_aligned(const P* p) {
  return reinterpret_cast<uintptr_t>(p) % (sizeof(P) * V) == 0;
}

// A scalar has no memory to align.
template <int V, class P>
bool pack_aligned(const Operand<P>& x) {
  return pack_aligned<V>(x.p);
}

// Blocks for `work` packs (elements) at kUnroll per thread: one tile each.
inline int tiles(int64_t work, int threads) {
  constexpr int64_t kMaxBlocks = 0x7fffffff;  // gridDim.x's limit
  const int64_t tile = static_cast<int64_t>(threads) * kUnroll;
  const int64_t blocks = (work + tile - 1) / tile;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

template <int N, class T, class F, class... In>
void map(const Layout<N>& L, F f, T* out, int threads_per_block, gpuvec_stream stream,
         const Operand<In>... in) {
  const int threads = block_size(threads_per_block);
  const cudaStream_t s = as_cuda_stream(stream);
  if (L.contiguous()) {
    // Packs of V elements, V chosen so that the widest operand moves 16
    // bytes at a time (a bool result of float inputs is stored 4 bytes at a time).
    constexpr int V = static_cast<int>(16 / std::max({sizeof(T), sizeof(In)...}));
    if (pack_aligned<V>(out) && (pack_aligned<V>(in) && ...)) {
      map_contiguous<T, V><<<tiles(L.size / V, threads), threads, 0, s>>>(L.size, f, out, in...);
    } else {
      map_contiguous<T, 1><<<tiles(L.size, threads), threads, 0, s>>>(L.size, f, out, in...);
    }
    check_launch("map_contiguous");
    return;
  }
  map_strided<<<tiles(L.size, threads), threads, 0, s>>>(L, f, out, in...);
  check_launch("map_strided");
}

}  // namespace
}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_MAP_CUH
