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
GPUVEC_MATH_2(fmod)
GPUVEC_MATH_2(copysign)
#undef GPUVEC_MATH_1
#undef GPUVEC_MATH_2

// exp, log and sqrt of a complex number, of its parts' functions above (so
// within a few ulp of NumPy's, which calls the C library's cexp, clog and
// csqrt: docs/dtypes.rst gives the budget). Finite inputs are what they are
// written for; each product is a named value, never contracted with a sum.
template <class T>
GPUVEC_HD complex<T> exp(complex<T> z) {
  const T e = exp(z.re);
  if (z.im == T(0)) return {e, z.im};  // a real exponential, the sign of im kept
  const T re = e * cos(z.im);
  const T im = e * sin(z.im);
  return {re, im};
}
// log|z| + i arg(z). Where the larger part is near 1, |z|^2 - 1 is formed
// as (a - 1)(a + 1) + b^2 and taken through log1p, which keeps the digits
// of a |z| near 1 that log(hypot) would lose.
template <class T>
GPUVEC_HD complex<T> log(complex<T> z) {
  const T x = fabs(z.re), y = fabs(z.im);
  const T a = x >= y ? x : y;
  const T b = x >= y ? y : x;
  const T arg = atan2(z.im, z.re);
  if (a >= T(0.5) && a <= T(2)) {
    const T am1 = a - T(1);
    const T ap1 = a + T(1);
    const T near = am1 * ap1;
    const T bb = b * b;
    return {T(0.5) * log1p(near + bb), arg};
  }
  return {log(hypot(z.re, z.im)), arg};
}
// The principal square root (re >= 0), as C's csqrt: t = sqrt((|re| +
// |z|) / 2) is one part and im / 2t the other, so that neither cancels.
template <class T>
GPUVEC_HD complex<T> sqrt(complex<T> z) {
  if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};
  const T t = sqrt((fabs(z.re) + hypot(z.re, z.im)) * T(0.5));
  const T twice = T(2) * t;
  if (z.re >= T(0)) return {t, z.im / twice};
  return {fabs(z.im) / twice, copysign(t, z.im)};
}
}  // namespace math

// A conversion or copy: the value itself, which the Operand it is read
// through has converted from the stored dtype (no row of the op table).
struct Identity {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    return x;
  }
};

// Integer arithmetic wraps around modulo 2^bits, as NumPy's does: computed
// in the unsigned type of wrapping_t (portable.hpp), where C++ defines the
// wraparound, and converted back (modulo 2^bits on every compiler gpuvec
// supports). Floats and bools compute as they are: bool + bool is an int
// that converts back to true when nonzero, NumPy's logical or.
template <class T>
GPUVEC_HD T wrapped(wrapping_t<T> x) {
  return static_cast<T>(x);
}
#define GPUVEC_WRAPPING(name, op)                              \
  template <class T>                                           \
  GPUVEC_HD T name(T a, T b) {                                 \
    if constexpr (is_integer_v<T>) {                           \
      return wrapped<T>(wrapping_t<T>(a) op wrapping_t<T>(b)); \
    } else {                                                   \
      return a op b;                                           \
    }                                                          \
  }
GPUVEC_WRAPPING(plus, +)
GPUVEC_WRAPPING(minus, -)
GPUVEC_WRAPPING(times, *)
#undef GPUVEC_WRAPPING

// The binary elementwise family: out = a (op) b. One line per op, kept on one
// line on purpose.
// clang-format off
struct Add { template <class T> GPUVEC_HD T operator()(T a, T b) const { return plus(a, b); } };
struct Subtract { template <class T> GPUVEC_HD T operator()(T a, T b) const { return minus(a, b); } };
struct Multiply { template <class T> GPUVEC_HD T operator()(T a, T b) const { return times(a, b); } };
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
//
// Integers raise by repeated squaring, wrapping around as NumPy's do; a
// negative exponent is refused by the caller (NumPy raises ValueError), and
// counts here as its bits.
struct Power {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    if constexpr (is_integer_v<T>) {
      wrapping_t<T> result = 1, base = wrapping_t<T>(a);
      for (auto e = static_cast<wrapping_t<T>>(b); e != 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return wrapped<T>(result);
    } else {
      if (b == T(2)) return a * a;
      if (b == T(-1)) return T(1) / a;
      if (b == T(0.5)) return a == -T(INFINITY) ? T(INFINITY) : math::sqrt(a) + T(0);
      return math::pow(a, b);
    }
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

// NumPy's floor division of floats (npy_divmod in its npy_math): the
// quotient of a - fmod(a, b), which is exact, corrected toward minus
// infinity, with NumPy's signs of zero. Written with the same operations in
// the same order as NumPy's, none a product to contract, so both backends
// give NumPy's bits (fmod, floor and copysign are exact).
template <class T>
struct FloatDivmod {
  T quotient;
  T remainder;
};
template <class T>
GPUVEC_HD FloatDivmod<T> float_divmod(T a, T b) {
  T mod = math::fmod(a, b);
  if (b == T(0)) return {a / b, mod};
  T div = (a - mod) / b;
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = math::copysign(T(0), b);
  }
  T floordiv;
  if (div != T(0)) {
    floordiv = math::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = math::copysign(T(0), a / b);
  }
  return {floordiv, mod};
}

// a // b and a % b, as NumPy's: the quotient rounded toward minus infinity,
// and the remainder with the sign of b. An integer division by zero gives 0
// (NumPy's too; the caller warns as NumPy does), and so does the remainder
// of the most negative integer by -1, whose quotient wraps around to itself.
struct FloorDivide {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      return float_divmod(a, b).quotient;
    } else {
      if (b == T(0)) return T(0);
      if constexpr (is_signed_integer_v<T>) {
        if (b == T(-1)) return minus(T(0), a);  // -MIN wraps to MIN, as NumPy's
        const T q = static_cast<T>(a / b);
        return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
      } else {
        return static_cast<T>(a / b);
      }
    }
  }
};
struct Remainder {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      return b == T(0) ? math::fmod(a, b) : float_divmod(a, b).remainder;
    } else {
      if (b == T(0)) return T(0);
      if constexpr (is_signed_integer_v<T>) {
        if (b == T(-1)) return T(0);
        const T r = static_cast<T>(a % b);
        return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
      } else {
        return static_cast<T>(a % b);
      }
    }
  }
};

// a << b and a >> b as NumPy's: a shift by the width or more (or by a
// negative count, which NumPy reads as a huge unsigned one) gives 0, or -1
// for a negative a shifted right. left_shift runs on unsigned types only
// (its kinds column: the bits are the same for signed ones).
struct LeftShift {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    return b < T(8 * sizeof(T)) ? wrapped<T>(wrapping_t<T>(a) << b) : T(0);
  }
};
struct RightShift {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    if constexpr (is_signed_integer_v<T>) {
      if (b >= 0 && b < T(8 * sizeof(T))) return static_cast<T>(a >> b);
      return a < 0 ? T(-1) : T(0);
    } else {
      return b < T(8 * sizeof(T)) ? static_cast<T>(a >> b) : T(0);
    }
  }
};

// The bit ops, of integers and of bools (where they are and, or, xor).
// clang-format off
struct BitwiseAnd { template <class T> GPUVEC_HD T operator()(T a, T b) const { return static_cast<T>(a & b); } };
struct BitwiseOr { template <class T> GPUVEC_HD T operator()(T a, T b) const { return static_cast<T>(a | b); } };
struct BitwiseXor { template <class T> GPUVEC_HD T operator()(T a, T b) const { return static_cast<T>(a ^ b); } };
// clang-format on

// The unary family: out = f(x).
// clang-format off
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
struct Rint { template <class T> GPUVEC_HD T operator()(T x) const { return math::rint(x); } };
struct Cbrt { template <class T> GPUVEC_HD T operator()(T x) const { return math::cbrt(x); } };
// clang-format on
// Rint rounds halves to even in the default rounding mode, as numpy.round
// does; round() would round them away from zero.

// -x; an integer's negation wraps around (-MIN is MIN), and -0.0 is -0.0.
struct Negative {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    if constexpr (is_integer_v<T>) {
      return minus(T(0), x);
    } else {
      return -x;
    }
  }
};

// |x|. The most negative integer stays itself, as in NumPy (its negation
// wraps around); a bool is its own absolute value.
struct Abs {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    if constexpr (is_signed_integer_v<T>) {
      return x < 0 ? minus(T(0), x) : x;
    } else if constexpr (is_float_v<T>) {
      return math::fabs(x);
    } else {
      return x;
    }
  }
};

// floor, ceil and trunc of an integer or a bool are the value itself (NumPy 2
// keeps their dtype).
#define GPUVEC_ROUNDING(Name, function) \
  struct Name {                         \
    template <class T>                  \
    GPUVEC_HD T operator()(T x) const { \
      if constexpr (is_float_v<T>) {    \
        return math::function(x);       \
      } else {                          \
        return x;                       \
      }                                 \
    }                                   \
  };
GPUVEC_ROUNDING(Floor, floor)
GPUVEC_ROUNDING(Ceil, ceil)
GPUVEC_ROUNDING(Trunc, trunc)
#undef GPUVEC_ROUNDING

// numpy.gcd and numpy.lcm, by Euclid's algorithm on |a| and |b| taken
// without overflow (in the unsigned wrapping_t), as NumPy's: so gcd(MIN, 0)
// is |MIN|, which converts back to MIN, and lcm, |a| / gcd * |b|, wraps
// around beyond the dtype's range.
template <class T>
GPUVEC_HD wrapping_t<T> magnitude(T x) {
  if constexpr (is_signed_integer_v<T>) {
    if (x < 0) return wrapping_t<T>(0) - wrapping_t<T>(x);
  }
  return wrapping_t<T>(x);
}
template <class T>
GPUVEC_HD wrapping_t<T> euclid(T a, T b) {
  wrapping_t<T> x = magnitude(a), y = magnitude(b);
  while (x != 0) {
    const wrapping_t<T> c = x;
    x = y % x;
    y = c;
  }
  return y;
}
struct Gcd {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    return wrapped<T>(euclid(a, b));
  }
};
struct Lcm {
  template <class T>
  GPUVEC_HD T operator()(T a, T b) const {
    const wrapping_t<T> g = euclid(a, b);
    return g == 0 ? T(0) : wrapped<T>(magnitude(a) / g * magnitude(b));
  }
};

// ~x: the bits flipped; for a bool, not x, as NumPy's invert.
struct Invert {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    if constexpr (is_same_v<T, bool>) {
      return !x;
    } else {
      return static_cast<T>(~wrapping_t<T>(x));
    }
  }
};

// The number of 1 bits in |x| (numpy.bitwise_count), counted by halves, the
// same steps on every compiler (no builtin that one of them lacks).
struct BitwiseCount {
  template <class T>
  GPUVEC_HD uint8_t operator()(T x) const {
    uint64_t v = static_cast<uint64_t>(Abs{}(x));
    if constexpr (sizeof(T) < 8) v &= (uint64_t(1) << (8 * sizeof(T))) - 1;
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<uint8_t>((v * 0x0101010101010101ull) >> 56);
  }
};

// numpy.sign: -1, 0 or 1, and a NaN comes back as it is (its sign bit too).
// Both zeros give +0.0, as NumPy's does for -0.0.
struct Sign {
  template <class T>
  GPUVEC_HD T operator()(T x) const {
    if constexpr (is_integer_v<T> && !is_signed_integer_v<T>) {
      return x > T(0) ? T(1) : T(0);  // no unsigned value is below zero
    } else {
      return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x));
    }
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
    if constexpr (is_complex_v<T>) {
      return (*this)(x.re) || (*this)(x.im);  // complex(nan, inf) is infinite, as in NumPy
    } else {
      return x == x && !IsFinite{}(x);
    }
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
