// gpuvec's reduction engine: out[r] = finish(combine over j of term(in...[r, j])),
// the rows r of the inputs over their last dimensions, on either backend.
// gpuvec's own reductions run it (csrc/cuda/reduce_axis.cpp, whose kernels
// NVRTC compiles at their first use, and csrc/host/reduce_axis.cpp), a sum or
// dot of every element as one row, and
// so does a user's ReductionKernel, compiled from this header by NVRTC on a
// GPU and by the host compiler without one (gpuvec/kernels/_reduction.py):
// one copy of the kernels and of the choice among them.
//
// A reduction is a policy (gpuvec/reduce_ops.hpp has gpuvec's own):
//   Acc                the running state of a run of elements: a plain struct
//                      of whole 8-byte words (or 4-byte ones), which a warp
//                      shuffle moves;
//   identity()         the state of no elements;
//   term(x..., j)      the state of element j of a row, x... its value in
//                      each input;
//   combine(a, b)      the state of two runs together. The kernels combine
//                      runs in a fixed tree whose shape depends only on the
//                      sizes, the block size and the SM count, so results are
//                      deterministic, but combine must give the same answer
//                      whichever run comes first;
//   finish<Out>(a, n)  the output of a row of n elements.
// A policy may say more (see below): kLanes (its sums gain from interleaved
// lanes on the host), kFoldsRuns (it takes several values at once, run()),
// kStores (it writes a row's results itself, store(p, a, n), where the
// engine would write *p = finish<Out>(a, n): gpuvec's mean_var writes two).
//
// The CUDA kernels (compiled by nvcc and NVRTC). The launch shape follows the
// m rows of n elements and how they lie:
//   - one row of consecutive elements (a sum or dot of a whole array):
//     reduce_contiguous, a grid-stride loop of 16-byte loads, each thread
//     keeping several in flight;
//   - up to 64 rows side by side in memory, each a run of elements at one
//     stride (a column reduction of a tall, narrow matrix, such as the mean
//     over axis 0 of a C-ordered 2^22 x 8 matrix): reduce_columns, whose
//     blocks read tiles of neighbouring elements, all m rows at blockDim.x /
//     m consecutive j, the tiles spread over the whole grid;
//   - more rows side by side (summing a wide matrix over axis 0):
//     reduce_tiles, a block per tile of 32 rows, the 32 lanes of a warp
//     reading 32 neighbouring rows at the same j (one coalesced load);
//   - many rows, or short ones: reduce_groups, a group of G lanes of one warp
//     per row, G a power of two up to 32 chosen from n;
//   - few long rows: reduce_blocks, several blocks per row.
// Where several blocks share a row, each leaves its state in scratch memory
// and either the grid's last block (one launch) or reduce_partials, a second
// kernel with a warp per row, combines them.
//
// The host loop (compiled by the host compiler): reduce_tiles_on_host, rows
// in tiles, each row in runs combined pairwise; a thread pool runs its items.
//
// The launch plan (host code): plan_reduce picks the kernel and its grid and
// says what scratch memory it needs; the CUDA backend allocates it and
// launches (csrc/cuda/reduce_plan.hpp), for gpuvec's own reductions and a
// user's compiled kernels alike.
#ifndef GPUVEC_REDUCE_HPP
#define GPUVEC_REDUCE_HPP

#include "gpuvec/layout.hpp"
#include "gpuvec/limits.h"
#include "gpuvec/operand.hpp"
#include "gpuvec/portable.hpp"
#if !defined(__CUDACC_RTC__)
#include <string.h>  // memcpy (NVRTC has it built in)
#endif
#if !defined(__CUDACC__)
#include <type_traits>
#include <vector>

#include "gpuvec/walk.hpp"
#endif

namespace gpuvec {

// The two layouts of a reduction over R inputs.
template <int R>
struct ReduceLayout {
  Layout<R + 1> rows;  // out (operand 0) and the first element of each row of input k (k + 1)
  Layout<R> row;       // the elements of one row of each input, in the order they are visited
};

// What a policy may say of itself: Op::kLanes, that its state is a sum that
// a host loop keeps in interleaved lanes (Sum and its kin); Op::kFoldsRuns,
// that it takes consecutive values of one input at once with run(v, k)
// (Variance).
template <class Op, class = void>
struct policy_lanes {
  static constexpr bool value = false;
};
template <class Op>
struct policy_lanes<Op, decltype(void(Op::kLanes))> {
  static constexpr bool value = Op::kLanes;
};
template <class Op>
constexpr bool kLanes = policy_lanes<Op>::value;

template <class Op, class = void>
struct policy_runs {
  static constexpr bool value = false;
};
template <class Op>
struct policy_runs<Op, decltype(void(Op::kFoldsRuns))> {
  static constexpr bool value = Op::kFoldsRuns;
};
template <class Op>
constexpr bool kFoldsRuns = policy_runs<Op>::value;

template <class Op, class = void>
struct policy_stores {
  static constexpr bool value = false;
};
template <class Op>
struct policy_stores<Op, decltype(void(Op::kStores))> {
  static constexpr bool value = Op::kStores;
};
template <class Op>
constexpr bool kStores = policy_stores<Op>::value;

// Writes the result of a row of n elements, whose state is a, at p: every
// kernel and loop below ends a row here.
template <class Op, class Out>
GPUVEC_HD void store_row(const Op& op, Out* p, const typename Op::Acc& a, int64_t n) {
  if constexpr (kStores<Op>) {
    op.store(p, a, n);
  } else {
    *p = op.template finish<Out>(a, n);
  }
}

// acc with K elements of each input folded in, elements j, j + step, ... of
// a row (v holds input k's): term by term in index order, exactly as one at a
// time; a policy that folds runs takes them as one run.
template <int K, class Op, class... In>
GPUVEC_HD typename Op::Acc add_values(const Op& op, typename Op::Acc acc, int64_t j, int64_t step,
                                      const Pack<In, K>&... v) {
  if constexpr (kFoldsRuns<Op>) {
    static_assert(sizeof...(In) == 1, "a policy that folds runs has one input");
    return op.combine(acc, op.run(v.v..., K));
  } else {
    for (int k = 0; k < K; ++k) acc = op.combine(acc, op.term(v.v[k]..., j + k * step));
    return acc;
  }
}

// A user's ReductionKernel state (gpuvec/kernels/_reduction.py): the
// reduce_type value, padded to whole 8-byte words, which the kernels move;
// without an identity, whether any element was seen, so that combine never
// takes a made-up starting value for a real one.
template <class V, bool WithIdentity>
struct alignas(8) UserState {
  V value;
};
template <class V>
struct alignas(8) UserState<V, false> {
  V value;
  int32_t seen;
};

// The largest block a caller may ask for: the kernels are compiled with
// __launch_bounds__ for it, so that the compiler keeps each thread within
// the 64 registers such a block leaves it, rather than letting the launch
// fail for want of registers.
constexpr int kMaxBlockThreads = GPUVEC_MAX_THREADS_PER_BLOCK;
constexpr int kWarp = 32;
// Loads in flight per thread of a row's walk.
constexpr int kRowUnroll = 4;
// Up to kMaxColumns side-by-side rows go to reduce_columns, whose threads
// keep kColumnUnroll loads in flight, one element each.
constexpr int kMaxColumns = 64;
constexpr int kColumnUnroll = 8;

// --- the CUDA kernels ---------------------------------------------------------------------------
#if defined(__CUDACC__)

// nvcc: internal linkage, as in gpuvec/map.hpp (no kernel registered twice);
// NVRTC finds the kernels by name.
#if !defined(__CUDACC_RTC__)
namespace {
#endif

constexpr unsigned kFullMask = 0xffffffffu;

// A state moved between the lanes of a warp one 32-bit word at a time, as
// `move` moves one word (a warp shuffle): a state may be any struct.
template <class A, class Move>
__device__ __forceinline__ A shuffle_words(A v, Move move) {
  static_assert(sizeof(A) % sizeof(int) == 0, "a state moves as 32-bit words");
  constexpr int kWords = sizeof(A) / sizeof(int);
  int words[kWords];
  memcpy(words, &v, sizeof(A));
#pragma unroll
  for (int k = 0; k < kWords; ++k) words[k] = move(words[k]);
  memcpy(&v, words, sizeof(A));
  return v;
}

// A state moved down a warp by `delta` lanes, within groups of `width` lanes.
template <class A>
__device__ __forceinline__ A shuffle_down(A v, int delta, int width) {
  return shuffle_words(v,
                       [=](int word) { return __shfl_down_sync(kFullMask, word, delta, width); });
}

// The total of each group of `width` lanes (a power of two), valid in the
// group's first lane. Every lane of the warp must take part.
template <class Op, class A>
__device__ __forceinline__ A group_total(const Op& op, A v, int width) {
  for (int delta = width / 2; delta > 0; delta >>= 1) {
    v = op.combine(v, shuffle_down(v, delta, width));
  }
  return v;
}

// The block's total, valid in thread 0. blockDim.x is a multiple of 32, and
// every thread of the block must take part.
template <class Op, class A>
__device__ __forceinline__ A block_total(const Op& op, A v) {
  __shared__ A warp_totals[kWarp];
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  v = group_total(op, v, kWarp);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / kWarp) ? warp_totals[lane] : op.identity();
    v = group_total(op, v, kWarp);
  }
  __syncthreads();  // warp_totals may be used again at once
  return v;
}

// A state read past the L1 cache, one 8-byte word at a time: what another
// block has just written.
template <class A>
__device__ __forceinline__ A load_cg(const A* p) {
  static_assert(sizeof(A) % sizeof(unsigned long long) == 0, "a state is whole 8-byte words");
  constexpr int kWords = sizeof(A) / sizeof(unsigned long long);
  unsigned long long words[kWords];
#pragma unroll
  for (int k = 0; k < kWords; ++k) {
    words[k] = __ldcg(reinterpret_cast<const unsigned long long*>(p) + k);
  }
  A v;
  memcpy(&v, words, sizeof(A));
  return v;
}

// The ticket of a grid that finishes in its last block. Each block calls this
// once, with every thread, after the threads that hold its states (`wrote`)
// have stored them; it returns true, in every thread, in the block that takes
// the last ticket, which then sees every block's states (read them with
// load_cg) and must set *ticket back to 0 for the next reduction on the
// stream. Which block is last varies from run to run; what the last block
// computes must not.
__device__ __forceinline__ bool arrive_last(unsigned int* ticket, bool wrote) {
  __shared__ bool last;
  if (wrote) __threadfence();  // the states are visible to every block before the ticket is taken
  __syncthreads();
  if (threadIdx.x == 0) {
    const bool is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (is_last) __threadfence();  // the last block reads the states only after its ticket
    last = is_last;
  }
  __syncthreads();
  return last;
}

// Writes a one-value result with write(total), given the block's total
// (valid in thread 0): at once for a one-block grid; otherwise each block
// leaves its total in partial[blockIdx.x], and the last block combines all
// of them in a fixed order (so the result is deterministic) and writes it.
// One launch instead of two.
template <class Op, class A, class Write>
__device__ __forceinline__ void finish_grid(const Op& op, A total, A* partial,
                                            unsigned int* ticket, Write write) {
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) write(total);
    return;
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
  if (!arrive_last(ticket, threadIdx.x == 0)) return;
  A acc = op.identity();
  for (unsigned k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
    acc = op.combine(acc, load_cg(partial + k));
  }
  acc = block_total(op, acc);
  if (threadIdx.x == 0) {
    write(acc);
    *ticket = 0;
  }
}

// --- one row of consecutive elements --------------------------------------

// The state of V lanes of a pack of each input, from element `first` on.
// The packs come by value, as in gpuvec/map.hpp's apply_lanes: one 16-byte
// load per pack.
template <int V, class Op, class... P>
__device__ __forceinline__ typename Op::Acc lane_terms(const Op& op, int64_t first,
                                                       const P... lanes) {
  return add_values(op, op.identity(), first, 1, lanes...);
}

// The reduction of n consecutive elements of each input, read V elements per
// load, into *result. Unrolling the grid-stride loop keeps several loads in
// flight per thread, which a reduction (one small read per element, nothing
// to write) needs to reach full memory bandwidth. Each block combines its
// threads with warp shuffles; a grid of several finishes in its last block.
template <int V, class Op, class Out, class... In>
__global__ void __launch_bounds__(kMaxBlockThreads)
    reduce_contiguous(int64_t n, const Op op, Out* result, typename Op::Acc* partial,
                      unsigned int* ticket, const In* __restrict__... in) {
  using A = typename Op::Acc;
  A acc = op.identity();
  const int64_t packs = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll 4
  for (int64_t p = first; p < packs; p += step) {
    acc =
        op.combine(acc, lane_terms<V>(op, p * V, reinterpret_cast<const Pack<In, V>*>(in)[p]...));
  }
  for (int64_t i = packs * V + first; i < n; i += step)
    acc = op.combine(acc, op.term(in[i]..., i));
  finish_grid(op, block_total(op, acc), partial, ticket,
              [&](const A& total) { store_row(op, result, total, n); });
}

// --- rows -------------------------------------------------------------------

// U elements of x, j, j + step, ..., at a stride.
template <int U, class T>
__device__ __forceinline__ Pack<T, U> gather(const T* x, int64_t stride, int64_t j, int64_t step) {
  Pack<T, U> v;
#pragma unroll
  for (int u = 0; u < U; ++u) v.v[u] = x[(j + u * step) * stride];
  return v;
}

// U elements of x at the offsets off[u][k].
template <int U, int R, class T>
__device__ __forceinline__ Pack<T, U> gather_at(const T* x, const int64_t (&off)[U][R], int k) {
  Pack<T, U> v;
#pragma unroll
  for (int u = 0; u < U; ++u) v.v[u] = x[off[u][k]];
  return v;
}

// U consecutive packs of V elements of x, p, p + step, ...: loaded together.
template <class T, int V, int U>
struct Packs {
  Pack<T, V> p[U];
};
template <int U, int V, class T>
__device__ __forceinline__ Packs<T, V, U> load_packs(const T* x, int64_t p, int64_t step) {
  Packs<T, V, U> r;
  const auto* packs = reinterpret_cast<const Pack<T, V>*>(x);
#pragma unroll
  for (int u = 0; u < U; ++u) r.p[u] = packs[p + u * step];
  return r;
}
template <int U, int V, class Op, class... In>
__device__ __forceinline__ typename Op::Acc add_packs(const Op& op, typename Op::Acc acc,
                                                      int64_t p, int64_t step,
                                                      const Packs<In, V, U>&... v) {
#pragma unroll
  for (int u = 0; u < U; ++u) acc = add_values(op, acc, (p + u * step) * V, 1, v.p[u]...);
  return acc;
}

// The state of elements first, first + step, ... of a row of n consecutive
// elements of each input, each starting on a pack boundary: the thread takes
// packs first, first + step, ... of V elements each, then its share of the
// last n % V elements. V times fewer loads for the same bytes.
template <class Op, class... In>
__device__ __forceinline__ typename Op::Acc accumulate_packs(const Op& op, int64_t n,
                                                             int64_t first, int64_t step,
                                                             const In*... x) {
  constexpr int V = kPackWidth<In...>;
  const int64_t count = n / V;
  typename Op::Acc acc = op.identity();
  int64_t p = first;
  for (; p + (kRowUnroll - 1) * step < count; p += kRowUnroll * step) {
    acc = add_packs<kRowUnroll, V>(op, acc, p, step, load_packs<kRowUnroll, V>(x, p, step)...);
  }
  for (; p < count; p += step) {
    acc = add_values(op, acc, p * V, 1, reinterpret_cast<const Pack<In, V>*>(x)[p]...);
  }
  for (int64_t j = count * V + first; j < n; j += step) acc = op.combine(acc, op.term(x[j]..., j));
  return acc;
}

// The same for a row of n elements at one stride per input, U loads at a time.
template <int U, class Op, int R, class... In, size_t... K>
__device__ __forceinline__ typename Op::Acc accumulate_strided(const Op& op, int64_t n,
                                                               const int64_t (&stride)[R],
                                                               int64_t first, int64_t step,
                                                               index_sequence<K...>,
                                                               const In*... x) {
  typename Op::Acc acc = op.identity();
  int64_t j = first;
  for (; j + (U - 1) * step < n; j += U * step) {
    acc = add_values(op, acc, j, step, gather<U>(x, stride[K], j, step)...);
  }
  for (; j < n; j += step) acc = op.combine(acc, op.term(x[j * stride[K]]..., j));
  return acc;
}

// The state of elements first, first + step, ... of a row of any layout.
template <class Op, class... In, size_t... K>
__device__ __forceinline__ typename Op::Acc accumulate(const Op& op,
                                                       const Layout<sizeof...(In)>& row,
                                                       int64_t first, int64_t step,
                                                       index_sequence<K...> k, const In*... x) {
  constexpr int R = sizeof...(In);
  if (row.ndim == 1) {
    bool packs = true;
    for (int r = 0; r < R; ++r) packs = packs && row.strides[r][0] == 1;
    constexpr int V = kPackWidth<In...>;
    packs = packs && ((reinterpret_cast<uintptr_t>(x) % (sizeof(In) * V) == 0) && ...);
    if (packs) return accumulate_packs(op, row.size, first, step, x...);
  }
  if (row.ndim <= 1) {
    const int64_t stride[R] = {(row.ndim == 1 ? row.strides[K][0] : 0)...};
    return accumulate_strided<kRowUnroll>(op, row.size, stride, first, step, k, x...);
  }
  typename Op::Acc acc = op.identity();
  int64_t j = first;
  for (; j + (kRowUnroll - 1) * step < row.size; j += kRowUnroll * step) {
    int64_t off[kRowUnroll][R];
#pragma unroll
    for (int u = 0; u < kRowUnroll; ++u) row.offsets(j + u * step, off[u]);
    acc = add_values(op, acc, j, step, gather_at<kRowUnroll>(x, off, K)...);
  }
  for (; j < row.size; j += step) {
    int64_t off[R];
    row.offsets(j, off);
    acc = op.combine(acc, op.term(x[off[K]]..., j));
  }
  return acc;
}

// The same for row r, whose offsets in `rows` are off (out's first).
template <class Op, class... In, size_t... K>
__device__ __forceinline__ typename Op::Acc row_state(const Op& op,
                                                      const ReduceLayout<sizeof...(In)>& L,
                                                      const int64_t* off, int64_t first,
                                                      int64_t step, index_sequence<K...> k,
                                                      const In*... x) {
  return accumulate(op, L.row, first, step, k, (x + off[K + 1])...);
}

// Every kernel below takes (L, op, out, partial, ticket, extra, in...), so
// that one parameter list launches any of them (a user's compiled kernels are
// launched by cudaLaunchKernel).

// A group of `group` (extra) lanes per row; a warp holds 32 / group rows.
template <class Op, class Out, class... In>
__global__ void __launch_bounds__(kMaxBlockThreads)
    reduce_groups(const ReduceLayout<sizeof...(In)> L, const Op op, Out* __restrict__ out,
                  typename Op::Acc*, unsigned int*, int group, const In* __restrict__... x) {
  constexpr int N = sizeof...(In) + 1;
  const int lane = threadIdx.x % kWarp;
  const int per_warp = kWarp / group;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp;
  // `first` is the same for the whole warp, so all its lanes shuffle together.
  for (int64_t first = warp * per_warp; first < L.rows.size; first += warps * per_warp) {
    const int64_t r = first + lane / group;
    const bool valid = r < L.rows.size;
    int64_t off[N] = {};
    auto acc = op.identity();
    if (valid) {
      L.rows.offsets(r, off);
      acc = row_state(op, L, off, lane % group, group, index_sequence_for<In...>{}, x...);
    }
    acc = group_total(op, acc, group);
    if (valid && lane % group == 0) store_row(op, out + off[0], acc, L.row.size);
  }
}

// Tiles of 32 side-by-side rows: lane = row of the tile, warp = slot of j.
// Blocks with different blockIdx.y take different j of the same tile and
// leave their states in partial[r * gridDim.y + blockIdx.y].
template <class Op, class Out, class... In>
__global__ void __launch_bounds__(kMaxBlockThreads)
    reduce_tiles(const ReduceLayout<sizeof...(In)> L, const Op op, Out* __restrict__ out,
                 typename Op::Acc* partial, unsigned int*, int, const In* __restrict__... x) {
  using A = typename Op::Acc;
  constexpr int N = sizeof...(In) + 1;
  __shared__ A states[kMaxBlockThreads];
  const int lane = threadIdx.x % kWarp;
  const int slot = threadIdx.x / kWarp;
  const int slots = blockDim.x / kWarp;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kWarp; first < L.rows.size;
       first += static_cast<int64_t>(gridDim.x) * kWarp) {
    const int64_t r = first + lane;
    const bool valid = r < L.rows.size;
    int64_t off[N] = {};
    A acc = op.identity();
    if (valid) {
      L.rows.offsets(r, off);
      acc = row_state(op, L, off, static_cast<int64_t>(blockIdx.y) * slots + slot,
                      static_cast<int64_t>(slots) * gridDim.y, index_sequence_for<In...>{}, x...);
    }
    states[threadIdx.x] = acc;
    __syncthreads();
    if (slot == 0) {
      for (int k = 1; k < slots; ++k) acc = op.combine(acc, states[k * kWarp + lane]);
      if (valid) {
        if (gridDim.y == 1) {
          store_row(op, out + off[0], acc, L.row.size);
        } else {
          partial[r * gridDim.y + blockIdx.y] = acc;
        }
      }
    }
    __syncthreads();
  }
}

// Combines the states that the threads of a block hold for m rows, thread t
// holding one of row t % m, into thread r < m: each row's `count` states,
// those of threads r, r + m, ..., pairwise in a fixed order. Every thread of
// the block must take part.
template <class Op, class A>
__device__ __forceinline__ A combine_columns(const Op& op, A v, A* states, int m, int count) {
  const int t = threadIdx.x, k = threadIdx.x / m;
  states[t] = v;
  __syncthreads();
  for (int width = count; width > 1;) {
    const int half = (width + 1) / 2;
    // States k and k + half of each row; those read are not written this round.
    if (k < width - half) states[t] = op.combine(states[t], states[t + half * m]);
    __syncthreads();
    width = half;
  }
  v = states[t];
  __syncthreads();  // states may be used again at once
  return v;
}

// The state of column r's elements first, first + step, ...
template <class Op, class... In, size_t... K>
__device__ __forceinline__ typename Op::Acc column_state(const Op& op,
                                                         const ReduceLayout<sizeof...(In)>& L,
                                                         int64_t r, int64_t first, int64_t step,
                                                         index_sequence<K...> k, const In*... x) {
  const int64_t stride[sizeof...(In)] = {L.row.strides[K][0]...};
  return accumulate_strided<kColumnUnroll>(op, L.row.size, stride, first, step, k,
                                           (x + r * L.rows.strides[K + 1][0])...);
}

// m <= kMaxColumns rows side by side (each input's row stride 1), each of n
// elements at a stride s: a tall, narrow matrix reduced over axis 0. Row r's
// element j is x[r + j * s]. Thread t takes row r = t % m at j = t / m of
// each tile of J = blockDim.x / m consecutive j, so one load of the whole
// block reads the J * m elements of a tile: neighbours in memory when s == m.
// Tile i goes to block i % gridDim.x and each thread keeps kColumnUnroll
// tiles' loads in flight, so the long dimension spreads over the whole GPU.
// Each block combines each row's J states in shared memory; a grid of several
// blocks leaves them in partial[blockIdx.x * m + r], and the last block to
// finish combines each row's gridDim.x states in a fixed order and writes
// the row.
template <class Op, class Out, class... In>
__global__ void __launch_bounds__(kMaxBlockThreads)
    reduce_columns(const ReduceLayout<sizeof...(In)> L, const Op op, Out* __restrict__ out,
                   typename Op::Acc* partial, unsigned int* ticket, int,
                   const In* __restrict__... x) {
  using A = typename Op::Acc;
  __shared__ A states[kMaxBlockThreads];
  const int m = static_cast<int>(L.rows.size);
  const int per_tile = static_cast<int>(blockDim.x) / m;
  const int r = threadIdx.x % m, k = threadIdx.x / m;
  A acc = op.identity();
  if (k < per_tile) {  // the blockDim.x % m threads past the last whole tile stay idle
    acc = column_state(op, L, r, static_cast<int64_t>(blockIdx.x) * per_tile + k,
                       static_cast<int64_t>(gridDim.x) * per_tile, index_sequence_for<In...>{},
                       x...);
  }
  acc = combine_columns(op, acc, states, m, per_tile);
  const bool holder = threadIdx.x < m;
  Out* const result = out + r * L.rows.strides[0][0];
  if (gridDim.x == 1) {
    if (holder) store_row(op, result, acc, L.row.size);
    return;
  }
  if (holder) partial[static_cast<int64_t>(blockIdx.x) * m + r] = acc;
  if (!arrive_last(ticket, holder)) return;
  A total = op.identity();
  if (k < per_tile) {
    for (unsigned b = k; b < gridDim.x; b += per_tile) {
      total = op.combine(total, load_cg(partial + static_cast<int64_t>(b) * m + r));
    }
  }
  total = combine_columns(op, total, states, m, per_tile);
  if (holder) store_row(op, result, total, L.row.size);
  if (threadIdx.x == 0) *ticket = 0;
}

// gridDim.x blocks per row: block b takes elements b * blockDim.x + t,
// stepping over the whole grid row; rows are spread over blockIdx.y. With a
// ticket (one row only), the grid's last block finishes the row.
template <class Op, class Out, class... In>
__global__ void __launch_bounds__(kMaxBlockThreads)
    reduce_blocks(const ReduceLayout<sizeof...(In)> L, const Op op, Out* __restrict__ out,
                  typename Op::Acc* partial, unsigned int* ticket, int,
                  const In* __restrict__... x) {
  using A = typename Op::Acc;
  constexpr int N = sizeof...(In) + 1;
  for (int64_t r = blockIdx.y; r < L.rows.size; r += gridDim.y) {
    int64_t off[N];
    L.rows.offsets(r, off);
    A acc =
        row_state(op, L, off, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                  static_cast<int64_t>(gridDim.x) * blockDim.x, index_sequence_for<In...>{}, x...);
    acc = block_total(op, acc);
    if (ticket != nullptr) {
      Out* const result = out + off[0];
      finish_grid(op, acc, partial, ticket,
                  [&](const A& total) { store_row(op, result, total, L.row.size); });
      continue;
    }
    if (threadIdx.x == 0) {
      if (gridDim.x == 1) {
        store_row(op, out + off[0], acc, L.row.size);
      } else {
        partial[r * gridDim.x + blockIdx.x] = acc;
      }
    }
  }
}

// The second pass where blocks shared rows: a warp per row combines its
// `parts` (extra) states and writes the output.
template <class Op, class Out, class... In>
__global__ void __launch_bounds__(kMaxBlockThreads)
    reduce_partials(const ReduceLayout<sizeof...(In)> L, const Op op, Out* __restrict__ out,
                    typename Op::Acc* partial, unsigned int*, int parts) {
  using A = typename Op::Acc;
  constexpr int N = sizeof...(In) + 1;
  const int lane = threadIdx.x % kWarp;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp;
  for (int64_t r = warp; r < L.rows.size; r += warps) {
    A acc = op.identity();
    for (int k = lane; k < parts; k += kWarp) acc = op.combine(acc, partial[r * parts + k]);
    acc = group_total(op, acc, kWarp);
    if (lane == 0) {
      int64_t off[N];
      L.rows.offsets(r, off);
      store_row(op, out + off[0], acc, L.row.size);
    }
  }
}

#if !defined(__CUDACC_RTC__)
}  // namespace
#endif

#endif  // __CUDACC__

// --- the host loop ------------------------------------------------------------------------------
#if !defined(__CUDACC__)

// A row is reduced in runs of kRun elements, each in order (a sum's in
// kHostLanes interleaved lanes, see run_state), whose states are combined
// pairwise, within blocks of consecutive runs and then across the blocks. So
// a sum's rounding error grows with log(n), not with n (summing 16384
// uniform numbers in order is off by about 130 float64 roundings, pairwise by
// a few), and the order depends only on the row's length, never on the
// number of threads: the result is deterministic. Rows go in tiles of up to
// kTile, each run of each row at once; the unit of parallel work is a block
// of a tile of rows.
constexpr int64_t kBlock = 1 << 14;
// Long enough that a run's own steps (the total of its lanes, a push on the
// cascade) cost little beside its elements, which a whole array's sum and
// dot feel: runs of 128 made them 10-15% slower, runs of 512 a float64 sum
// about 5%.
constexpr int64_t kRun = 2048;
constexpr int kTile = 16;
// The levels of a Cascade: one per bit of the number of runs in a block.
constexpr int kLevels = 8;
static_assert(kBlock / kRun <= int64_t(1) << (kLevels - 1), "a block's runs fit the levels");
constexpr int kHostLanes = 8;

// Marks a lambda whose body must be inlined where it is called (see
// Host::vectorized).
#define GPUVEC_ALWAYS_INLINE __attribute__((always_inline))

template <class Op, class Acc>
Acc pairwise_total(const Op& op, const Acc* v, int64_t n) {
  if (n <= 8) {
    Acc s = v[0];
    for (int64_t i = 1; i < n; ++i) s = op.combine(s, v[i]);
    return s;
  }
  const int64_t half = n / 2;
  return op.combine(pairwise_total(op, v, half), pairwise_total(op, v + half, n - half));
}

// Combines the states of consecutive runs of `width` rows pairwise as they
// arrive, like a binary counter: once 2^k runs have come, level k holds their
// total. The rows share the counter. `levels` holds kLevels * width states.
template <class Op, class Acc>
class Cascade {
 public:
  Cascade(Acc* levels, int64_t width) : level_(levels), width_(width) {}
  // Pushes the next run's states, one per row.
  void push(const Op& op, Acc* a) {
    int k = 0;
    for (int64_t c = count_++; c & 1; c >>= 1, ++k) {
      const Acc* level = level_ + k * width_;
      for (int64_t i = 0; i < width_; ++i) a[i] = op.combine(level[i], a[i]);
    }
    Acc* level = level_ + k * width_;
    for (int64_t i = 0; i < width_; ++i) level[i] = a[i];
  }
  // The total of every run pushed, or the identity for none.
  void total(const Op& op, Acc* t) const {
    for (int64_t i = 0; i < width_; ++i) t[i] = op.identity();
    bool empty = true;
    for (int k = 0; k < kLevels; ++k) {
      if ((count_ >> k) & 1) {
        const Acc* level = level_ + k * width_;
        for (int64_t i = 0; i < width_; ++i) t[i] = empty ? level[i] : op.combine(level[i], t[i]);
        empty = false;
      }
    }
  }

 private:
  Acc* level_;
  int64_t width_;
  int64_t count_ = 0;
};

// The state of elements first, ..., first + len - 1 of a row, whose element
// first + k has the state term(k) and, for a policy that folds runs, the
// value value(k): in index order, or in kHostLanes interleaved lanes for the
// sums (a run folded into one sum is a chain of dependent adds, each waiting
// for the last; lanes the compiler keeps in vector registers instead, added
// in a fixed order); a policy that folds runs takes the run at once
// (Variance: two passes over it while it is in cache). Host::vectorized<T>
// may compile the loop for a wider instruction set, by the type T of the
// elements it reads.
template <class T, class Host, class Op, class Term, class Value>
typename Op::Acc run_state(const Op& op, int len, Term term, Value value) {
  return Host::template vectorized<T>([&]() GPUVEC_ALWAYS_INLINE {
    if constexpr (kFoldsRuns<Op>) {
      decltype(value(0)) values[kRun];
      for (int k = 0; k < len; ++k) values[k] = value(k);
      return op.run(values, len);
    } else if constexpr (kLanes<Op>) {
      typename Op::Acc lane[kHostLanes];
      for (int l = 0; l < kHostLanes; ++l) lane[l] = op.identity();
      int k = 0;
      for (; k + kHostLanes <= len; k += kHostLanes) {
        for (int l = 0; l < kHostLanes; ++l) lane[l] = op.combine(lane[l], term(k + l));
      }
      for (; k < len; ++k) lane[0] = op.combine(lane[0], term(k));
      return op.combine(op.combine(op.combine(lane[0], lane[1]), op.combine(lane[2], lane[3])),
                        op.combine(op.combine(lane[4], lane[5]), op.combine(lane[6], lane[7])));
    } else {
      typename Op::Acc acc = op.identity();
      for (int k = 0; k < len; ++k) acc = op.combine(acc, term(k));
      return acc;
    }
  });
}

// Where rows of more than one block left their block states, and how they
// become the output: on the calling thread alone (there are a hundredth as
// many states as elements or fewer, and a second parallel loop would be a
// second wait for a worker whose core another program holds).
template <class Op, int N, class Out>
void finish_rows(const Layout<N>& rows, const Op& op, int64_t n, int64_t blocks,
                 const std::vector<typename Op::Acc>& partial, Out* out) {
  for (int64_t row_index = 0; row_index < rows.size; ++row_index) {
    int64_t off[N];
    rows.offsets(row_index, off);
    store_row(op, out + off[0], pairwise_total(op, &partial[row_index * blocks], blocks), n);
  }
}

// The state of element j of a row, whose value in input r is
// in[r][base[r] + offset(r)].
template <class Op, class Offset, class... In, size_t... K>
GPUVEC_ALWAYS_INLINE inline typename Op::Acc term_at(const Op& op, const int64_t* base,
                                                     Offset offset, int64_t j,
                                                     index_sequence<K...>, const In*... in) {
  return op.term(in[base[K] + offset(K)]..., j);
}

template <class T, class...>
struct first_of {
  using type = T;
};
template <class T, class... Rest>
GPUVEC_ALWAYS_INLINE inline const T* first_input(const T* first, const Rest*...) {
  return first;
}

// Reduces the rows of the inputs into out: tiles of up to kTile rows, each
// run taken row after row. `host` runs the items: host.for_each(count,
// parallel, f) calls f(i, thread) for each i < count, on a thread pool
// where `parallel`.
template <class Host, class Op, class Out, class... In>
void reduce_tiles_on_host(const Host& host, const ReduceLayout<sizeof...(In)>& L, const Op& op,
                          Out* out, const In*... in) {
  constexpr int R = sizeof...(In);
  using Acc = typename Op::Acc;
  using T = typename first_of<In...>::type;
  const Layout<R + 1>& rows = L.rows;
  const Layout<R>& row = L.row;
  const int64_t m = rows.size, n = row.size;
  const int64_t tiles = (m + kTile - 1) / kTile;
  const int64_t blocks = n > kBlock ? (n + kBlock - 1) / kBlock : 1;
  const bool parallel = m * n > kParallelThreshold;
  // Rows of more than one block keep their block states here until the end.
  std::vector<Acc> partial(blocks > 1 ? m * blocks : 0);
  host.for_each(tiles * blocks, parallel, [&](int64_t item, int) {
    const int64_t tile = item / blocks, blk = item % blocks;
    const int64_t r0 = tile * kTile;
    const int count = static_cast<int>(m - r0 < kTile ? m - r0 : kTile);
    const int64_t begin = blk * kBlock;
    const int64_t end = begin + kBlock < n ? begin + kBlock : n;
    int64_t base[kTile][R];
    int64_t out_off[kTile];
    Acc acc[kTile], levels[kLevels * kTile];
    Cascade<Op, Acc> runs(levels, count);
    for (int i = 0; i < count; ++i) {
      int64_t off[R + 1];
      rows.offsets(r0 + i, off);
      for (int r = 0; r < R; ++r) base[i][r] = off[r + 1];
      out_off[i] = off[0];
    }
    // The run's element offsets, where the row has several dimensions.
    int64_t offsets[kRun][R];
    int64_t stride[R];  // where it has one (0 for none)
    bool unit = true;
    for (int r = 0; r < R; ++r) {
      stride[r] = row.ndim == 1 ? row.strides[r][0] : 0;
      unit = unit && stride[r] == 1;
    }
    const auto each = index_sequence_for<In...>{};
    const T* const x0 = first_input(in...);  // what a policy that folds runs reads
    for (int64_t first = begin; first < end; first += kRun) {
      const int len = static_cast<int>(first + kRun < end ? kRun : end - first);
      if (row.ndim > 1) {
        int k = 0;
        walk(row, first, first + len, [&](const int64_t(&off)[R]) {
          for (int r = 0; r < R; ++r) offsets[k][r] = off[r];
          ++k;
        });
      }
      for (int i = 0; i < count; ++i) {
        const int64_t* b = base[i];
        // Element first + k of input r is at b[r] + offset(k, r) in it.
        const auto state = [&](auto offset) GPUVEC_ALWAYS_INLINE {
          return run_state<T, Host>(
              op, len,
              [&](int k) GPUVEC_ALWAYS_INLINE {
                return term_at(
                    op, b, [&](int r) { return offset(k, r); }, first + k, each, in...);
              },
              [&](int k) GPUVEC_ALWAYS_INLINE { return x0[b[0] + offset(k, 0)]; });
        };
        if (row.ndim > 1) {
          acc[i] = state([&](int k, int r) { return offsets[k][r]; });
        } else if (unit) {
          acc[i] = state([&](int k, int) { return first + k; });
        } else {
          acc[i] = state([&](int k, int r) { return (first + k) * stride[r]; });
        }
      }
      runs.push(op, acc);
    }
    runs.total(op, acc);
    for (int i = 0; i < count; ++i) {
      if (blocks == 1) {
        store_row(op, out + out_off[i], acc[i], n);
      } else {
        partial[(r0 + i) * blocks + blk] = acc[i];
      }
    }
  });
  if (blocks > 1) finish_rows(rows, op, n, blocks, partial, out);
}

// The call a host-compiled ReductionKernel's entry takes (GPUVEC_REDUCE_ENTRY):
// the layouts (a ReduceLayout<number of inputs>), out, each input's first
// element, and gpuvec's thread pool, which runs item(context, i, thread) for
// each i < count and returns when all have run. The library needs nothing of
// gpuvec but this header.
struct HostReduceCall {
  const void* layout;
  void* out;
  const void* const* in;
  void (*run_items)(int64_t count, void (*item)(void* context, int64_t i, int thread),
                    void* context);
  // Where the library is built against gpuvec/cuda_emulation.h: the
  // gpuvec_emulation_block through which the user's failures are reported
  // (gpuvec/emulation.h).
  void* failures;
};
// 0; 1 where memory ran out; 2 where the user's code failed (an assert,
// __trap, an exception: reported through `failures`).
using ReduceEntry = int (*)(const HostReduceCall* call);

// The Host of reduce_tiles_on_host in a user's library: the pool's items one
// by one, the loops as compiled.
struct PoolHost {
  void (*run_items)(int64_t, void (*)(void*, int64_t, int), void*);
  void* failures;

  template <class F>
  void for_each(int64_t count, bool parallel, F&& f) const {
#if defined(GPUVEC_EMULATION)
    // Each item contains its own failures: on a thread of the pool, none
    // may leave it.
    gpuvec_emulation_block* const context = static_cast<gpuvec_emulation_block*>(failures);
    const auto item = [&f, context](int64_t i, int thread) {
      ::gpuvec_emu::run_contained(context, [&] { f(i, thread); });
    };
#else
    auto& item = f;
#endif
    using Body = std::remove_reference_t<decltype(item)>;
    if (!parallel || count <= 1) {
      for (int64_t i = 0; i < count; ++i) item(i, 0);
      return;
    }
    run_items(
        count,
        [](void* context, int64_t i, int thread) { (*static_cast<Body*>(context))(i, thread); },
        const_cast<void*>(static_cast<const void*>(&item)));
  }
  template <class T, class F>
  static auto vectorized(const F& f) {
    return f();
  }
};

template <class Op, class Out, class... In, size_t... K>
int reduce_entry_of(const HostReduceCall& c, index_sequence<K...>) {
  const auto reduce = [&] {
    reduce_tiles_on_host(PoolHost{c.run_items, c.failures},
                         *static_cast<const ReduceLayout<sizeof...(In)>*>(c.layout), Op{},
                         static_cast<Out*>(c.out), static_cast<const In*>(c.in[K])...);
  };
#if defined(GPUVEC_EMULATION)
  // The user's code runs outside the items too (the finish of rows that took
  // several blocks).
  const int failed =
      ::gpuvec_emu::run_contained(static_cast<gpuvec_emulation_block*>(c.failures), reduce);
  return failed == 0 ? 0 : failed == 2 ? 1 : 2;
#else
  try {
    reduce();
    return 0;
  } catch (...) {  // std::bad_alloc: nothing else throws
    return 1;
  }
#endif
}

template <class Op, class Out, class... In>
int reduce_entry(const void* call) {
  return reduce_entry_of<Op, Out, In...>(*static_cast<const HostReduceCall*>(call),
                                         index_sequence_for<In...>{});
}

// GPUVEC_REDUCE_ENTRY(name, Op, Out, In...): the exported entry `name` of
// policy Op reducing inputs of types In... into Out (a ReduceEntry).
#define GPUVEC_REDUCE_ENTRY(name, Op, Out, ...)                                  \
  extern "C" __attribute__((visibility("default"))) int name(const void* call) { \
    return ::gpuvec::reduce_entry<Op, Out, __VA_ARGS__>(call);                   \
  }

#endif  // !__CUDACC__

// --- the launch plan ----------------------------------------------------------------------------
#if !defined(__CUDACC_RTC__)

// The kernels of a launch, in the order a user's compiled kernel lists its
// instances (gpuvec/kernels/_reduction.py).
enum class ReduceKernel : int {
  kContiguousPacks = 0,  // reduce_contiguous<V>
  kContiguous = 1,       // reduce_contiguous<1>: an input not aligned to a pack
  kGroups = 2,
  kTiles = 3,
  kColumns = 4,
  kBlocks = 5,
  kPartials = 6,  // the second pass after kTiles or kBlocks
};
constexpr int kReduceKernels = 7;

inline const char* reduce_kernel_name(ReduceKernel kernel) {
  switch (kernel) {
    case ReduceKernel::kContiguousPacks:
    case ReduceKernel::kContiguous:
      return "reduce_contiguous";
    case ReduceKernel::kGroups:
      return "reduce_groups";
    case ReduceKernel::kTiles:
      return "reduce_tiles";
    case ReduceKernel::kColumns:
      return "reduce_columns";
    case ReduceKernel::kBlocks:
      return "reduce_blocks";
    case ReduceKernel::kPartials:
      return "reduce_partials";
  }
  return "reduce";
}

// Where a launch's blocks leave their states.
enum class ReducePartials : int {
  kNone = 0,
  kStream = 1,     // the stream's scratch (what a single-pass finish uses)
  kAllocated = 2,  // memory of partial_bytes, for this launch
};

struct ReducePlan {
  ReduceKernel kernel = ReduceKernel::kGroups;
  unsigned grid_x = 1, grid_y = 1;
  int threads = 0;
  int extra = 0;  // reduce_groups' group; the parts of each row that reduce_partials combines
  ReducePartials partials = ReducePartials::kNone;
  int64_t partial_bytes = 0;
  bool ticket = false;         // the grid finishes in its last block (the stream's ticket)
  unsigned second_blocks = 0;  // > 0: reduce_partials runs after, on this many blocks
};

// What the plan needs of the device and the backend.
struct ReduceDevice {
  int sms;                // streaming multiprocessors
  int64_t scratch_bytes;  // a stream's scratch for states
  int64_t max_blocks;     // the most blocks a single-pass grid may have
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t clamp_to(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
// Enough blocks for `work` items at one item per thread, capped at
// `per_sm` resident blocks per SM; grid-stride loops cover the rest.
inline int64_t grid_for(int64_t work, int threads, int64_t per_sm, int sms) {
  return clamp_to(ceil_div(work, threads), 1, static_cast<int64_t>(sms) * per_sm);
}

// Which kernel reduces the rows of L, over inputs whose first elements are at
// data[k] (their memory's itemsize[k]), with states of acc_size bytes, on
// blocks of `threads`.
template <int R>
ReducePlan plan_reduce(const ReduceLayout<R>& L, const void* const (&data)[R],
                       const size_t (&itemsize)[R], int64_t acc_size, int threads,
                       const ReduceDevice& device) {
  ReducePlan plan;
  plan.threads = threads;
  const int64_t m = L.rows.size, n = L.row.size;
  const int64_t sms = device.sms;
  if (m == 1 && L.row.contiguous()) {
    // One row of consecutive elements. One wave of resident blocks at most,
    // each thread summing at least four loads: the states stay few enough
    // for one block to combine.
    size_t largest = 1;
    for (int k = 0; k < R; ++k) largest = itemsize[k] > largest ? itemsize[k] : largest;
    const int V = pack_width(largest);
    bool packs = true;
    for (int k = 0; k < R; ++k) {
      packs = packs && reinterpret_cast<uintptr_t>(data[k]) % (itemsize[k] * V) == 0;
    }
    plan.kernel = packs ? ReduceKernel::kContiguousPacks : ReduceKernel::kContiguous;
    const int64_t loads = packs ? n / V : n;
    const int64_t most = device.max_blocks < device.scratch_bytes / acc_size
                             ? device.max_blocks
                             : device.scratch_bytes / acc_size;
    const int64_t per_sm = 2048 / threads > 1 ? 2048 / threads : 1;
    const int64_t blocks =
        clamp_to(grid_for((loads + 3) / 4, threads, per_sm, device.sms), 1, most);
    plan.grid_x = static_cast<unsigned>(blocks);
    if (blocks > 1) {
      plan.partials = ReducePartials::kStream;
      plan.ticket = true;
    }
    return plan;
  }
  bool columns = L.rows.ndim == 1 && L.row.ndim == 1 && n > 1 && m <= kMaxColumns && m <= threads;
  for (int k = 0; k < R; ++k) columns = columns && L.rows.strides[k + 1][0] == 1;
  if (columns) {
    plan.kernel = ReduceKernel::kColumns;
    const int64_t tiles = ceil_div(n, threads / m);
    // One wave of blocks that every SM can hold at once whatever the
    // kernel's registers: __launch_bounds__(1024) leaves a thread at most
    // 64, so an SM holds 1024 threads, each with kColumnUnroll loads in
    // flight. Fewer where a thread would get fewer than 4 * kColumnUnroll
    // tiles.
    const int64_t wave = sms * (1024 / threads > 1 ? 1024 / threads : 1);
    int64_t blocks = clamp_to(ceil_div(tiles, 4 * kColumnUnroll), 1, wave);
    if (blocks > 1) {
      // Where three quarters of the blocks' states fit in the stream's
      // scratch, a slightly smaller grid saves an allocation: with
      // kColumnUnroll loads in flight per thread, the grid still keeps the
      // memory busy.
      const int64_t fit = device.scratch_bytes / (m * acc_size);
      if (blocks > fit && 4 * fit >= 3 * blocks) blocks = fit;
      plan.ticket = true;
      if (blocks <= fit) {
        plan.partials = ReducePartials::kStream;
      } else {
        plan.partials = ReducePartials::kAllocated;
        plan.partial_bytes = blocks * m * acc_size;
      }
    }
    plan.grid_x = static_cast<unsigned>(blocks);
    return plan;
  }
  // About what the GPU runs at once: more threads or blocks than this gain
  // little, fewer leave it idle.
  const int64_t enough_threads = sms * 1024, enough_blocks = sms * 8;
  // Each thread should take at least this many elements of a split row.
  constexpr int64_t kPerThread = 8;
  int64_t parts = 1;
  const bool side_by_side = L.rows.ndim > 0 && (L.rows.strides[1][L.rows.ndim - 1] == 1 ||
                                                L.rows.strides[1][L.rows.ndim - 1] == -1);
  int group = 1;
  while (group < kWarp && group * 4 < n) group *= 2;
  // Tiles leave lanes idle below 32 rows: under 16, other shapes do better.
  // (Up to kMaxColumns rows at one stride went to reduce_columns above.)
  if (side_by_side && n > 1 && m >= kWarp / 2) {
    plan.kernel = ReduceKernel::kTiles;
    const int64_t slots = threads / kWarp;
    plan.grid_x = static_cast<unsigned>(clamp_to(ceil_div(m, kWarp), 1, sms * 16));
    parts = clamp_to(ceil_div(enough_blocks, plan.grid_x), 1, ceil_div(n, slots * kPerThread));
    parts = clamp_to(parts, 1, 65535);
    plan.grid_y = static_cast<unsigned>(parts);
  } else if (n <= 1024 || m * group >= enough_threads) {
    plan.kernel = ReduceKernel::kGroups;
    plan.extra = group;
    const int64_t warps = ceil_div(m, kWarp / group);
    plan.grid_x = static_cast<unsigned>(grid_for(warps * kWarp, threads, 16, device.sms));
    return plan;
  } else {
    plan.kernel = ReduceKernel::kBlocks;
    parts = clamp_to(ceil_div(enough_blocks, m), 1, ceil_div(n, threads * kPerThread));
    plan.grid_x = static_cast<unsigned>(parts);
    plan.grid_y = static_cast<unsigned>(clamp_to(m, 1, 65535));
  }
  if (parts == 1) return plan;
  plan.extra = static_cast<int>(parts);
  if (plan.kernel == ReduceKernel::kBlocks && m == 1 && parts * acc_size <= device.scratch_bytes) {
    plan.partials = ReducePartials::kStream;
    plan.ticket = true;
    return plan;
  }
  plan.partials = ReducePartials::kAllocated;
  plan.partial_bytes = m * parts * acc_size;
  plan.second_blocks = static_cast<unsigned>(grid_for(m * kWarp, threads, 16, device.sms));
  return plan;
}

#endif  // !__CUDACC_RTC__

}  // namespace gpuvec

#endif  // GPUVEC_REDUCE_HPP
