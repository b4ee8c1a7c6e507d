// What a fused row kernel (gpuvec/fusion/_rows.py) needs beyond the op
// table's functors and the reduction policies: the total of a reduction
// over one row, known to every thread that works on the row.
//
// A row kernel gives each row of its arrays to a warp (rows of up to 2048
// elements) or to a block (longer rows), and walks the row in passes,
// `for (j = lane; j < cols; j += width)`: a pass folds the row's elements
// into a reduction's state (a policy of gpuvec/reduce_ops.hpp, the eager
// reduction's own), warp_row_total or row_total combines the threads'
// states, and a later pass reads the row again (from cache) with that total
// in hand: softmax's max, then its sum, then the division, in one launch. A
// later pass computes again the element values it needs, which on a GPU
// costs less than a write and a read.
//
// In the host emulation a row kernel is launched with one thread per block,
// so a thread's state is already the row's total, and the kernel needs no
// barrier: the emulation runs it as a plain loop, without fibers. There an
// exp costs more than a trip to cache, so a pass keeps the values a later
// pass reads in a row_buffer.
#ifndef GPUVEC_ROWS_HPP
#define GPUVEC_ROWS_HPP

#include "gpuvec/reduce.hpp"

#if !defined(__CUDACC__)
#include <vector>
#endif

namespace gpuvec {

#if defined(__CUDACC__)
// Before each pass's loop: unrolled, a thread has several of its loads in
// flight at once, which a pass needs to read memory at full speed (one load
// at a time leaves it waiting on each).
#define GPUVEC_ROW_PASS _Pragma("unroll 4")

// The total of the block's states, in every thread. Every thread of the
// block must call it; blockDim.x is a multiple of 32.
template <class Op, class A>
__device__ __forceinline__ A row_total(const Op& op, A v) {
  __shared__ A total;
  v = block_total(op, v);
  if (threadIdx.x == 0) total = v;
  __syncthreads();
  v = total;
  __syncthreads();  // `total` may be written again at once, by the next pass
  return v;
}

// The total of the warp's states, in every lane: a row of a warp needs no
// barrier. Every lane of the warp must call it.
template <class Op, class A>
__device__ __forceinline__ A warp_row_total(const Op& op, A v) {
  v = group_total(op, v, kWarp);  // valid in lane 0, which every lane then reads
  return shuffle_words(v, [](int word) { return __shfl_sync(kFullMask, word, 0); });
}
#else
#define GPUVEC_ROW_PASS

template <class Op, class A>
inline A row_total(const Op&, A v) {
  return v;  // one thread per block: its state is the row's
}

// Room for `cols` values of type T, the K-th buffer of the host thread: a
// thread runs one row at a time, so its buffers hold the row it runs.
template <class T, int K>
inline T* row_buffer(int64_t cols) {
  static thread_local std::vector<T> buffer;
  if (static_cast<int64_t>(buffer.size()) < cols) buffer.resize(cols);
  return buffer.data();
}
#endif

}  // namespace gpuvec

#endif  // GPUVEC_ROWS_HPP
