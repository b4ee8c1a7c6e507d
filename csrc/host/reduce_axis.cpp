// Reductions over axes (gpuvec/reduce.h) on the host backend.
//
// Each row is cut into fixed blocks of kBlock elements. A block is reduced in
// runs of kRun elements, each in order, whose states are combined pairwise;
// the block states of a row are then combined pairwise too. So a sum's
// rounding error grows with log(n), not with n (summing 16384 uniform
// numbers in order is off by about 130 float64 roundings, pairwise by a few),
// and the order depends only on the row's length, never on the number of
// threads: the result is deterministic. The unit of parallel work is a block of a tile of
// up to kTile consecutive rows, walked side by side (element j of every row
// of the tile before element j + 1): a column reduction, whose neighbouring
// rows are neighbours in memory, then reads memory in order.
#include <stdint.h>

#include <type_traits>
#include <vector>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/walk.hpp"
#include "gpuvec/reduce_ops.hpp"

namespace gpuvec::host {
namespace {

constexpr int64_t kBlock = 1 << 14;
constexpr int64_t kRun = 128;
constexpr int kTile = 16;

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

// Combines the states of consecutive runs pairwise as they arrive, like a
// binary counter: once 2^k runs have come, level k holds their total. Needs
// one level per bit of the number of runs in a block.
template <class RowOp, class Acc>
class Cascade {
 public:
  void push(const RowOp& op, Acc a) {
    int k = 0;
    for (int64_t c = count_++; c & 1; c >>= 1, ++k) a = op.combine(level_[k], a);
    level_[k] = a;
  }
  // The total of every run pushed, or the identity for none.
  Acc total(const RowOp& op) const {
    Acc t = op.identity();
    bool empty = true;
    for (int k = 0; k < kLevels; ++k) {
      if ((count_ >> k) & 1) {
        t = empty ? level_[k] : op.combine(level_[k], t);
        empty = false;
      }
    }
    return t;
  }

 private:
  static constexpr int kLevels = 16;  // 2^16 runs: far more than kBlock / kRun
  Acc level_[kLevels];
  int64_t count_ = 0;
};

// Reduces the rows of x into out (operand 0 of `rows`) with op.
template <class Op, class T, class Out>
void run(const Layout<2>& rows, const Layout<1>& row, const Op& op, const T* x, Out* out) {
  using Acc = typename Op::Acc;
  const int64_t m = rows.size, n = row.size;
  const int64_t tiles = (m + kTile - 1) / kTile;
  const int64_t blocks = n > kBlock ? (n + kBlock - 1) / kBlock : 1;
  // Rows of more than one block keep their block states here until the end.
  std::vector<Acc> partial(blocks > 1 ? m * blocks : 0);
  const int64_t items = tiles * blocks;
#pragma omp parallel for if (m * n > kParallelThreshold) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    const int64_t tile = item / blocks, blk = item % blocks;
    const int64_t r0 = tile * kTile;
    const int count = static_cast<int>(m - r0 < kTile ? m - r0 : kTile);
    const int64_t begin = blk * kBlock;
    const int64_t end = begin + kBlock < n ? begin + kBlock : n;
    const T* base[kTile];
    int64_t out_off[kTile];
    Acc acc[kTile];
    Cascade<Op, Acc> runs[kTile];
    for (int i = 0; i < count; ++i) {
      int64_t off[2];
      rows.offsets(r0 + i, off);
      base[i] = x + off[1];
      out_off[i] = off[0];
    }
    auto visit = [&](int64_t j, int64_t offset) {
      for (int i = 0; i < count; ++i) acc[i] = op.combine(acc[i], op.term(base[i][offset], j));
    };
    for (int64_t first = begin; first < end; first += kRun) {
      const int64_t last = first + kRun < end ? first + kRun : end;
      for (int i = 0; i < count; ++i) acc[i] = op.identity();
      if (row.ndim <= 1) {
        const int64_t stride = row.ndim == 1 ? row.strides[0][0] : 0;
        for (int64_t j = first; j < last; ++j) visit(j, j * stride);
      } else {
        int64_t j = first;
        walk(row, first, last, [&](const int64_t(&off)[1]) { visit(j++, off[0]); });
      }
      for (int i = 0; i < count; ++i) runs[i].push(op, acc[i]);
    }
    for (int i = 0; i < count; ++i) acc[i] = runs[i].total(op);
    for (int i = 0; i < count; ++i) {
      if (blocks == 1) {
        out[out_off[i]] = op.template finish<Out>(acc[i], n);
      } else {
        partial[(r0 + i) * blocks + blk] = acc[i];
      }
    }
  }
  if (blocks == 1) return;
#pragma omp parallel for if (m * n > kParallelThreshold) schedule(static)
  for (int64_t r = 0; r < m; ++r) {
    int64_t off[2];
    rows.offsets(r, off);
    out[off[0]] = op.template finish<Out>(pairwise_total(op, &partial[r * blocks], blocks), n);
  }
}

}  // namespace

template <class T>
void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,
            void* out, double ddof, int, gpuvec_stream) {
  visit_reduce_op<T>(op, ddof, [&](auto f, auto out_type) {
    using Out = decltype(out_type);
    if constexpr (std::is_same_v<decltype(f), ops::reduce::Deviations>) {
      run(rows, row, f.variance(), x, static_cast<Out*>(out));
    } else {
      run(rows, row, f, x, static_cast<Out*>(out));
    }
  });
}

template void reduce<float>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const float*,
                            void*, double, int, gpuvec_stream);
template void reduce<double>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const double*,
                             void*, double, int, gpuvec_stream);

}  // namespace gpuvec::host
