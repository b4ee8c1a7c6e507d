// The pieces of a reduction that reduce.cu (sum, dot) and reduce_axis.cu
// (reductions over axes) share: 16-byte packs, combining the states of a
// warp and of a block, and finishing a grid in its last block.
//
// `op` is any policy with identity() and combine(a, b) (gpuvec/reduce_ops.hpp);
// a state is a plain struct of doubles and int64s.
#ifndef GPUVEC_CUDA_BLOCK_REDUCE_CUH
#define GPUVEC_CUDA_BLOCK_REDUCE_CUH

#include <stdint.h>

#include <cstring>

namespace gpuvec::cuda {
// Internal linkage, as in map.cuh: each .cu file gets its own copy.
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

// V consecutive elements, loaded at once (16 bytes when V * sizeof(T) == 16).
// Passed by value: copying a whole aligned pack out of global memory is what
// makes the compiler emit one 16-byte load instead of V scalar ones.
template <class T, int V>
struct alignas(sizeof(T) * V) Lanes {
  T v[V];
};

// A state moved down a warp by `delta` lanes, within groups of `width` lanes,
// one 32-bit word at a time.
template <class A>
__device__ __forceinline__ A shuffle_down(A v, int delta, int width) {
  static_assert(sizeof(A) % sizeof(int) == 0, "a state moves as 32-bit words");
  constexpr int kWords = sizeof(A) / sizeof(int);
  int words[kWords];
  memcpy(words, &v, sizeof(A));
#pragma unroll
  for (int k = 0; k < kWords; ++k) words[k] = __shfl_down_sync(kFullMask, words[k], delta, width);
  memcpy(&v, words, sizeof(A));
  return v;
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
// stream (scratch.hpp). Which block is last varies from run to run; what the
// last block computes must not.
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
// One launch instead of two, with no allocation.
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

}  // namespace
}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_BLOCK_REDUCE_CUH
