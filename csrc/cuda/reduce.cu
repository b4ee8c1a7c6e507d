// Reductions on the CUDA backend: warp-shuffle tree reductions.
//
// Each thread accumulates its grid-stride share in double; a block combines
// its threads with warp shuffles (a fixed tree). A one-block grid writes the
// result at once. In a larger grid each block leaves its total in per-stream
// scratch memory (scratch.hpp), and the last block to finish adds the totals
// up the same way: one kernel launch in all, no allocation. The tree depends
// only on the input size, the block size and the SM count, never on which
// block finishes last, so results are deterministic.
#include <stdint.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include "../kit/backends.hpp"
#include "block_reduce.cuh"
#include "check.cuh"
#include "gpuvec/ops.hpp"
#include "gpuvec/reduce_ops.hpp"
#include "launch.cuh"
#include "scratch.hpp"
#include "staging.hpp"

namespace gpuvec::cuda {
namespace {

using ops::Accumulator;

// How block and grid totals of sum and dot combine: double totals, added up.
using Plus = ops::reduce::Sum;

template <int N, class Term, class... In, size_t... K>
__device__ __forceinline__ Accumulator term_at(const Layout<N>& L, int64_t i, Term term,
                                               std::index_sequence<K...>, const In*... in) {
  if (L.ndim == 1) return term(in[i * L.strides[K][0]]...);
  int64_t off[N];
  L.offsets(i, off);
  return term(in[off[K]]...);
}

// Writes the grid's result, given each block's total (valid in thread 0).
template <class Out>
__device__ __forceinline__ void finish(Accumulator total, Out* result, Accumulator* partial,
                                       unsigned int* ticket) {
  finish_grid(Plus{}, total, partial, ticket,
              [result](Accumulator t) { *result = static_cast<Out>(t); });
}

// The reduction of a strided layout.
template <int N, class Out, class Term, class... In>
__global__ void reduce_strided(const Layout<N> L, Term term, Out* result, Accumulator* partial,
                               unsigned int* ticket, const In*... in) {
  Accumulator acc = 0;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.size;
       i += step) {
    acc += term_at(L, i, term, std::index_sequence_for<In...>{}, in...);
  }
  finish(block_total(Plus{}, acc), result, partial, ticket);
}

// By value, as in map.cuh's apply_lanes: one 16-byte load per pack.
template <int V, class Term, class... P>
__device__ __forceinline__ Accumulator lane_terms(Term term, const P... lanes) {
  Accumulator s = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) s += term(lanes.v[j]...);
  return s;
}

// The same for contiguous inputs, read V elements per load. Unrolling the
// grid-stride loop keeps several loads in flight per thread, which a
// reduction (one small read per element, nothing to write) needs to reach
// full memory bandwidth.
template <int V, class Out, class Term, class... In>
__global__ void reduce_contiguous(int64_t n, Term term, Out* result, Accumulator* partial,
                                  unsigned int* ticket, const In* __restrict__... in) {
  Accumulator acc = 0;
  const int64_t packs = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll 4
  for (int64_t p = first; p < packs; p += step) {
    acc += lane_terms<V>(term, reinterpret_cast<const Lanes<In, V>*>(in)[p]...);
  }
  for (int64_t i = packs * V + first; i < n; i += step) acc += term(in[i]...);
  finish(block_total(Plus{}, acc), result, partial, ticket);
}

template <class P>
bool aligned16(const P* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

template <int N, class T, class Term, class... In>
void reduce(const Layout<N>& L, Term term, T* result, int threads_per_block, gpuvec_stream stream,
            const In*... in) {
  using First = std::tuple_element_t<0, std::tuple<In...>>;
  constexpr int V = 16 / sizeof(First);
  const int threads = block_size(threads_per_block);
  const cudaStream_t s = as_cuda_stream(stream);
  const bool contiguous = L.contiguous();
  const bool vectors = contiguous && (aligned16(in) && ...);
  // One wave of resident blocks at most, each thread summing at least four
  // loads: the totals stay few enough for one block to add up.
  const int64_t loads = vectors ? L.size / V : L.size;
  const int blocks = std::min(kMaxReductionBlocks,
                              grid_size((loads + 3) / 4, threads, std::max(1, 2048 / threads)));
  ReductionScratch scratch{nullptr, nullptr};
  if (blocks > 1) scratch = reduction_scratch(s);
  if (vectors) {
    reduce_contiguous<V>
        <<<blocks, threads, 0, s>>>(L.size, term, result, scratch.partials, scratch.ticket, in...);
  } else if (contiguous) {
    reduce_contiguous<1>
        <<<blocks, threads, 0, s>>>(L.size, term, result, scratch.partials, scratch.ticket, in...);
  } else {
    reduce_strided<<<blocks, threads, 0, s>>>(L, term, result, scratch.partials, scratch.ticket,
                                              in...);
  }
  check_launch("reduce");
}

}  // namespace

template <class T>
void sum(const Layout<1>& L, const T* x, T* result, int threads_per_block, gpuvec_stream stream) {
  reduce(L, ops::SumTerm{}, result, threads_per_block, stream, x);
}

template <class T>
void dot(const Layout<2>& L, const T* x, const T* y, T* result, int threads_per_block,
         gpuvec_stream stream) {
  reduce(L, ops::DotTerm{}, result, threads_per_block, stream, x, y);
}

template <class T>
void sum_into_double(const Layout<1>& L, const T* x, double* result, int threads_per_block,
                     gpuvec_stream stream) {
  reduce(L, ops::SumTerm{}, result, threads_per_block, stream, x);
}

template <class T>
void dot_into_double(const Layout<2>& L, const T* x, const T* y, double* result,
                     int threads_per_block, gpuvec_stream stream) {
  reduce(L, ops::DotTerm{}, result, threads_per_block, stream, x, y);
}

template void sum_into_double<float>(const Layout<1>&, const float*, double*, int, gpuvec_stream);
template void sum_into_double<double>(const Layout<1>&, const double*, double*, int,
                                      gpuvec_stream);
template void dot_into_double<float>(const Layout<2>&, const float*, const float*, double*, int,
                                     gpuvec_stream);
template void dot_into_double<double>(const Layout<2>&, const double*, const double*, double*, int,
                                      gpuvec_stream);
template void sum<float>(const Layout<1>&, const float*, float*, int, gpuvec_stream);
template void sum<double>(const Layout<1>&, const double*, double*, int, gpuvec_stream);
template void dot<float>(const Layout<2>&, const float*, const float*, float*, int, gpuvec_stream);
template void dot<double>(const Layout<2>&, const double*, const double*, double*, int,
                          gpuvec_stream);

}  // namespace gpuvec::cuda
