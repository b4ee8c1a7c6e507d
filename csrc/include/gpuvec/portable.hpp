// What gpuvec's kernel headers need from the standard library, so that they
// compile everywhere they are used: by nvcc and the host compiler in gpuvec's
// own build, by NVRTC for a user's ElementwiseKernel, and by the host
// compiler against gpuvec/cuda_emulation.h for the same kernel without a GPU.
//
// NVRTC has no standard headers of its own (the nvidia-cuda-nvrtc wheel ships
// none: no <stdint.h>, no <utility>, no <type_traits>), so under NVRTC the few
// fixed-width types are defined here, and the two library templates the
// kernels use (an index sequence, a type comparison) are gpuvec's own
// everywhere, so that one spelling compiles under every compiler.
#ifndef GPUVEC_PORTABLE_HPP
#define GPUVEC_PORTABLE_HPP

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
typedef decltype(sizeof(0)) size_t;
// <stdint.h>'s limits, which argmin's identity and conversions use.
#ifndef INT64_MAX
#define INT64_MAX 0x7fffffffffffffffLL
#endif
#ifndef INT64_MIN
#define INT64_MIN (-INT64_MAX - 1)
#endif
#ifndef INT32_MIN
#define INT32_MIN (-2147483647 - 1)
#endif
// <math.h>'s INFINITY and NAN, which users' kernels write as in C (a
// ReductionKernel's identity "-INFINITY"); NVRTC has no <math.h> to give them.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fc00000)
#endif
#else
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

// A function of both host and device code, always inlined on the device.
#if defined(__CUDACC__)
#define GPUVEC_HD __host__ __device__ __forceinline__
#else
#define GPUVEC_HD inline
#endif

namespace gpuvec {

// std::index_sequence, and index_sequence_for<P...>: 0, 1, ..., sizeof...(P) - 1.
template <size_t... K>
struct index_sequence {};
template <size_t N, size_t... K>
struct make_index_sequence_of : make_index_sequence_of<N - 1, N - 1, K...> {};
template <size_t... K>
struct make_index_sequence_of<0, K...> {
  using type = index_sequence<K...>;
};
template <class... P>
using index_sequence_for = typename make_index_sequence_of<sizeof...(P)>::type;

// std::is_same_v.
template <class A, class B>
constexpr bool is_same_v = false;
template <class A>
constexpr bool is_same_v<A, A> = true;

// The signed integer of an unsigned one's width (std::make_signed).
template <class U>
struct signed_of;
template <>
struct signed_of<uint32_t> {
  using type = int32_t;
};
template <>
struct signed_of<uint64_t> {
  using type = int64_t;
};

// std::is_floating_point_v, for the arithmetic types.
template <class T>
constexpr bool is_float_v = is_same_v<T, float> || is_same_v<T, double>;

// Whether T is one of the integer dtypes' types (bool is not), and a signed one.
template <class T>
constexpr bool is_signed_integer_v = is_same_v<T, int8_t> || is_same_v<T, int16_t> ||
                                     is_same_v<T, int32_t> || is_same_v<T, int64_t>;
template <class T>
constexpr bool is_integer_v =
    is_signed_integer_v<T> || is_same_v<T, uint8_t> || is_same_v<T, uint16_t> ||
    is_same_v<T, uint32_t> || is_same_v<T, uint64_t>;

// The unsigned integer in which T's arithmetic wraps around: uint64_t for a
// 64-bit T, else uint32_t. Never narrower than int, so that no operand is
// promoted to int, whose overflow C++ leaves undefined (uint16 * uint16 would).
template <class T>
struct wrapping_of {
  using type = uint32_t;
};
template <>
struct wrapping_of<int64_t> {
  using type = uint64_t;
};
template <>
struct wrapping_of<uint64_t> {
  using type = uint64_t;
};
template <class T>
using wrapping_t = typename wrapping_of<T>::type;

// A complex number of float or double parts, as NumPy's complex64 and
// complex128 hold them (two T, the real part first). gpuvec's own rather than
// std::complex (which NVRTC has not, and whose * and / differ between
// compilers and their flags: a range check here, a library call there): the
// arithmetic is written out below, the same operations in the same order on
// the host, under nvcc and under NVRTC, as NumPy's loops compute them.
// None is a product added to another in one expression that a compiler
// could contract into a fused multiply-add: each product is a named value
// first (nvcc builds with -fmad=false too), and the one fused multiply-add
// NumPy's product does is an explicit fma.
template <class T>
struct complex {
  T re;
  T im;
  complex() = default;
  GPUVEC_HD constexpr complex(T r, T i = T(0)) : re(r), im(i) {}
};
using complex64 = complex<float>;
using complex128 = complex<double>;

// Whether T is complex64 or complex128, and the type of its parts (T itself
// for a real T).
template <class T>
constexpr bool is_complex_v = is_same_v<T, complex64> || is_same_v<T, complex128>;
template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename real_of<T>::type;

namespace complex_detail {
// |x|, its sign bit cleared (-0.0 gives +0.0, which the division by zero
// below divides by, as NumPy's does); NVRTC has these functions built in.
GPUVEC_HD float fabs(float x) { return ::fabsf(x); }
GPUVEC_HD double fabs(double x) { return ::fabs(x); }
// x * y + z rounded once.
GPUVEC_HD float fma(float x, float y, float z) { return ::fmaf(x, y, z); }
GPUVEC_HD double fma(double x, double y, double z) { return ::fma(x, y, z); }
}  // namespace complex_detail

template <class T>
GPUVEC_HD complex<T> operator+(complex<T> a, complex<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
GPUVEC_HD complex<T> operator-(complex<T> a, complex<T> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class T>
GPUVEC_HD complex<T> operator-(complex<T> a) {
  return {-a.re, -a.im};
}
// NumPy's product as its vector loops compute it on every processor with a
// fused multiply-add (x86-64 from AVX2 on, ARM's NEON, ...), for contiguous,
// strided and broadcast data alike: re = fma(ar, br, -(ai*bi)) and im =
// fma(ar, bi, ai*br), the second product rounded first. The fma is the C
// library's, exact then rounded once on every compiler and device, so both
// backends give NumPy's bits. (NumPy's scalar loop, which it runs for
// negative strides, rounds both products: a last-bit difference there.)
template <class T>
GPUVEC_HD complex<T> operator*(complex<T> a, complex<T> b) {
  const T ii = a.im * b.im;
  const T ir = a.im * b.re;
  return {complex_detail::fma(a.re, b.re, -ii), complex_detail::fma(a.re, b.im, ir)};
}
// NumPy's quotient (its complex divide loop): Smith's algorithm, scaling by
// the divisor's larger part so that nothing overflows that need not; a
// division by zero divides each part by +0.0 (an infinity or NaN, as NumPy's).
template <class T>
GPUVEC_HD complex<T> operator/(complex<T> a, complex<T> b) {
  const T br_abs = complex_detail::fabs(b.re);
  const T bi_abs = complex_detail::fabs(b.im);
  if (br_abs >= bi_abs) {
    if (br_abs == T(0) && bi_abs == T(0)) return {a.re / br_abs, a.im / br_abs};
    const T rat = b.im / b.re;
    const T bi_rat = b.im * rat;
    const T scl = T(1) / (b.re + bi_rat);
    const T ai_rat = a.im * rat;
    const T ar_rat = a.re * rat;
    const T re = a.re + ai_rat;
    const T im = a.im - ar_rat;
    return {re * scl, im * scl};
  }
  const T rat = b.re / b.im;
  const T br_rat = b.re * rat;
  const T scl = T(1) / (b.im + br_rat);
  const T ar_rat = a.re * rat;
  const T ai_rat = a.im * rat;
  const T re = ar_rat + a.im;
  const T im = ai_rat - a.re;
  return {re * scl, im * scl};
}
// Equal when both parts are (so a NaN part is unequal to everything).
template <class T>
GPUVEC_HD bool operator==(complex<T> a, complex<T> b) {
  return a.re == b.re && a.im == b.im;
}
template <class T>
GPUVEC_HD bool operator!=(complex<T> a, complex<T> b) {
  return !(a == b);
}

// IEEE 754 binary16 (NumPy's float16), as its bits. gpuvec stores it and
// computes in float32, as NumPy's float16 loops do, so it needs no
// arithmetic: only the conversions below, which use integer operations
// alone. So the type is the same under every compiler (no _Float16, no
// cuda_fp16.h, which NVRTC could not include) and gives the same bits on
// every device, its flags and rounding modes notwithstanding.
struct half {
  uint16_t bits;
};

namespace half_detail {

// A float's or double's bits, and back (memcpy, which the host compilers
// turn into a move; the device's own intrinsics on the GPU).
GPUVEC_HD uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
#endif
}
GPUVEC_HD uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
#endif
}
GPUVEC_HD float float_of(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
#endif
}
GPUVEC_HD double double_of(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// m / 2^shift (0 < shift < the bits of U) rounded to the nearest integer,
// ties to even.
template <class U>
GPUVEC_HD U shifted_to_nearest_even(U m, int shift) {
  const U q = m >> shift;
  const U rest = m & ((U(1) << shift) - 1);
  const U tie = U(1) << (shift - 1);
  return q + ((rest > tie || (rest == tie && (q & 1))) ? 1 : 0);
}

// The half nearest to a binary float of `Mant` fraction bits, exponent bias
// `Bias` and bits `u` (U: uint32_t for float, uint64_t for double), ties to
// even, rounded once: a double is never rounded to float first. Beyond
// 65504 (from 65520 up) it is an infinity, and below the smallest subnormal
// half a zero, of the sign of u. A NaN stays a NaN of its sign with the top
// bits of its payload, as NumPy converts one (quiet or signalling as it was).
template <class U, int Mant, int Bias>
GPUVEC_HD half half_of_bits(U u) {
  constexpr int kBits = 8 * sizeof(U);
  const uint16_t sign = static_cast<uint16_t>((u >> (kBits - 16)) & 0x8000u);
  const U a = u & ~(U(1) << (kBits - 1));  // |x|
  const U inf = ((U(1) << (kBits - 1 - Mant)) - 1) << Mant;
  const U mantissa = a & ((U(1) << Mant) - 1);
  if (a >= inf) {
    if (a == inf) return half{static_cast<uint16_t>(sign | 0x7c00u)};
    const uint16_t payload = static_cast<uint16_t>(mantissa >> (Mant - 10));
    return half{static_cast<uint16_t>(sign | 0x7c00u | (payload == 0 ? 1 : payload))};
  }
  const int exponent = static_cast<int>(a >> Mant);  // biased
  // The half's exponent field is exponent - Bias + 15: 1 and up is normal.
  if (exponent - Bias + 15 >= 1) {
    // Rebias in place: the fraction's carry into the exponent, and past the
    // largest exponent into 0x7c00 (infinity), is the right result.
    const U rebiased = a - (static_cast<U>(Bias - 15) << Mant);
    const U h = shifted_to_nearest_even<U>(rebiased, Mant - 10);
    return half{static_cast<uint16_t>(sign | (h >= 0x7c00u ? 0x7c00u : static_cast<uint16_t>(h)))};
  }
  // A subnormal half (or zero): |x| / 2^-24 = significand * 2^(exponent -
  // Bias - Mant + 24), rounded; from a float subnormal (exponent 0) too.
  const int shift = Bias + Mant - 24 - exponent;
  if (exponent == 0 || shift > Mant + 1) return half{sign};  // below half the smallest subnormal
  const U significand = mantissa | (U(1) << Mant);
  return half{static_cast<uint16_t>(sign | shifted_to_nearest_even<U>(significand, shift))};
}

// The bits of a half's exact value as a binary float of `Mant` fraction bits
// and exponent bias `Bias`; a NaN keeps its payload, as NumPy's does.
template <class U, int Mant, int Bias>
GPUVEC_HD U bits_of_half(half h) {
  constexpr int kBits = 8 * sizeof(U);
  const U sign = static_cast<U>(h.bits & 0x8000u) << (kBits - 16);
  const int exponent = (h.bits >> 10) & 0x1f;
  U fraction = h.bits & 0x3ffu;
  if (exponent == 0x1f) {
    const U inf = ((U(1) << (kBits - 1 - Mant)) - 1) << Mant;
    return sign | inf | (fraction << (Mant - 10));
  }
  if (exponent != 0)
    return sign | (static_cast<U>(exponent - 15 + Bias) << Mant) | (fraction << (Mant - 10));
  if (fraction == 0) return sign;
  // Subnormal: fraction * 2^-24, normalized (the top bit moves to bit 10).
  int e = 1 - 15 + Bias;
  while ((fraction & 0x400u) == 0) {
    fraction <<= 1;
    --e;
  }
  return sign | (static_cast<U>(e) << Mant) | ((fraction & 0x3ffu) << (Mant - 10));
}

}  // namespace half_detail

// The conversions, each exact or rounded once to nearest even, as NumPy's
// (npy_float_to_half, npy_double_to_half, npy_half_to_float, ...).
GPUVEC_HD half half_from_float(float x) {
  return half_detail::half_of_bits<uint32_t, 23, 127>(half_detail::bits_of(x));
}
GPUVEC_HD half half_from_double(double x) {
  return half_detail::half_of_bits<uint64_t, 52, 1023>(half_detail::bits_of(x));
}
GPUVEC_HD float float_from_half(half h) {
  return half_detail::float_of(half_detail::bits_of_half<uint32_t, 23, 127>(h));
}
GPUVEC_HD double double_from_half(half h) {
  return half_detail::double_of(half_detail::bits_of_half<uint64_t, 52, 1023>(h));
}

}  // namespace gpuvec

#endif  // GPUVEC_PORTABLE_HPP
