// The row reductions of gpuvec/reduce.h, shared by the CUDA and host backends.
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

// The Euclidean norm as scale * sqrt(ssq), where scale is the largest |x| so
// far and ssq the sum of (|x| / scale)^2, as LAPACK's nrm2 does: no square is
// ever formed of a huge or tiny number, so [1e200, 1e200] and [1e-200,
// 1e-200] neither overflow nor underflow. A NaN element makes ssq NaN.
struct Nrm2 {
  struct Acc {
    double scale;
    double ssq;
  };
  GPUVEC_HD Acc identity() const { return {0, 0}; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    const double ax = math::fabs(static_cast<double>(x));
    if (ax != ax) return {0, ax};  // NaN: carried in ssq, where it propagates
    return {ax, ax > 0 ? 1.0 : 0.0};
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const {
    if (a.scale < b.scale) {
      const Acc t = a;
      a = b;
      b = t;
    }
    // Equal scales include 0 and 0, and inf and inf, whose ratio is no number.
    if (a.scale == b.scale) return {a.scale, a.ssq + b.ssq};
    const double r = b.scale / a.scale;
    return {a.scale, a.ssq + b.ssq * (r * r)};
  }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(a.scale * math::sqrt(a.ssq));
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

// The op that reduces row r.
template <class Op>
GPUVEC_HD Op for_row(const Op& op, int64_t) {
  return op;
}
GPUVEC_HD Deviations::Row for_row(const Deviations& op, int64_t r) { return op.row(r); }

}  // namespace gpuvec::ops::reduce

#endif  // GPUVEC_REDUCE_OPS_HPP
