// The elementwise kernels of the CUDA backend, shared by every elementwise op.
//
// Three kernels cover every layout:
//   - contiguous: a grid-stride loop over 16-byte packs (float4 / double2
//     loads and stores), with a scalar tail;
//   - one strided dimension: offsets are i * stride, no division;
//   - N-d strided: each thread decomposes its linear index.
#ifndef GPUVEC_CUDA_MAP_CUH
#define GPUVEC_CUDA_MAP_CUH

#include <stdint.h>

#include <utility>

#include "check.cuh"
#include "gpuvec/layout.hpp"
#include "launch.cuh"

namespace gpuvec::cuda {
// Internal linkage: every .cu file that includes this gets its own copy of
// the kernels, so no kernel is registered with the CUDA runtime twice.
namespace {

// V elements moved by one aligned load or store (V * sizeof(T) == 16 bytes).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <class T, int V, class F, class... P>
__device__ __forceinline__ Pack<T, V> apply_lanes(F f, const P&... in) {
  Pack<T, V> r;
#pragma unroll
  for (int j = 0; j < V; ++j) r.v[j] = f(in.v[j]...);
  return r;
}

// Each thread handles kUnroll packs per trip, loaded before any is used, so
// that every thread keeps several 16-byte loads in flight: what a kernel
// that does almost no arithmetic needs to reach the memory bandwidth.
constexpr int kUnroll = 4;

template <class T, int V, class F, class... In>
__global__ void map_contiguous(int64_t n, F f, T* __restrict__ out, const In* __restrict__... in) {
  const int64_t packs = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* out_packs = reinterpret_cast<Pack<T, V>*>(out);
  int64_t p = first;
  for (; p + (kUnroll - 1) * step < packs; p += kUnroll * step) {
    Pack<T, V> r[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      r[u] = apply_lanes<T, V>(f, reinterpret_cast<const Pack<In, V>*>(in)[p + u * step]...);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out_packs[p + u * step] = r[u];
  }
  for (; p < packs; p += step) {
    out_packs[p] = apply_lanes<T, V>(f, reinterpret_cast<const Pack<In, V>*>(in)[p]...);
  }
  for (int64_t i = packs * V + first; i < n; i += step) out[i] = f(in[i]...);
}

template <int N, class T, class F, class... In, size_t... K>
__device__ __forceinline__ void map_one(const Layout<N>& L, int64_t i, F f, T* out,
                                        std::index_sequence<K...>, const In*... in) {
  int64_t off[N];
  L.offsets(i, off);
  out[off[0]] = f(in[off[K + 1]]...);
}

// One strided dimension (a step slice, a reversed array, a column): offsets
// are i * stride, and each thread computes kUnroll elements per trip, all
// loads first, for the same reason as map_contiguous.
template <int N, class T, class F, class... In, size_t... K>
__device__ __forceinline__ void map_1d(const Layout<N>& L, F f, T* out, std::index_sequence<K...>,
                                       const In*... in) {
  const int64_t n = L.size;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * step < n; i += kUnroll * step) {
    T r[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) r[u] = f(in[(i + u * step) * L.strides[K + 1][0]]...);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[(i + u * step) * L.strides[0][0]] = r[u];
  }
  for (; i < n; i += step) out[i * L.strides[0][0]] = f(in[i * L.strides[K + 1][0]]...);
}

template <int N, class T, class F, class... In>
__global__ void map_strided(const Layout<N> L, F f, T* out, const In*... in) {
  if (L.ndim == 1) {
    map_1d(L, f, out, std::index_sequence_for<In...>{}, in...);
    return;
  }
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.size;
       i += step) {
    map_one(L, i, f, out, std::index_sequence_for<In...>{}, in...);
  }
}

template <class P>
bool aligned16(const P* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

template <int N, class T, class F, class... In>
void map(const Layout<N>& L, F f, T* out, int threads_per_block, gpuvec_stream stream,
         const In*... in) {
  const int threads = block_size(threads_per_block);
  const cudaStream_t s = as_cuda_stream(stream);
  if (L.contiguous()) {
    constexpr int V = 16 / sizeof(T);
    if (aligned16(out) && (aligned16(in) && ...)) {
      const int blocks = grid_size((L.size / V + kUnroll - 1) / kUnroll, threads, 16);
      map_contiguous<T, V><<<blocks, threads, 0, s>>>(L.size, f, out, in...);
    } else {
      const int blocks = grid_size((L.size + kUnroll - 1) / kUnroll, threads, 16);
      map_contiguous<T, 1><<<blocks, threads, 0, s>>>(L.size, f, out, in...);
    }
    check_launch("map_contiguous");
    return;
  }
  const int blocks = grid_size((L.size + kUnroll - 1) / kUnroll, threads, 16);
  map_strided<<<blocks, threads, 0, s>>>(L, f, out, in...);
  check_launch("map_strided");
}

}  // namespace
}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_MAP_CUH
