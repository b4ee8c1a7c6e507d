// gpuvec's elementwise machinery: out = f(in...) over a layout, on either
// backend. gpuvec's own elementwise ops and conversions use it (on a GPU,
// compiled by NVRTC at their first use: csrc/cuda/own_map.hpp; on the host,
// csrc/host/map.hpp), and so does a user's ElementwiseKernel, compiled from
// this header by NVRTC on a GPU and by the host compiler without one
// (gpuvec/kernels/_elementwise.py): one copy of the kernels and of the
// choice among them.
//
// The CUDA kernels (compiled by NVRTC). Four kernels cover every
// layout:
//   - contiguous: 16-byte packs (float4 / double2 loads and stores; a
//     bool result of float inputs is stored 4 bytes at a time), with a
//     scalar tail;
//   - rows whose elements are consecutive or one repeated value in every
//     operand (broadcasting a `keepdims` result): the same packs, with one
//     division per pack to find its row;
//   - one strided dimension: offsets are i * stride, no division;
//   - N-d strided: each thread decomposes its linear index.
// Each input is an Operand: an array, or a scalar that every lane reads as a
// value (a test that is uniform across the launch).
// The grid covers the whole array in one pass: each block takes one tile of
// kUnroll * blockDim.x packs (elements). A loop over tiles remains only for
// arrays beyond what one grid can count.
//
// The host loop (compiled by the host compiler): a range [begin, end) of the
// layout's linear indices, a vectorizable loop where the layout is
// contiguous, else a walk; gpuvec's thread pool runs it in pieces.
//
// The launch plan (host code): which kernel takes a layout, and how many
// blocks. gpuvec's own launches and those of a user's compiled kernels both
// ask plan_map.
#ifndef GPUVEC_MAP_HPP
#define GPUVEC_MAP_HPP

#include "gpuvec/layout.hpp"
#include "gpuvec/operand.hpp"
#include "gpuvec/portable.hpp"
#if !defined(__CUDACC_RTC__)
#include "gpuvec/walk.hpp"
#endif

namespace gpuvec {

// Each thread handles kUnroll packs of its block's tile, loaded before any is
// used, so that it keeps several 16-byte loads in flight: what a kernel that
// does almost no arithmetic needs to reach the memory bandwidth. On an H100,
// one-pass grids with kUnroll = 2 beat grid-stride loops of 8 to 32 blocks
// per SM by 3-6% from 2^24 elements up, and matched them below.
constexpr int kUnroll = 2;

// --- the CUDA kernels ---------------------------------------------------------------------------
#if defined(__CUDACC__)

// nvcc: every translation unit that includes this gets its own copy of the
// kernels (internal linkage), so that no kernel is registered with the CUDA
// runtime twice. NVRTC compiles one program, whose kernels gpuvec finds by
// their names: there they keep external linkage.
#if !defined(__CUDACC_RTC__)
namespace {
#endif

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

template <class T, int V, class F, class... Op>
__global__ void map_contiguous(int64_t n, F f, T* __restrict__ out, const Op... in) {
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
template <class Index, int N, class T, class F, class... Op, size_t... K>
__device__ __forceinline__ void map_one(const Layout<N>& L, Index i, F f, T* out,
                                        index_sequence<K...>, const Op... in) {
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
template <int N, class T, class F, class... Op, size_t... K>
__device__ __forceinline__ void map_1d(const Layout<N>& L, F f, T* out, index_sequence<K...>,
                                       const Op... in) {
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

template <int N, class T, class F, class... Op>
__global__ void map_strided(const Layout<N> L, F f, T* out, const Op... in) {
  if (L.ndim == 1) {
    map_1d(L, f, out, index_sequence_for<Op...>{}, in...);
    return;
  }
  if (L.size < (int64_t{1} << 31)) {  // i + step stays below 2^32: no wrap-around
    const uint32_t n = static_cast<uint32_t>(L.size);
    const uint32_t step = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
      map_one<uint32_t>(L, i, f, out, index_sequence_for<Op...>{}, in...);
    }
    return;
  }
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.size;
       i += step) {
    map_one<int64_t>(L, i, f, out, index_sequence_for<Op...>{}, in...);
  }
}

// Pack q of a layout whose innermost dimension steps by 1 or 0 in every
// operand (see map_rows): the pack's row is found by one division, then its
// offset in each operand by one division per outer dimension. at[k] is the
// element offset of the pack in operand k.
template <class T, class Index, int V, int N, class F, class... Op, size_t... K>
__device__ __forceinline__ Pack<T, V> row_pack(const Layout<N>& L, Index q, Index row_packs, F f,
                                               int64_t (&at)[N], index_sequence<K...>,
                                               const Op... in) {
  const int inner = L.ndim - 1;
  Index r = q / row_packs;
  const Index column = (q - r * row_packs) * V;
#pragma unroll
  for (int k = 0; k < N; ++k) at[k] = static_cast<int64_t>(column) * L.strides[k][inner];
  for (int d = inner - 1; d > 0; --d) {
    const Index extent = static_cast<Index>(L.shape[d]);
    const Index idx = r % extent;
    r /= extent;
#pragma unroll
    for (int k = 0; k < N; ++k) at[k] += static_cast<int64_t>(idx) * L.strides[k][d];
  }
#pragma unroll
  for (int k = 0; k < N; ++k) at[k] += static_cast<int64_t>(r) * L.strides[k][0];
  return apply_lanes<T, V>(f, in.template pack_at<V>(at[K + 1], L.strides[K + 1][inner])...);
}

// Rows: every operand's innermost dimension is a run of consecutive elements
// (stride 1) or one element repeated (stride 0), as in `x - m` with a
// `keepdims` result m, or a matrix plus a row vector. Each thread takes
// kUnroll packs of V elements of its block's tile, all loads first: 16-byte
// loads and stores, and one division per pack and dimension instead of one
// per element and dimension (map_strided took twice as long for these).
template <class Index, int V, int N, class T, class F, class... Op>
__device__ __forceinline__ void map_rows_of(const Layout<N>& L, F f, T* out, const Op... in) {
  const Index row_packs = static_cast<Index>(L.shape[L.ndim - 1] / V);
  const Index packs = static_cast<Index>(L.size / V);
  const Index tile = static_cast<Index>(blockDim.x) * kUnroll;
  for (Index p = blockIdx.x * tile + threadIdx.x; p < packs; p += gridDim.x * tile) {
    Pack<T, V> r[kUnroll];
    int64_t at[kUnroll][N];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const Index q = p + u * blockDim.x;
      if (q < packs) {
        r[u] =
            row_pack<T, Index, V>(L, q, row_packs, f, at[u], index_sequence_for<Op...>{}, in...);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (p + u * blockDim.x < packs) *reinterpret_cast<Pack<T, V>*>(out + at[u][0]) = r[u];
    }
  }
}

template <int V, int N, class T, class F, class... Op>
__global__ void map_rows(const Layout<N> L, F f, T* out, const Op... in) {
  // 32-bit indices wherever p + gridDim.x * tile cannot wrap around.
  if (L.size < (int64_t{1} << 31)) {
    map_rows_of<uint32_t, V>(L, f, out, in...);
  } else {
    map_rows_of<int64_t, V>(L, f, out, in...);
  }
}

#if !defined(__CUDACC_RTC__)
}  // namespace
#endif

#endif  // __CUDACC__

// --- the host loop ------------------------------------------------------------------------------
#if !defined(__CUDACC__)

// out = f(in...) over the linear indices [begin, end) of the layout; operand
// 0 is out, operand k + 1 is in[k]. The inputs may differ in type (a bool
// mask beside float data, say).
template <int N, class T, class F, class... In, class... S, size_t... K>
inline void map_range(const Layout<N>& L, F f, T* out, int64_t begin, int64_t end,
                      index_sequence<K...>, const Operand<In, S>... in) {
  if (L.contiguous()) {
    // One loop for arrays and scalars alike: each scalar's test is loop
    // invariant, so the compiler unswitches it and vectorizes every version.
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) out[i] = f(in.at(i)...);
    return;
  }
  walk(L, begin, end, [&](const int64_t(&off)[N]) { out[off[0]] = f(in.at(off[K + 1])...); });
}

template <int N, class T, class F, class... In, class... S>
inline void map_range(const Layout<N>& L, F f, T* out, int64_t begin, int64_t end,
                      const Operand<In, S>... in) {
  map_range(L, f, out, begin, end, index_sequence_for<In...>{}, in...);
}

// The entry a host-compiled ElementwiseKernel exports (GPUVEC_MAP_ENTRY):
// map_range over [begin, end) of *layout, a Layout<1 + number of inputs>,
// with in[k] pointing at input k's Operand. gpuvec's thread pool calls it in
// pieces, so the library needs nothing of gpuvec but this header.
using MapEntry = void (*)(const void* layout, void* out, const void* const* in, int64_t begin,
                          int64_t end);

template <class F, class T, class... In, size_t... K>
inline void map_entry_of(const void* layout, void* out, const void* const* in, int64_t begin,
                         int64_t end, index_sequence<K...>) {
  constexpr int N = 1 + sizeof...(In);
#if defined(GPUVEC_EMULATION)
  // No exception may leave the loop's `omp simd` region (it would end the
  // process): the user's are caught in it, and reported after it.
  map_range(*static_cast<const Layout<N>*>(layout), ::gpuvec_emu::Caught<F>{},
            static_cast<T*>(out), begin, end, *static_cast<const Operand<In>*>(in[K])...);
  ::gpuvec_emu::report_caught();
#else
  map_range(*static_cast<const Layout<N>*>(layout), F{}, static_cast<T*>(out), begin, end,
            *static_cast<const Operand<In>*>(in[K])...);
#endif
}

template <class F, class T, class... In>
inline void map_entry(const void* layout, void* out, const void* const* in, int64_t begin,
                      int64_t end) {
  map_entry_of<F, T, In...>(layout, out, in, begin, end, index_sequence_for<In...>{});
}

// GPUVEC_MAP_ENTRY(name, F, T, In...): the exported entry `name` of functor F
// computing a T from inputs of types In... (a MapEntry). Built against
// gpuvec/cuda_emulation.h, as a user's library is, it is a
// gpuvec_emulation_map_entry instead: the user's failures (assert, __trap,
// an exception) end the range and are reported through the context.
#if defined(GPUVEC_EMULATION)
#define GPUVEC_MAP_ENTRY(name, F, ...)                                                       \
  extern "C" __attribute__((visibility("default"))) int name(                                \
      gpuvec_emulation_block* context, const void* layout, void* out, const void* const* in, \
      int64_t begin, int64_t end) {                                                          \
    return ::gpuvec_emu::run_contained(                                                      \
        context, [&] { ::gpuvec::map_entry<F, __VA_ARGS__>(layout, out, in, begin, end); }); \
  }
#else
#define GPUVEC_MAP_ENTRY(name, F, ...)                                                    \
  extern "C" __attribute__((visibility("default"))) void name(                            \
      const void* layout, void* out, const void* const* in, int64_t begin, int64_t end) { \
    ::gpuvec::map_entry<F, __VA_ARGS__>(layout, out, in, begin, end);                     \
  }
#endif

#endif  // !__CUDACC__

// --- the launch plan ----------------------------------------------------------------------------
#if !defined(__CUDACC_RTC__)

// The kernels of a launch, in the order a user's compiled kernel lists its
// instances (gpuvec/kernels/_elementwise.py).
enum class MapKernel : int {
  kContiguousPacks = 0,  // map_contiguous<T, V>
  kContiguous = 1,       // map_contiguous<T, 1>: an operand not aligned to a pack
  kRows = 2,             // map_rows<V>
  kStrided = 3,          // map_strided
};
constexpr int kMapKernels = 4;

inline const char* map_kernel_name(MapKernel kernel) {
  switch (kernel) {
    case MapKernel::kContiguousPacks:
    case MapKernel::kContiguous:
      return "map_contiguous";
    case MapKernel::kRows:
      return "map_rows";
    case MapKernel::kStrided:
      return "map_strided";
  }
  return "map";
}

struct MapPlan {
  MapKernel kernel;
  int64_t work;  // the packs (elements) that tiles() cuts into blocks
};

// Whether p may be read or written `bytes` at a time: aligned to a pack. A
// scalar (null) has no memory to align.
inline bool pack_aligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

// Whether map_rows can take layout L in packs of V: several dimensions; the
// innermost a whole number of packs long, a run of consecutive elements in
// out and a run or one repeated element in each input; and every run's pack
// aligned, so that each row's packs are too. Scalars fit anywhere.
template <int N>
bool rows_fit(const Layout<N>& L, int V, const void* const (&data)[N],
              const size_t (&itemsize)[N]) {
  const int inner = L.ndim - 1;
  if (L.ndim < 2 || L.shape[inner] % V != 0) return false;
  for (int k = 0; k < N; ++k) {
    const int64_t step = L.strides[k][inner];
    if (data[k] == nullptr || (k > 0 && step == 0)) continue;  // a scalar, a repeated element
    if (step != 1 || !pack_aligned(data[k], itemsize[k] * V)) return false;
    for (int d = 0; d < inner; ++d) {
      if (L.strides[k][d] % V != 0) return false;
    }
  }
  return true;
}

// Which kernel runs out = f(in...) over layout L, in packs of V elements:
// data[0] is out's element 0, data[k + 1] input k's (null for a scalar), and
// itemsize[k] the size of the elements stored there.
template <int N>
MapPlan plan_map(const Layout<N>& L, int V, const void* const (&data)[N],
                 const size_t (&itemsize)[N]) {
  if (L.contiguous()) {
    bool aligned = true;
    for (int k = 0; k < N; ++k) aligned = aligned && pack_aligned(data[k], itemsize[k] * V);
    if (aligned) return {MapKernel::kContiguousPacks, L.size / V};
    return {MapKernel::kContiguous, L.size};
  }
  if (rows_fit(L, V, data, itemsize)) return {MapKernel::kRows, L.size / V};
  return {MapKernel::kStrided, L.size};
}

// Blocks for `work` packs (elements) at kUnroll per thread: one tile each.
inline int tiles(int64_t work, int threads) {
  constexpr int64_t kMaxBlocks = 0x7fffffff;  // gridDim.x's limit
  const int64_t tile = static_cast<int64_t>(threads) * kUnroll;
  const int64_t blocks = (work + tile - 1) / tile;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

#endif  // !__CUDACC_RTC__

}  // namespace gpuvec

#endif  // GPUVEC_MAP_HPP
