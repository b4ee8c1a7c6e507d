// The reductions of gpuvec_reduce (gpuvec/gpuvec.h) on the host backend: the
// rows of x, over its last dimensions, and a reduction of every element as
// one row of the whole array; dot is that row's sum of products x * y.
//
// A row is reduced in runs, each in order, whose states are combined
// pairwise (gpuvec/reduce.hpp's host loop, which users' ReductionKernels
// run too), so the result is deterministic. Three walks:
//   - rows side by side in memory (a column reduction, such as the mean of a
//     C-ordered matrix over axis 0): memory is read in order, row of the
//     matrix after row, into one state per column (blocks of kColumnBlock);
//   - min, max, argmin and argmax of contiguous rows: a scan that the
//     compiler vectorizes (their results are exact, so any order gives them);
//   - anything else, a whole array and dot included: the engine's loop,
//     tiles of up to kTile rows, each run of each row at once (blocks of
//     kBlock).
// The unit of parallel work is a block of a chunk or tile of rows (or a part
// of a contiguous row); small reductions never wake the thread pool.
//
// A user's compiled ReductionKernel runs the engine's loop from its own
// library (run_map_reduce), on this thread pool.
#include <math.h>
#include <stdint.h>

#include <memory>
#include <type_traits>
#include <vector>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "gpuvec/reduce.hpp"
#include "gpuvec/reduce_ops.hpp"
#include "gpuvec/walk.hpp"
#include "isa.hpp"
#include "parallel.hpp"

namespace gpuvec::host {
namespace {

namespace r = ops::reduce;

// The host's own Host of the engine's loop (gpuvec/reduce.hpp): gpuvec's
// thread pool, and float32 loops compiled for AVX2 where the CPU has it (a
// float32 sum: 15% faster).
struct OwnHost {
  template <class F>
  void for_each(int64_t count, bool parallel, F&& f) const {
    host::for_each(count, parallel, f);
  }
  template <class T, class F>
  static auto vectorized(const F& f) {
    return with_avx2<T>(f);
  }
};

// Rows of the matrix that column_run folds into the states at once: a
// state is loaded and stored once per kColumnRows rows, not once per row.
// Moving a double state costs more than adding a float32 element to it;
// NumPy, which keeps float32 states, does not pay that. The rows are read
// side by side, a few streams that the hardware prefetches.
constexpr int kColumnRows = 8;

// state[c] = fold(state[c], c, k) for each column c < count and each k <
// len in order, kColumnRows values of k at a time; with AVX2 where the CPU
// has it (2048 x 2048 float32 on one thread: 18% faster).
template <class T, class S, class Fold>
void fold_rows(int len, int64_t count, S* state, Fold fold) {
  with_avx2<T>([&]() GPUVEC_INLINE {
    int k = 0;
    for (; k + kColumnRows <= len; k += kColumnRows) {
      for (int64_t c = 0; c < count; ++c) {
        S s = state[c];
        for (int i = 0; i < kColumnRows; ++i) s = fold(s, c, k + i);
        state[c] = s;
      }
    }
    for (; k < len; ++k) {
      for (int64_t c = 0; c < count; ++c) state[c] = fold(state[c], c, k);
    }
  });
}

// The states of a run of `len` consecutive j for `count` side-by-side rows:
// row c's element j is x[c + j * stride]. Memory is read in order, row of
// the matrix after row (kColumnRows of them at a time), with one state per
// column. A policy that folds runs (Variance) needs 2 * count doubles of
// `work`.
template <class Op, class T>
void column_run(const Op& op, const T* x, int64_t stride, int64_t first, int len, int64_t count,
                typename Op::Acc* acc, double* work) {
  const T* const x0 = x + first * stride;  // the run's first row
  if constexpr (kFoldsRuns<Op>) {
    // Variance::run's two passes, column by column: the run's sums and
    // means, then the squared deviations from them, while it is in cache,
    // all less the run's first element of the column.
    double* const mean = work;
    double* const q = work + count;
    for (int64_t c = 0; c < count; ++c) mean[c] = q[c] = 0;
    fold_rows<T>(len, count, mean, [&](double s, int64_t c, int k) {
      return s + (static_cast<double>(x0[k * stride + c]) - static_cast<double>(x0[c]));
    });
    for (int64_t c = 0; c < count; ++c) mean[c] /= len;
    fold_rows<T>(len, count, q, [&](double s, int64_t c, int k) {
      const double d =
          (static_cast<double>(x0[k * stride + c]) - static_cast<double>(x0[c])) - mean[c];
      return s + d * d;
    });
    for (int64_t c = 0; c < count; ++c) {
      acc[c] = op.of(len, x0[c], mean[c], q[c], x0 + c, stride);
    }
  } else {
    (void)work;
    for (int64_t c = 0; c < count; ++c) acc[c] = op.identity();
    fold_rows<T>(len, count, acc, [&](typename Op::Acc a, int64_t c, int k) {
      return op.combine(a, op.term(x0[k * stride + c], first + k));
    });
  }
}

// The totals of side-by-side rows from their blocks' states, block-major
// (partial[blk * m + c] for row c of m), into out: kGroup rows at a time, so
// that each cache line of states is read once. (Row-major states, as
// finish_rows takes, would cost the blocks a scattered store per row: 9% of
// a 4096 x 4096 column mean.)
template <class Op, class Out>
void finish_columns(const Layout<2>& rows, const Op& op, int64_t n, int64_t blocks,
                    const std::vector<typename Op::Acc>& partial, Out* out) {
  constexpr int64_t kGroup = 8;
  const int64_t m = rows.size;
  std::vector<typename Op::Acc> group(kGroup * blocks);
  for (int64_t c0 = 0; c0 < m; c0 += kGroup) {
    const int64_t width = m - c0 < kGroup ? m - c0 : kGroup;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      for (int64_t i = 0; i < width; ++i) group[i * blocks + blk] = partial[blk * m + c0 + i];
    }
    for (int64_t i = 0; i < width; ++i) {
      store_row(op, out + (c0 + i) * rows.strides[0][0],
                pairwise_total(op, &group[i * blocks], blocks), n);
    }
  }
}

// Side-by-side rows (x's row stride 1), each at one stride: chunks of
// columns, each run of a chunk read in memory order. Chunks are as wide as
// the matrix up to kMaxChunk columns, so that its rows are read in long
// stretches that the hardware prefetches (stretches of 1 KB run at memory
// latency, not bandwidth: 2.5 times slower); their states live in
// per-thread workspace. Threads share the work by blocks of kColumnBlock
// consecutive j rather than by narrower chunks, for the same reason.
template <class Op, class T, class Out>
void run_columns(const Layout<2>& rows, const Layout<1>& row, const Op& op, const T* x, Out* out) {
  using Acc = typename Op::Acc;
  // 32 KB of double states per chunk. A block is 2 runs, whose cascade
  // needs 2 levels: small blocks, so that there are many of them (8 for
  // 2048 x 2048), and a thread that gets less of its core takes fewer.
  constexpr int64_t kMaxChunk = 4096, kMinChunk = 64, kColumnRun = 128;
  constexpr int64_t kColumnBlock = 2 * kColumnRun;
  constexpr int kColumnLevels = 2;
  static_assert(kColumnBlock / kColumnRun <= 1 << (kColumnLevels - 1),
                "a block's runs fit the levels");
  const int64_t m = rows.size, n = row.size, stride = row.strides[0][0];
  const int64_t blocks = (n + kColumnBlock - 1) / kColumnBlock;
  const bool parallel = m * n > kParallelThreshold;
  const int threads = workers(parallel);
  int64_t chunks = (m + kMaxChunk - 1) / kMaxChunk;
  if (chunks * blocks < threads) {  // narrower chunks, to give every thread work
    const int64_t wanted = (threads + blocks - 1) / blocks;
    const int64_t most = (m + kMinChunk - 1) / kMinChunk;
    chunks = wanted < most ? wanted : most;
  }
  const int64_t width = (m + chunks - 1) / chunks;
  // A thread's workspace: a run's states, the cascade's levels, Variance's sums.
  const int64_t per_thread =
      (1 + kColumnLevels) * width * sizeof(Acc) + 2 * width * sizeof(double);
  const std::unique_ptr<char[]> workspace(new char[threads * per_thread]);
  std::vector<Acc> partial(blocks > 1 ? m * blocks : 0);
  for_each(chunks * blocks, parallel, [&](int64_t item, int thread) {
    const int64_t chunk = item / blocks, blk = item % blocks;
    const int64_t c0 = chunk * width;
    const int64_t count = m - c0 < width ? m - c0 : width;
    const int64_t begin = blk * kColumnBlock;
    const int64_t end = begin + kColumnBlock < n ? begin + kColumnBlock : n;
    char* const space = workspace.get() + thread * per_thread;
    Acc* const acc = reinterpret_cast<Acc*>(space);
    Cascade<Op, Acc> runs(acc + width, count);
    double* const work =
        reinterpret_cast<double*>(space + (1 + kColumnLevels) * width * sizeof(Acc));
    for (int64_t first = begin; first < end; first += kColumnRun) {
      const int len = static_cast<int>(first + kColumnRun < end ? kColumnRun : end - first);
      column_run(op, x + c0, stride, first, len, count, acc, work);
      runs.push(op, acc);
    }
    runs.total(op, acc);
    for (int64_t c = 0; c < count; ++c) {
      if (blocks == 1) {
        store_row(op, out + (c0 + c) * rows.strides[0][0], acc[c], n);
      } else {
        partial[blk * m + c0 + c] = acc[c];
      }
    }
  });
  if (blocks > 1) finish_columns(rows, op, n, blocks, partial, out);
}

// -- min, max, argmin and argmax of contiguous rows --------------------------

template <class Op>
struct Extreme {
  static constexpr bool kScans = false;
};
template <>
struct Extreme<r::Min> {
  static constexpr bool kScans = true, kLargest = false, kIndex = false;
};
template <>
struct Extreme<r::Max> {
  static constexpr bool kScans = true, kLargest = true, kIndex = false;
};
template <bool Largest>
struct Extreme<r::ArgExtreme<Largest>> {
  static constexpr bool kScans = true, kLargest = Largest, kIndex = true;
};

// Elements scanned at once: in the L1 cache when a second look finds the
// first index of their extreme.
constexpr int64_t kScanBlock = 4096;
// A contiguous row is split into parts of this many elements for threads.
constexpr int64_t kScanPart = 1 << 16;
// How far ahead of its loads scan_extreme asks for memory. The hardware's
// own prefetching leaves the scan waiting for data, more so with the NaN
// test beside the extremes: one thread on 2^22 elements ran 15% slower
// without it.
constexpr uintptr_t kPrefetchBytes = 4096;

// The largest (smallest) of x[0, n), NaN aside, and in *suspect whether an
// element may be NaN: x * 0 is NaN for NaN and for +-inf, so a block with an
// infinity is suspect too and gets an exact second look. Lanes of
// independent extremes and sums that the compiler keeps in vector registers.
template <bool Largest, class T>
T scan_extreme(const T* x, int64_t n, bool* suspect) {
  // 16 doubles or 32 floats: eight SSE registers of extremes, so that the
  // latency of max does not bound the loop (four run at half the speed).
  constexpr int L = 128 / sizeof(T);
  const T none = Largest ? -INFINITY : INFINITY;
  T best[L], zero[L];
  for (int l = 0; l < L; ++l) {
    best[l] = none;
    zero[l] = 0;
  }
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    // L elements are two cache lines. An address, not a pointer: past the
    // end of x it is never read (a prefetch does not fault).
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(x + i) + kPrefetchBytes;
    __builtin_prefetch(reinterpret_cast<const void*>(ahead));
    __builtin_prefetch(reinterpret_cast<const void*>(ahead + 64));
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      const T v = x[i + l];
      best[l] = (Largest ? v > best[l] : v < best[l]) ? v : best[l];
      zero[l] += v * T(0);
    }
  }
  T b = none, z = 0;
  for (int l = 0; l < L; ++l) {
    b = (Largest ? best[l] > b : best[l] < b) ? best[l] : b;
    z += zero[l];
  }
  for (; i < n; ++i) {
    const T v = x[i];
    b = (Largest ? v > b : v < b) ? v : b;
    z += v * T(0);
  }
  *suspect = z != z;
  return b;
}

// The index of the first element of x[0, n) equal to value, which is there.
template <class T>
int64_t first_equal(const T* x, int64_t n, T value) {
  constexpr int L = 64 / sizeof(T);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    T hits = 0;  // in T, so that the compare and the sum share vector lanes
#pragma omp simd reduction(+ : hits)
    for (int l = 0; l < L; ++l) hits += x[i + l] == value ? T(1) : T(0);
    if (hits != 0) break;
  }
  for (; i < n && !(x[i] == value); ++i) {
  }
  return i;
}

// The state of x[first, last) of a contiguous row, block by block: each
// block's extreme; for argmin and argmax, the first block that reaches the
// extreme of the part is remembered and searched for its first occurrence
// once, at the end. A suspect block is reduced element by element. The
// first NaN settles the answer, so the scan stops there.
template <class Op, class T>
typename Op::Acc scan_part(const Op& op, const T* x, int64_t first, int64_t last) {
  constexpr bool kLargest = Extreme<Op>::kLargest;
  typename Op::Acc acc = op.identity();   // of the suspect blocks (all blocks for min and max)
  T best = 0;                             // the extreme of the other blocks, first reached
  int64_t best_block = -1, best_len = 0;  // in this block
  for (int64_t b = first; b < last; b += kScanBlock) {
    const int64_t len = b + kScanBlock < last ? kScanBlock : last - b;
    bool suspect = false;
    const T v = scan_extreme<kLargest>(x + b, len, &suspect);
    if (suspect) {
      typename Op::Acc block = op.identity();
      for (int64_t j = b; j < b + len; ++j) block = op.combine(block, op.term(x[j], j));
      acc = op.combine(acc, block);
    } else if constexpr (Extreme<Op>::kIndex) {
      // Ties keep the earlier block: a later one must do strictly better.
      if (best_block < 0 || (kLargest ? v > best : v < best)) {
        best = v;
        best_block = b;
        best_len = len;
      }
    } else {
      acc = op.combine(acc, static_cast<double>(v));
    }
    if constexpr (Extreme<Op>::kIndex) {
      if (acc.value != acc.value) return acc;
    } else {
      if (acc != acc) return acc;
    }
  }
  if constexpr (Extreme<Op>::kIndex) {
    if (best_block >= 0) {
      const typename Op::Acc found{static_cast<double>(best),
                                   best_block + first_equal(x + best_block, best_len, best)};
      acc = op.combine(acc, found);
    }
  }
  return acc;
}

template <class Op, class T, class Out>
void run_scans(const Layout<2>& rows, const Layout<1>& row, const Op& op, const T* x, Out* out) {
  using Acc = typename Op::Acc;
  const int64_t m = rows.size, n = row.size;
  const int64_t parts = (n + kScanPart - 1) / kScanPart;
  std::vector<Acc> partial(m * parts);
  const bool parallel = m * n > kParallelThreshold;
  for_each(m * parts, parallel, [&](int64_t item, int) {
    const int64_t row_index = item / parts, part = item % parts;
    int64_t off[2];
    rows.offsets(row_index, off);
    const int64_t first = part * kScanPart;
    const int64_t last = first + kScanPart < n ? first + kScanPart : n;
    partial[item] = scan_part(op, x + off[1], first, last);
  });
  // Extremes are exact: the parts combine in any tree to the same answer.
  for (int64_t row_index = 0; row_index < m; ++row_index) {
    Acc acc = partial[row_index * parts];
    for (int64_t part = 1; part < parts; ++part) {
      acc = op.combine(acc, partial[row_index * parts + part]);
    }
    int64_t off[2];
    rows.offsets(row_index, off);
    store_row(op, out + off[0], acc, n);
  }
}

// Reduces the rows of x into out (operand 0 of `rows`) with op.
template <class Op, class T, class Out>
void run(const Layout<2>& rows, const Layout<1>& row, const Op& op, const T* x, Out* out) {
  if constexpr (Extreme<Op>::kScans) {
    if (row.ndim == 1 && row.strides[0][0] == 1) return run_scans(rows, row, op, x, out);
  }
  if (rows.ndim == 1 && rows.strides[1][0] == 1 && row.ndim == 1) {
    return run_columns(rows, row, op, x, out);
  }
  reduce_tiles_on_host(OwnHost{}, ReduceLayout<1>{rows, row}, op, out, x);
}

}  // namespace

template <class T>
void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,
            void* out, double ddof, int64_t plane, int, gpuvec_stream) {
  visit_reduce_op<T>(op, ddof, plane, [&](auto f, auto out_type, const std::string&) {
    using Out = decltype(out_type);
    if constexpr (std::is_same_v<decltype(f), r::Deviations>) {
      run(rows, row, f.variance(), x, static_cast<Out*>(out));
    } else {
      run(rows, row, f, x, static_cast<Out*>(out));
    }
  });
}

template <class T>
void dot(const Layout<2>& layout, const T* x, const T* y, T* result, int, gpuvec_stream) {
  // One row (a layout of no dimensions: every offset 0) of x * y, summed.
  reduce_tiles_on_host(OwnHost{}, ReduceLayout<2>{Layout<3>{}, layout}, r::Dot{}, result, x, y);
}

// run_map_reduce, a user's ReductionKernel, is in emulation/entries.cpp: it
// runs the user's code inside the emulation's sandbox.

GPUVEC_REDUCE_TYPES(GPUVEC_INSTANTIATE_REDUCE)
template void dot<float>(const Layout<2>&, const float*, const float*, float*, int, gpuvec_stream);
template void dot<double>(const Layout<2>&, const double*, const double*, double*, int,
                          gpuvec_stream);

}  // namespace gpuvec::host
