// The reductions of gpuvec_reduce (gpuvec/gpuvec.h), shared by the CUDA and
// host backends; gpuvec/op_table.h names each op's policy.
//
// Each is a policy of gpuvec's reduction engine (gpuvec/reduce.hpp, which
// says what a policy is): Acc, identity(), term(x, j) (dot's term(x, y, j)),
// combine(a, b) and finish<Out>(a, n). The engine combines runs in a fixed
// tree whose shape is its own, so combine must give the same answer
// whichever run comes first (ArgMin breaks ties by the index, not by the
// order). kLanes marks the sums, which the host loop keeps in interleaved
// lanes; kFoldsRuns Variance, which takes values loaded together as one run;
// kStores MeanDeviation, which writes two results per row (store).
#ifndef GPUVEC_REDUCE_OPS_HPP
#define GPUVEC_REDUCE_OPS_HPP

#include "gpuvec/ops.hpp"  // and gpuvec/portable.hpp: int64_t, INFINITY under NVRTC too

// NVRTC compiles these policies too, for fused row kernels (gpuvec/rows.hpp),
// and has no standard headers.
#if !defined(__CUDACC_RTC__)
#include <stdint.h>
#endif

namespace gpuvec::ops::reduce {

// The reductions of integers (the rows with the `integers` trait), exact: in
// 64-bit integers, the width of every state of the engine (a state moves in
// 8-byte words), so NumPy's sum and prod wrap around, and its min, max,
// argmin and argmax compare integers, which a double cannot hold beyond
// 2^53. The caller has already converted x to the dtype NumPy computes in
// (int64 or uint64 for sum and prod). A row's integer policy is its
// policy's Whole<I>.
template <class I>
struct wide_of {
  using type = uint64_t;
};
template <>
struct wide_of<int8_t> {
  using type = int64_t;
};
template <>
struct wide_of<int16_t> {
  using type = int64_t;
};
template <>
struct wide_of<int32_t> {
  using type = int64_t;
};
template <>
struct wide_of<int64_t> {
  using type = int64_t;
};

template <class I>
GPUVEC_HD constexpr I lowest() {
  return is_signed_integer_v<I> ? static_cast<I>(wrapping_t<I>(1) << (8 * sizeof(I) - 1)) : I(0);
}
template <class I>
GPUVEC_HD constexpr I highest() {
  return static_cast<I>(~wrapping_t<I>(lowest<I>()));
}

// Sums and products accumulate modulo 2^64 and are cut to I's width once, at
// the end: the low bits of a sum or product do not depend on the higher ones.
template <class I>
struct WholeSum {
  using Acc = uint64_t;
  static constexpr bool kLanes = true;
  GPUVEC_HD Acc identity() const { return 0; }
  GPUVEC_HD Acc term(I x, int64_t) const { return static_cast<Acc>(x); }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return a + b; }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(static_cast<I>(a));
  }
};
template <class I>
struct WholeProd : WholeSum<I> {
  using Acc = uint64_t;
  static constexpr bool kLanes = false;
  GPUVEC_HD Acc identity() const { return 1; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return a * b; }
};
// The extremes compare in the 64-bit integer of I's signedness, which holds
// every value of I.
template <class I, bool Largest>
struct WholeExtreme {
  using Acc = typename wide_of<I>::type;
  GPUVEC_HD Acc identity() const { return Largest ? lowest<I>() : highest<I>(); }
  GPUVEC_HD Acc term(I x, int64_t) const { return x; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (Largest ? a > b : a < b) ? a : b; }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(static_cast<I>(a));
  }
};
// The index of the first extreme: ties go to the smaller index, so that the
// tree's order does not matter (as ArgExtreme's).
template <class I, bool Largest>
struct WholeArgExtreme {
  using Wide = typename wide_of<I>::type;
  struct Acc {
    Wide value;
    int64_t index;
  };
  GPUVEC_HD Acc identity() const { return {Largest ? lowest<I>() : highest<I>(), INT64_MAX}; }
  GPUVEC_HD Acc term(I x, int64_t j) const { return {x, j}; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const {
    if (Largest ? a.value > b.value : a.value < b.value) return a;
    if (Largest ? b.value > a.value : b.value < a.value) return b;
    return a.index < b.index ? a : b;
  }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return a.index;
  }
};

// Sums accumulate in double whatever the input type: the extra precision
// costs nothing in a memory-bound loop and keeps float32 sums accurate.
struct Sum {
  using Acc = double;
  static constexpr bool kLanes = true;
  template <class I>
  using Whole = WholeSum<I>;
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
  static constexpr bool kLanes = false;
  template <class I>
  using Whole = WholeProd<I>;
  GPUVEC_HD Acc identity() const { return 1; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return a * b; }
};

// Min and Max return NaN when any element is NaN, as NumPy does. The state is
// the element itself (as a double, which holds float32 and float64 exactly).
struct Min : Sum {
  static constexpr bool kLanes = false;
  template <class I>
  using Whole = WholeExtreme<I, false>;
  GPUVEC_HD Acc identity() const { return INFINITY; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (a < b || a != a) ? a : b; }
};
struct Max : Sum {
  static constexpr bool kLanes = false;
  template <class I>
  using Whole = WholeExtreme<I, true>;
  GPUVEC_HD Acc identity() const { return -INFINITY; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (a > b || a != a) ? a : b; }
};

// NanMax and NanMin leave NaN out (numpy.nanmax, numpy.nanmin): the state is
// NaN until a number comes, and a number wins against NaN, as C's fmax and
// fmin do, so a row of NaN alone gives NaN (Python warns about it, as NumPy
// does). Written out as Max and Min are, rather than calling the libraries'
// fmax and fmin, so that both backends make the same choices.
struct NanMax : Sum {
  static constexpr bool kLanes = false;
  template <class I>
  using Whole = WholeExtreme<I, true>;  // an integer is never NaN
  GPUVEC_HD Acc identity() const { return NAN; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (a > b || b != b) ? a : b; }
};
struct NanMin : Sum {
  static constexpr bool kLanes = false;
  template <class I>
  using Whole = WholeExtreme<I, false>;
  GPUVEC_HD Acc identity() const { return NAN; }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return (a < b || b != b) ? a : b; }
};

// The index of the first minimum (maximum), or of the first NaN: NumPy's
// answer. The identity's index is larger than any real index, so every
// element, +inf included, wins against it.
template <bool Largest>
struct ArgExtreme {
  template <class I>
  using Whole = WholeArgExtreme<I, Largest>;
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

// var and std in one pass: a run's state is its count, its mean and M2, the
// sum of squared deviations from that mean, and two runs combine with Chan,
// Golub and LeVeque's formula, so the data are read once. The deviations are
// taken from means, never from zero, and the mean is carried as an unevaluated
// sum of two doubles: a mean in one double is off by up to half an ulp, and
// every combination would carry that error into M2 (for 1e8 + noise, 1e-8 of
// the variance; NumPy's two passes, 1e-16). So the result is as accurate as
// NumPy's two passes over data far from zero, where a sum of squares loses
// every digit. The divisor is max(n - ddof, 0), NumPy's rule.
struct Variance {
  static constexpr double kLargest = 0x1.fffffffffffffp+1023;  // DBL_MAX
  struct Acc {
    double count;  // a double counts exactly up to 2^53
    double mean;   // the mean is mean + mean_lo, |mean_lo| <= ulp(mean) / 2
    double mean_lo;
    double m2;
  };
  static constexpr bool kFoldsRuns = true;  // run(): the engine's add_values
  double ddof;
  bool root;  // std: the square root of the variance

  // hi + lo == a + b exactly (Knuth's TwoSum): IEEE arithmetic, in any
  // rounding of a and b; the compilers must not reassociate (no -ffast-math).
  GPUVEC_HD static void two_sum(double a, double b, double& hi, double& lo) {
    hi = a + b;
    const double b_part = hi - a;
    lo = (a - (hi - b_part)) + (b - b_part);
  }

  GPUVEC_HD Acc identity() const { return {0, 0, 0, 0}; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    return {1, static_cast<double>(x), 0, 0};
  }
  // The state of `count` values given their mean as shift + shifted_mean and
  // their M2: how a backend that took the values at once (run) builds one.
  // The values themselves, v[0], v[stride], ..., are for MeanDeviation.
  template <class T>
  GPUVEC_HD Acc of(double count, double shift, double shifted_mean, double m2, const T*,
                   int64_t) const {
    Acc a{count, 0, 0, m2};
    two_sum(shift, shifted_mean, a.mean, a.mean_lo);
    return a;
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const {
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    // The larger run (for equal counts, the smaller mean) is the base: the
    // same bits whichever comes first, and the smaller correction.
    if (b.count > a.count ||
        (b.count == a.count && (b.mean < a.mean || (b.mean == a.mean && b.mean_lo < a.mean_lo)))) {
      const Acc t = a;
      a = b;
      b = t;
    }
    const double n = a.count + b.count;
    const double delta = (b.mean - a.mean) + (b.mean_lo - a.mean_lo);
    Acc r{n, 0, 0, a.m2 + b.m2 + delta * delta * (a.count * b.count / n)};
    double hi, lo;
    two_sum(a.mean, delta * (b.count / n), hi, lo);
    two_sum(hi, lo + a.mean_lo, r.mean, r.mean_lo);
    return r;
  }
  // The state of k > 0 consecutive values at once, in two passes over them
  // while they sit in registers or cache, less the first value (exact for
  // data far from zero): one division per run rather than one per element.
  // Four partial sums give the host compiler independent chains to put in
  // vector lanes.
  template <class T>
  GPUVEC_HD Acc run(const T* v, int k) const {
    const double v0 = static_cast<double>(v[0]);
    double s[4] = {0, 0, 0, 0};
    int i = 0;
    for (; i + 4 <= k; i += 4) {
      for (int l = 0; l < 4; ++l) s[l] += static_cast<double>(v[i + l]) - v0;
    }
    double sum = (s[0] + s[1]) + (s[2] + s[3]);
    for (; i < k; ++i) sum += static_cast<double>(v[i]) - v0;
    const double mean = sum / k;
    double q[4] = {0, 0, 0, 0};
    i = 0;
    for (; i + 4 <= k; i += 4) {
      for (int l = 0; l < 4; ++l) {
        const double d = (static_cast<double>(v[i + l]) - v0) - mean;
        q[l] += d * d;
      }
    }
    double m2 = (q[0] + q[1]) + (q[2] + q[3]);
    for (; i < k; ++i) {
      const double d = (static_cast<double>(v[i]) - v0) - mean;
      m2 += d * d;
    }
    return of(k, v0, mean, m2, v, 1);
  }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t n) const {
    // An inf or NaN element leaves the mean inf or NaN; NumPy's deviations
    // from it are then NaN (inf - inf), and so is the variance.
    if (!(math::fabs(a.mean) <= kLargest)) return static_cast<Out>(NAN);
    const double divisor = static_cast<double>(n) - ddof;
    const double var = a.m2 / (divisor > 0 ? divisor : 0.0);
    return static_cast<Out>(root ? math::sqrt(var) : var);
  }
};

// The mean and the variance (or std) of each row in one pass, from
// Variance's state: gpuvec's mean_var and mean_std, which write the row's
// mean at p[0] and its deviation at p[plane] (store). The mean is the state's
// mean + mean_lo rounded once: runs' sums of differences over their counts,
// combined exactly but for the correction delta * nb / n, so as accurate as
// Mean's sum / n (a float64 sum's error), not the same bits. An inf or NaN
// element leaves Variance's mean NaN, where NumPy's mean is +-inf or NaN by
// the sum of the elements that are not finite; so the state keeps that sum
// too, taken only where a run's M2 is not finite (which any inf or NaN makes
// NaN), so that finite data pay nothing for it but a compare per run.
struct MeanDeviation {
  struct Acc {
    Variance::Acc v;
    double nonfinite;  // the sum of the elements that are inf or NaN: 0 for none
  };
  static constexpr bool kFoldsRuns = true;
  static constexpr bool kStores = true;
  Variance variance;
  int64_t plane;  // from a row's mean to its deviation, in elements of the output

  template <class T>
  GPUVEC_HD static double nonfinite_part(T x) {
    const double d = static_cast<double>(x);
    return d - d == 0 ? 0.0 : d;  // inf - inf and NaN - NaN are NaN
  }
  // The sum of the elements of v[0], v[stride], ... (count of them) that are
  // not finite, where m2 says there may be some.
  template <class T>
  GPUVEC_HD static double nonfinite_sum(double m2, const T* v, int64_t stride, int64_t count) {
    double s = 0;
    if (!(math::fabs(m2) <= Variance::kLargest)) {
      for (int64_t i = 0; i < count; ++i) s += nonfinite_part(v[i * stride]);
    }
    return s;
  }

  GPUVEC_HD Acc identity() const { return {variance.identity(), 0}; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t j) const {
    return {variance.term(x, j), nonfinite_part(x)};
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const {
    return {variance.combine(a.v, b.v), a.nonfinite + b.nonfinite};
  }
  template <class T>
  GPUVEC_HD Acc of(double count, double shift, double shifted_mean, double m2, const T* v,
                   int64_t stride) const {
    return {variance.of(count, shift, shifted_mean, m2, v, stride),
            nonfinite_sum(m2, v, stride, static_cast<int64_t>(count))};
  }
  template <class T>
  GPUVEC_HD Acc run(const T* v, int k) const {
    const Variance::Acc a = variance.run(v, k);
    return {a, nonfinite_sum(a.m2, v, 1, k)};
  }
  // NumPy's mean: NaN for no elements (0 / 0), the sum of the elements that
  // are not finite where there are some, and +-inf where the sum of finite
  // elements overflows (the mean itself is finite: NumPy divides the sum).
  // Not NumPy's: a row whose values span more than the largest double
  // ([-DBL_MAX, 1.0]) overflows the state's differences, and gives NaN.
  GPUVEC_HD double mean(const Acc& a) const {
    if (a.nonfinite != 0) return a.nonfinite;  // +-inf, or NaN (NaN != 0)
    if (a.v.count == 0) return NAN;
    const double m = a.v.mean + a.v.mean_lo;
    const double sum = m * a.v.count;
    return math::fabs(sum) <= Variance::kLargest ? m : sum;
  }
  template <class Out>
  GPUVEC_HD void store(Out* p, const Acc& a, int64_t n) const {
    p[0] = static_cast<Out>(mean(a));
    p[plane] = variance.template finish<Out>(a.v, n);
  }
};

// count_nonzero, any and all: an element counts when x != 0, so NaN counts,
// as in NumPy. All three count, exactly, in an int64; any and all differ
// only in what they make of the count. Their terms ask nothing but x != 0,
// so they read bool x as it is (their rows' own_dtype trait: the dispatch
// compiles them, and only them, for T = bool).
struct CountNonzero {
  using Acc = int64_t;
  GPUVEC_HD Acc identity() const { return 0; }
  template <class T>
  GPUVEC_HD Acc term(T x, int64_t) const {
    return x != T(0);
  }
  GPUVEC_HD Acc combine(Acc a, Acc b) const { return a + b; }
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(a);
  }
};

// Some element is nonzero: false for no elements.
struct Any : CountNonzero {
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t) const {
    return static_cast<Out>(a > 0);
  }
};

// Every element is nonzero: true for no elements.
struct All : CountNonzero {
  template <class Out>
  GPUVEC_HD Out finish(Acc a, int64_t n) const {
    return static_cast<Out>(a == n);
  }
};

// The dot product: the sum of x * y, each product in double. A reduction of
// two inputs, which the boundary sends to the backends' dot (one row of every
// element), never through the dispatch of the one-input rows.
struct Dot : Sum {
  template <class T>
  GPUVEC_HD Acc term(T x, T y, int64_t) const {
    return static_cast<Acc>(x) * static_cast<Acc>(y);
  }
};

// The op table's names for var and std, which have no policy of their own:
// they are Deviations, made with ddof by the dispatch (csrc/kit/dispatch.hpp).
struct Var {};
struct Std {};
// mean_var and mean_std: MeanDeviations, made with ddof and the output's plane.
struct MeanVar {};
struct MeanStd {};

// How dispatch.hpp asks for var and std. `means` is a leftover of the old
// two-pass scheme (a first pass wrote the row means there) and is not read:
// the backends run variance(), until the dispatch builds a Variance itself.
struct Deviations {
  const double* means;
  double ddof;
  bool root;
  GPUVEC_HD Variance variance() const { return {ddof, root}; }
};

}  // namespace gpuvec::ops::reduce

#endif  // GPUVEC_REDUCE_OPS_HPP
