// The definitions of gpuvec's ops, shared by the CUDA and the host backend.
//
// Each op is a small functor that compiles for both the host and the device, so
// a new elementwise op is one line here plus its row in gpuvec/op_table.h, which
// names the functor. Both backends call the same functor, which is why
// they give bit-identical results for the correctly rounded ops (arithmetic,
// sqrt, comparisons; nvcc builds with -fmad=false so that it does not fuse
// a*b+c where the host compiler would not); the math library functions (exp,
// sin, pow, ...) agree to a few ulp.
#ifndef GPUVEC_OPS_HPP
#define GPUVEC_OPS_HPP

// NVRTC compiles this header too, for fused expressions (gpuvec/fusion), and
// has no standard headers: its math functions are built in, and
// portable.hpp gives the fixed-width types and is_same_v.
#if !defined(__CUDACC_RTC__)
#include <math.h>
#endif

#include "gpuvec/portable.hpp"  // GPUVEC_HD, uint8_t, is_same_v

namespace gpuvec::ops {

// The C math library by dtype: float calls expf, double calls exp, on the host
// and on the device alike (CUDA declares both for device code). Apart from
// fabs and sqrt these are not correctly rounded: the CUDA and the host
// libraries differ by a few ulp.
namespace math {
#define GPUVEC_MATH_1(name)                              \
  GPUVEC_HD float name(float x) { return ::name##f(x); } \
  GPUVEC_HD double name(double x) { return ::name(x); }
#define GPUVEC_MATH_2(name)                                          \
  GPUVEC_HD float name(float a, float b) { return ::name##f(a, b); } \
  GPUVEC_HD double name(double a, double b) { return ::name(a, b); }
GPUVEC_MATH_1(fabs)
GPUVEC_MATH_1(sqrt)
GPUVEC_MATH_1(exp)
GPUVEC_MATH_1(expm1)
GPUVEC_MATH_1(log)
GPUVEC_MATH_1(log1p)
GPUVEC_MATH_1(sin)
GPUVEC_MATH_1(cos)
GPUVEC_MATH_1(tan)
GPUVEC_MATH_1(asin)
GPUVEC_MATH_1(acos)
GPUVEC_MATH_1(atan)
GPUVEC_MATH_1(tanh)
GPUVEC_MATH_1(floor)
GPUVEC_MATH_1(ceil)
GPUVEC_MATH_1(rint)
GPUVEC_MATH_1(trunc)
GPUVEC_MATH_1(cbrt)
GPUVEC_MATH_2(pow)
GPUVEC_MATH_2(hypot)
GPUVEC_MATH_2(atan2)
#undef GPUVEC_MATH_1
#undef GPUVEC_MATH_2
}  // namespace math

// A conversion or copy: the value itself, which the Operand it is read
// through has converted from the stored dtype (no row of the op table).
struct Identity {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    return x;
  }
};

// The binary elementwise family: out = a (op) b. One line per op, kept on one
// line on purpose.
// clang-format off
struct Add { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a + b; } };
struct Subtract { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a - b; } };
struct Multiply { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a * b; } };
struct Divide { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a / b; } };
struct Maximum { template <class T> GPUVEC_HD T operator()(T a, T b) const { return (a > b || a != a) ? a : b; } };
struct Minimum { template <class T> GPUVEC_HD T operator()(T a, T b) const { return (a < b || a != a) ? a : b; } };
struct Hypot { template <class T> GPUVEC_HD T operator()(T a, T b) const { return math::hypot(a, b); } };
struct Atan2 { template <class T> GPUVEC_HD T operator()(T a, T b) const { return math::atan2(a, b); } };
// clang-format on
// Maximum and Minimum return a NaN operand, as NumPy does (fmax and fmin
// would return the other operand instead), and of two equal operands the
// second, as NumPy does: maximum(-0.0, 0.0) is 0.0, maximum(0.0, -0.0) is -0.0.

// C's pow, except that the exponents 2, -1 and 0.5 give the correctly rounded
// square, reciprocal and square root, which are what NumPy computes for them
// (x**2 is np.square(x)): powf and pow are not correctly rounded, and powf(x,
// 2) differs from x*x for about one float32 in 1400. Special values stay C's:
// pow(-0.0, 0.5) is +0.0 and pow(-inf, 0.5) is +inf, where sqrt gives -0.0
// and NaN (NumPy too gives those for a scalar 0.5, and C's for an array).
struct Power {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    if (b == T(2)) return a * a;
    if (b == T(-1)) return T(1) / a;
    if (b == T(0.5)) return a == -T(INFINITY) ? T(INFINITY) : math::sqrt(a) + T(0);
    return math::pow(a, b);
  }
};

// numpy.logaddexp, log(exp(a) + exp(b)), as NumPy computes it: the larger
// input plus log1p(exp(-|a - b|)), which neither overflows for large inputs
// nor loses the smaller one. Equal inputs give a + log(2), the infinities of
// one sign among them (whose difference would be NaN); a NaN gives NaN. The
// same operations on both backends, none of them a product to contract:
// only exp and log1p are the libraries' own.
struct LogAddExp {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    if (a == b) return a + T(0.693147180559945309417232121458176568);  // log(2)
    const T d = a - b;
    if (d > T(0)) return a + math::log1p(math::exp(-d));
    if (d <= T(0)) return b + math::log1p(math::exp(d));
    return d;  // NaN
  }
};

// The unary family: out = f(x).
// clang-format off
struct Negative { template <class T> GPUVEC_HD T operator()(T x) const { return -x; } };
struct Abs { template <class T> GPUVEC_HD T operator()(T x) const { return math::fabs(x); } };
struct Sqrt { template <class T> GPUVEC_HD T operator()(T x) const { return math::sqrt(x); } };
struct Exp { template <class T> GPUVEC_HD T operator()(T x) const { return math::exp(x); } };
struct Log { template <class T> GPUVEC_HD T operator()(T x) const { return math::log(x); } };
struct Log1p { template <class T> GPUVEC_HD T operator()(T x) const { return math::log1p(x); } };
struct Expm1 { template <class T> GPUVEC_HD T operator()(T x) const { return math::expm1(x); } };
struct Sin { template <class T> GPUVEC_HD T operator()(T x) const { return math::sin(x); } };
struct Cos { template <class T> GPUVEC_HD T operator()(T x) const { return math::cos(x); } };
struct Tan { template <class T> GPUVEC_HD T operator()(T x) const { return math::tan(x); } };
struct Arcsin { template <class T> GPUVEC_HD T operator()(T x) const { return math::asin(x); } };
struct Arccos { template <class T> GPUVEC_HD T operator()(T x) const { return math::acos(x); } };
struct Arctan { template <class T> GPUVEC_HD T operator()(T x) const { return math::atan(x); } };
struct Tanh { template <class T> GPUVEC_HD T operator()(T x) const { return math::tanh(x); } };
struct Floor { template <class T> GPUVEC_HD T operator()(T x) const { return math::floor(x); } };
struct Ceil { template <class T> GPUVEC_HD T operator()(T x) const { return math::ceil(x); } };
struct Rint { template <class T> GPUVEC_HD T operator()(T x) const { return math::rint(x); } };
struct Trunc { template <class T> GPUVEC_HD T operator()(T x) const { return math::trunc(x); } };
struct Cbrt { template <class T> GPUVEC_HD T operator()(T x) const { return math::cbrt(x); } };
// clang-format on
// Rint rounds halves to even in the default rounding mode, as numpy.round
// does; round() would round them away from zero.

// numpy.sign: -1, 0 or 1, and a NaN comes back as it is (its sign bit too).
// Both zeros give +0.0, as NumPy's does for -0.0.
struct Sign {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x));
  }
};

// 1 / (1 + exp(-x)), written so that exp never overflows: for x < 0 it is
// exp(x) / (1 + exp(x)). Both branches share e = exp(-|x|) <= 1.
struct Sigmoid {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    const T e = math::exp(-math::fabs(x));
    return x >= T(0) ? T(1) / (T(1) + e) : e / (T(1) + e);
  }
};

// The truth-value family: a bool result. The inputs are of the compute type:
// float or double, or bool itself when every input is a bool array (then
// `a < b` orders false before true, as NumPy does). NaN compares unequal to
// everything, itself included, so not_equal is its one true comparison.
// clang-format off
struct Equal { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return a == b; } };
struct NotEqual { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return a != b; } };
struct Less { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return a < b; } };
struct LessEqual { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return a <= b; } };
struct Greater { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return a > b; } };
struct GreaterEqual { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return a >= b; } };
// clang-format on

// The logical ops take any nonzero value (NaN included) as true, as NumPy's do.
template <class T>
GPUVEC_HD bool truth(T x) {
  return x != T(0);
}
// clang-format off
struct LogicalAnd { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return truth(a) && truth(b); } };
struct LogicalOr { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return truth(a) || truth(b); } };
struct LogicalXor { template <class T> GPUVEC_HD bool operator()(T a, T b) const { return truth(a) != truth(b); } };
struct LogicalNot { template <class T> GPUVEC_HD bool operator()(T x) const { return !truth(x); } };
// clang-format on

// The floating-point tests. A bool is never NaN nor infinite. They compare
// rather than call isnan/isinf, which nvcc and the host library declare
// differently: x != x only for NaN, and x - x is NaN for inf and NaN alone.
struct IsNan {
  template <class T>
  GPUVEC_HD bool operator()(T x) const {
    return x != x;
  }
};
struct IsFinite {
  template <class T>
  GPUVEC_HD bool operator()(T x) const {
    if constexpr (gpuvec::is_same_v<T, bool>) {
      return true;
    } else {
      return x - x == T(0);
    }
  }
};
struct IsInf {
  template <class T>
  GPUVEC_HD bool operator()(T x) const {
    return x == x && !IsFinite{}(x);
  }
};

// numpy.clip: maximum(x, lo), then minimum(.., hi), each propagating NaN, so
// a NaN in x, lo or hi gives NaN, and lo > hi gives hi.
struct Clip {
  template <class T>
  GPUVEC_HD T operator()(T x, T lo, T hi) const {
    const T m = (x != x || x > lo) ? x : lo;
    return (m != m || m < hi) ? m : hi;
  }
};

// numpy.where: a where cond is nonzero, else b.
struct Where {
  template <class T>
  GPUVEC_HD T operator()(uint8_t cond, T a, T b) const {
    return cond ? a : b;
  }
};

// The ops with parameters. The parameters come as doubles and are rounded to
// the compute type once, when the functor is made: Op::Of<T> is the functor
// that computes in T (see make_op in csrc/kit/dispatch.hpp), so a float32
// kernel multiplies by a float, as NumPy does, and converts nothing per element.

// out = alpha * x
struct Scale {
  template <class T>
  struct Of {
    T alpha;
    GPUVEC_HD T operator()(T x) const { return alpha * x; }
  };
};

// out = alpha * x + y
struct Axpy {
  template <class T>
  struct Of {
    T alpha;
    GPUVEC_HD T operator()(T x, T y) const { return alpha * x + y; }
  };
};

// out = alpha * x + beta * y
struct Axpby {
  template <class T>
  struct Of {
    T alpha;
    T beta;
    GPUVEC_HD T operator()(T x, T y) const { return alpha * x + beta * y; }
  };
};

}  // namespace gpuvec::ops

#endif  // GPUVEC_OPS_HPP
