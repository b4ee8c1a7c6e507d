// <cooperative_groups.h> in a kernel compiled for the host emulation: the
// thread block and tiles of a warp, with their barriers and collectives, over
// the emulation's __syncthreads, __syncwarp, shuffles and votes. Each call
// passes the caller's line on, so checked mode names the user's line, not
// this header's.
//
// Not here: coalesced_threads() (the emulation runs a warp's lanes one after
// another, so it cannot tell which lanes a GPU would run a branch with
// together), grid_group (this_grid().sync() needs a cooperative launch) and
// multi-block groups, and a tile's match_any/match_all.
#pragma once
#include <gpuvec/cuda_emulation.h>

namespace cooperative_groups {
namespace details {

inline unsigned int lane() { return gpuvec_emu::linear_thread() % warpSize; }
inline unsigned int block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
// The lanes of the size-n tile (n a power of two up to 32) that holds `lane`.
inline unsigned int tile_mask(unsigned int n, unsigned int lane) {
  return n == 32 ? 0xffffffffu : ((1u << n) - 1) << (lane & ~(n - 1));
}

}  // namespace details

// Any group, as the type-erased thread_group of CUDA: a whole block, or the
// threads of a warp named by a mask.
class thread_group {
 public:
  thread_group(bool block, unsigned int mask) : block_(block), mask_(mask) {}
  void sync(GPUVEC_EMU_SITE) const {
    if (block_) {
      __syncthreads(line, file);
    } else {
      __syncwarp(mask_, line, file);
    }
  }
  unsigned long long thread_rank() const {
    if (block_) return gpuvec_emu::linear_thread();
    return static_cast<unsigned int>(__popc(mask_ & ((1u << details::lane()) - 1)));
  }
  unsigned long long num_threads() const {
    return block_ ? details::block_threads() : static_cast<unsigned int>(__popc(mask_));
  }
  unsigned long long size() const { return num_threads(); }

 private:
  bool block_;
  unsigned int mask_;
};

class thread_block {
 public:
  void sync(GPUVEC_EMU_SITE) const { __syncthreads(line, file); }
  unsigned int thread_rank() const { return gpuvec_emu::linear_thread(); }
  unsigned int num_threads() const { return details::block_threads(); }
  unsigned int size() const { return num_threads(); }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 dim_threads() const { return blockDim; }
  dim3 group_dim() const { return blockDim; }
  operator thread_group() const { return thread_group(true, 0); }
};

inline thread_block this_thread_block() { return thread_block(); }

// A tile of N consecutive threads of a warp (N a power of two, at most 32).
template <unsigned int N>
class thread_block_tile {
  static_assert(N > 0 && N <= 32 && (N & (N - 1)) == 0,
                "a thread_block_tile has a power of two of threads, at most 32");

 public:
  thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
      : meta_rank_(meta_rank), meta_size_(meta_size) {}
  void sync(GPUVEC_EMU_SITE) const { __syncwarp(mask(), line, file); }
  unsigned int thread_rank() const { return details::lane() % N; }
  static constexpr unsigned int num_threads() { return N; }
  static constexpr unsigned int size() { return N; }
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }

  template <class T>
  T shfl(T value, unsigned int src_rank, GPUVEC_EMU_SITE) const {
    return __shfl_sync(mask(), value, static_cast<int>(src_rank), N, line, file);
  }
  template <class T>
  T shfl_down(T value, unsigned int delta, GPUVEC_EMU_SITE) const {
    return __shfl_down_sync(mask(), value, delta, N, line, file);
  }
  template <class T>
  T shfl_up(T value, unsigned int delta, GPUVEC_EMU_SITE) const {
    return __shfl_up_sync(mask(), value, delta, N, line, file);
  }
  template <class T>
  T shfl_xor(T value, unsigned int lane_mask, GPUVEC_EMU_SITE) const {
    return __shfl_xor_sync(mask(), value, static_cast<int>(lane_mask), N, line, file);
  }
  // The vote of the tile's threads, bit i being the tile's thread i.
  unsigned int ballot(int predicate, GPUVEC_EMU_SITE) const {
    const unsigned int base = details::lane() & ~(N - 1);
    return (__ballot_sync(mask(), predicate, line, file) >> base) &
           (N == 32 ? 0xffffffffu : (1u << N) - 1);
  }
  int any(int predicate, GPUVEC_EMU_SITE) const { return ballot(predicate, line, file) != 0; }
  int all(int predicate, GPUVEC_EMU_SITE) const {
    return ballot(predicate, line, file) == (N == 32 ? 0xffffffffu : (1u << N) - 1);
  }
  operator thread_group() const { return thread_group(false, mask()); }

 private:
  unsigned int mask() const { return details::tile_mask(N, details::lane()); }
  unsigned int meta_rank_, meta_size_;
};

template <unsigned int N>
inline thread_block_tile<N> tiled_partition(const thread_block&) {
  return thread_block_tile<N>(gpuvec_emu::linear_thread() / N,
                              (details::block_threads() + N - 1) / N);
}
template <unsigned int N, unsigned int M>
inline thread_block_tile<N> tiled_partition(const thread_block_tile<M>& parent) {
  static_assert(N <= M, "a tile is partitioned into smaller tiles");
  return thread_block_tile<N>(parent.thread_rank() / N, M / N);
}
// The run-time size form: a thread_group of `size` threads (a power of two up
// to 32) from a block.
inline thread_group tiled_partition(const thread_block&, unsigned int size) {
  return thread_group(false, details::tile_mask(size, details::lane()));
}

template <class Group>
inline void sync(const Group& group, GPUVEC_EMU_SITE) {
  group.sync(line, file);
}
template <class Group>
inline void synchronize(const Group& group, GPUVEC_EMU_SITE) {
  group.sync(line, file);
}

}  // namespace cooperative_groups
