// An elementwise op's input as the kernels read it: an array, or one value
// that stands for every element (a Python scalar), which needs no memory.
// Installed, and compiled by NVRTC too: see gpuvec/portable.hpp.
#ifndef GPUVEC_OPERAND_HPP
#define GPUVEC_OPERAND_HPP

#include "gpuvec/portable.hpp"

namespace gpuvec {

// A float to int32 or int64 as x86-64's conversion instructions give it:
// toward zero, and the most negative value for NaN, infinities and what does
// not fit (C++ leaves those undefined; CUDA saturates instead).
template <class I, class F>
GPUVEC_HD I truncated(F x) {
  constexpr F kLimit = sizeof(I) == 4 ? F(2147483648.0) : F(9223372036854775808.0);
  if (x >= -kLimit && x < kLimit) return static_cast<I>(x);  // false for NaN
  return sizeof(I) == 4 ? I(INT32_MIN) : I(INT64_MIN);
}

// An unsigned integer of U's width from a float, as x86-64 compilers convert
// it: values from 2^(bits-1) up are shifted down by that before the signed
// conversion, and the top bit put back after it.
template <class U, class F>
GPUVEC_HD U truncated_unsigned(F x) {
  using I = typename signed_of<U>::type;
  constexpr U kTop = U(1) << (8 * sizeof(U) - 1);
  const F top = F(kTop);
  if (x >= top) return static_cast<U>(truncated<I>(x - top)) ^ kTop;
  return static_cast<U>(truncated<I>(x));
}

// x converted to To as NumPy's astype converts it (casting="unsafe"), the
// same on every compiler and device:
//   - to bool: nonzero (NaN too) is true;
//   - between integers: modulo 2^bits (NumPy wraps);
//   - from a float to an integer: toward zero. A NaN, an infinity or a value
//     out of range (NumPy warns "invalid value encountered in cast") gives
//     what NumPy gives on x86-64: narrower integers and int32 go through
//     int32, uint32 and uint64 through the unsigned conversion of their
//     width, int64 through int64;
//   - to and from float16 (half): a float or double rounds to it once, and it
//     widens exactly to either; to an integer or bool it goes as its float32
//     value does, and an integer or bool comes to it as its float32 value
//     does (NumPy's casts: every integer that float32 rounds is far beyond
//     float16's range, an infinity either way);
//   - to and from complex: a real value is the real part, the imaginary part
//     +0.0; a complex to a real dtype converts its real part, the imaginary
//     part dropped (NumPy warns ComplexWarning; the caller does), and to bool
//     it is true where either part is nonzero; between complex64 and
//     complex128 each part converts as a float does.
template <class To, class From>
GPUVEC_HD To convert(From x) {
  if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) {
      using P = real_t<To>;
      return To(static_cast<P>(x.re), static_cast<P>(x.im));
    } else if constexpr (is_same_v<To, bool>) {
      return x.re != real_t<From>(0) || x.im != real_t<From>(0);
    } else {
      return convert<To>(x.re);
    }
  } else if constexpr (is_complex_v<To>) {
    using P = real_t<To>;
    return To(convert<P>(x), P(0));
  } else if constexpr (is_same_v<From, half>) {
    if constexpr (is_same_v<To, half>) {
      return x;
    } else if constexpr (is_same_v<To, double>) {
      return double_from_half(x);  // exact, a NaN's payload kept
    } else if constexpr (is_same_v<To, bool>) {
      return (x.bits & 0x7fffu) != 0;  // -0.0 is false, NaN true
    } else {
      return convert<To>(float_from_half(x));
    }
  } else if constexpr (is_same_v<To, half>) {
    if constexpr (is_same_v<From, double>) {
      return half_from_double(x);
    } else if constexpr (is_same_v<From, float>) {
      return half_from_float(x);
    } else {
      return half_from_float(static_cast<float>(x));
    }
  } else if constexpr (is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (is_float_v<From> && !is_float_v<To>) {
    if constexpr (is_same_v<To, uint32_t> || is_same_v<To, uint64_t>) {
      return truncated_unsigned<To>(x);
    } else if constexpr (sizeof(To) <= 4) {
      return static_cast<To>(static_cast<uint32_t>(truncated<int32_t>(x)));
    } else {
      return truncated<int64_t>(x);
    }
  } else {
    return static_cast<To>(x);
  }
}

// V consecutive elements, moved by one aligned load or store (16 bytes when
// V * sizeof(T) == 16).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// The elements in a pack: the widest operand moves 16 bytes at a time (a
// bool result of float inputs is stored 4 bytes at a time).
GPUVEC_HD constexpr int pack_width(size_t largest_itemsize) {
  return largest_itemsize >= 16 ? 1 : static_cast<int>(16 / largest_itemsize);
}
template <class... T>
GPUVEC_HD constexpr size_t largest_size() {
  size_t largest = 1;
  ((largest = sizeof(T) > largest ? sizeof(T) : largest), ...);
  return largest;
}
// The pack width of a kernel over operands of these types.
template <class... T>
constexpr int kPackWidth = pack_width(largest_size<T...>());

// Passed by value, as a kernel parameter. p is null for a scalar: the test is
// the same for every element of a launch, so no warp diverges on it and the
// host compiler can hoist it out of (unswitch) a contiguous loop. A scalar
// thus runs the kernels' contiguous path like an array, without a buffer
// being filled with copies of it first.
//
// The elements are stored as S and read as T: an input of another float
// dtype than the one the op computes in (`gv.add(a32, b32, dtype=float64)`)
// is converted as each element is loaded, in the same pass, rather than into
// a temporary first. A scalar's value is kept in T, so it is never rounded to
// the storage type.
template <class T, class S = T>
struct Operand {
  const S* p;  // element (0, ..., 0), or null: every element is `value`
  T value;

  GPUVEC_HD T at(int64_t offset) const { return p ? convert<T>(p[offset]) : value; }

  // Pack i of a contiguous array whose p is aligned to a pack, or `value` in
  // every lane.
  template <int V>
  GPUVEC_HD Pack<T, V> pack(int64_t i) const {
    if (p) return converted(reinterpret_cast<const Pack<S, V>*>(p)[i]);
    return repeated<V>(value);
  }

  // The V elements from `offset` on, stepping by `step`: 1 (a run of
  // consecutive elements, aligned to a pack) or 0 (one element repeated, as
  // along a broadcast dimension).
  template <int V>
  GPUVEC_HD Pack<T, V> pack_at(int64_t offset, int64_t step) const {
    if (p && step != 0) return converted(*reinterpret_cast<const Pack<S, V>*>(p + offset));
    return repeated<V>(at(offset));
  }

 private:
  template <int V>
  GPUVEC_HD static Pack<T, V> converted(const Pack<S, V> stored) {
    if constexpr (is_same_v<S, T>) {
      return stored;
    } else {
      Pack<T, V> r;
      for (int j = 0; j < V; ++j) r.v[j] = convert<T>(stored.v[j]);
      return r;
    }
  }
  template <int V>
  GPUVEC_HD static Pack<T, V> repeated(T v) {
    Pack<T, V> r;
    for (int j = 0; j < V; ++j) r.v[j] = v;
    return r;
  }
};

}  // namespace gpuvec

#endif  // GPUVEC_OPERAND_HPP
