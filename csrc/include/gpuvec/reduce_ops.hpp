// The row reductions of gpuvec_reduce (gpuvec/gpuvec.h), shared by the CUDA
// and host backends; gpuvec/op_table.h names each op's policy.
//
// Each is a small policy that both backends drive in the same way:
//   Acc               the running state of a run of elements: a plain struct
//                     of doubles (and int64s), which a warp shuffle can move;
//   identity()        the state of no elements;
//   term(x, j)        the state of the element x at index j of its row;
//   combine(a, b)     the state of two runs together. Backends combine runs in
//                     a fixed tree whose shape is theirs, so combine must give
//                     the same answer whichever run comes first (ArgMin breaks
//                     ties by the index, not by the order);
//   finish<Out>(a, n) the output of a row of n elements.
// A backend reduces row r with for_row(op, r), which is the op itself except
// for ops that carry per-row data (Deviations, the second pass of var).
#ifndef GPUVEC_REDUCE_OPS_HPP
#define GPUVEC_REDUCE_OPS_HPP

#include <stdint.h>

#include "gpuvec/ops.hpp"

namespace gpuvec::ops::reduce {

// Sums accumulate in double whatever the input type: the extra precision
// costs nothing in a memory-bound loop and keeps float32 sums accurate.
struct Sum {
  using Acc = double;
  GPUVEC_HD Acc identity() const { return 0; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    return x;
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return a + b; }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(a);
  }
};

// The sum with NaN counted as 0 (numpy.nansum).
struct NanSum : Sum {
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    return x != x ? Acc(0) : Acc(x);
  }
};

// The sum of |x| (BLAS asum).
struct AbsSum : Sum {
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    return math::fabs(Acc(x));
  }
};

// The sum divided by n: NaN for an empty row, as 0 / 0.
struct Mean : Sum {
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t n) const {
    return static_cast<Out>(a / static_cast<double>(n));
  }
};

// The mean of the elements that are not NaN (numpy.nanmean).
struct NanMean {
  struct Acc {
    double sum;
    double count;  // a double counts exactly up to 2^53
  };
  GPUVEC_HD Acc identity() const { return {0, 0}; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    return x != x ? Acc{0, 0} : Acc{static_cast<double>(x), 1};
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return {a.sum + b.sum, a.count + b.count}; }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(a.sum / a.count);
  }
};

struct Prod : Sum {
  GPUVEC_HD Acc identity() const { return 1; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return a * b; }
};

// Min and Max return NaN when any element is NaN, as NumPy does. The state is
// the element itself (as a double, which holds float32 and float64 exactly).
struct Min : Sum {
  GPUVEC_HD Acc identity() const { return INFINITY; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (a < b || a != a) ? a : b; }
};
struct Max : Sum {
  GPUVEC_HD Acc identity() const { return -INFINITY; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (a > b || a != a) ? a : b; }
};

// The index of the first minimum (maximum), or of the first NaN: NumPy's
// answer. The identity's index is larger than any real index, so every
// element, +inf included, wins against it.
template <bool Largest>
struct ArgExtreme {
  struct Acc {
    double value;
    int64_t index;
  };
  GPUVEC_HD Acc identity() const { return {Largest ? -INFINITY : INFINITY, INT64_MAX}; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t j) const {
    return {static_cast<double>(x), j};
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    const bool a_wins = Largest ? a.value > b.value : a.value < b.value;
    const bool b_wins = Largest ? b.value > a.value : b.value < a.value;
    if (a_wins) return a;
    if (b_wins) return b;
    return a.index < b.index ? a : b;
  }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return a.index;
  }
};
using ArgMin = ArgExtreme<false>;
using ArgMax = ArgExtreme<true>;

// The Euclidean norm in one pass, with Blue's three accumulators (the
// algorithm of LAPACK 3.10's dnrm2): squares of mid-sized |x| are summed as
// they are, while huge ones are scaled down by 2^-538 and tiny ones up by
// 2^537 before squaring, so [1e200, 1e200] and [1e-200, 1e-200] neither
// overflow nor underflow. Scaling by powers of two is exact and costs a
// multiply, not a division: the loop stays as fast as a sum. float32 input
// needs no scaling at all: its squares, in double, can neither overflow nor
// underflow. A NaN lands in `mid` (it fails both comparisons) and propagates.
struct Nrm2 {
  static constexpr double kTiny = 0x1p-511;  // below: scale up (LAPACK's tsml)
  static constexpr double kHuge = 0x1p+486;  // above: scale down (tbig)
  static constexpr double kUp = 0x1p+537;    // ssml
  static constexpr double kDown = 0x1p-538;  // sbig
  struct Acc {
    double small;  // sum of (|x| * kUp)^2 over |x| < kTiny
    double mid;    // sum of x^2 over the rest
    double big;    // sum of (|x| * kDown)^2 over |x| > kHuge
  };
  GPUVEC_HD Acc identity() const { return {0, 0, 0}; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    const double ax = math::fabs(static_cast<double>(x));
    if constexpr (sizeof(T) == sizeof(float)) return {0, ax * ax, 0};
    if (ax > kHuge) return {0, 0, (ax * kDown) * (ax * kDown)};
    if (ax < kTiny) return {(ax * kUp) * (ax * kUp), 0, 0};
    return {0, ax * ax, 0};
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const {
    return {a.small + b.small, a.mid + b.mid, a.big + b.big};
  }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    const bool mid_counts = a.mid > 0 || a.mid != a.mid;  // NaN must reach the result
    if (a.big > 0) {
      // Any mid-sized square is negligible or representable at the big scale.
      const double big = mid_counts ? a.big + (a.mid * kDown) * kDown : a.big;
      return static_cast<Out>(math::sqrt(big) / kDown);
    }
    if (a.small > 0 && mid_counts) {
      // Both matter: combine their roots as hypot does, larger one first.
      const double s = math::sqrt(a.small) / kUp, m = math::sqrt(a.mid);
      const double hi = s > m ? s : m, lo = s > m ? m : s;
      const double r = lo / hi;
      return static_cast<Out>(hi * math::sqrt(1 + r * r));
    }
    if (a.small > 0) return static_cast<Out>(math::sqrt(a.small) / kUp);
    return static_cast<Out>(math::sqrt(a.mid));
  }
};

// The second pass of var and std: the sum of squared deviations from the
// row's mean, which a first pass (Mean) wrote to means[r]. Two passes, as
// NumPy does, stay accurate for data far from zero (1e8 + noise), where a
// one-pass sum of squares loses every digit. The divisor is max(n - ddof, 0).
struct Deviations {
  using Acc = double;
  const double* means;
  double ddof;
  bool root;  // std: the square root of the variance

  struct Row : Sum {
    double mean;
    double ddof;
    bool root;
    template <class T>
    GPUVEC_HD Acc term(T x, int64_t) const {
      const double d = static_cast<double>(x) - mean;
      return d * d;
    }
    template <class Out>
    GPUVEC_HD Out finish(Acc a, int64_t n) const {
      const double divisor = static_cast<double>(n) - ddof;
      const double var = a / (divisor > 0 ? divisor : 0.0);
      return static_cast<Out>(root ? math::sqrt(var) : var);
    }
  };
  GPUVEC_HD Row row(int64_t r) const {
    Row op;
    op.mean = means[r];
    op.ddof = ddof;
    op.root = root;
    return op;
  }
};

// The op table's names for ops that have no policy of their own: var and std
// are Deviations, made with ddof by the dispatch (csrc/kit/dispatch.hpp); dot,
// of two inputs, is the backends' single-pass dot, never a row reduction.
struct Var {};
struct Std {};
struct Dot {};

// The op that reduces row r.
template <class Op>
GPUVEC_HD Op for_row(const Op& op, int64_t) {
  return op;
}
GPUVEC_HD Deviations::Row for_row(const Deviations& op, int64_t r) { return op.row(r); }

}  // namespace gpuvec::ops::reduce

#endif  // GPUVEC_REDUCE_OPS_HPP
