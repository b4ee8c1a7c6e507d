// NumPy's sort order as unsigned integers: key(a) < key(b) exactly when a
// sorts before b, and key(a) == key(b) when NumPy takes them as equal. The
// sorts of both backends are radix sorts of these keys (one per unsigned
// width, not per dtype), and searchsorted and unique compare them.
//   unsigned integers and bool: the bits themselves;
//   signed integers: the top bit flipped (INT_MIN becomes 0);
//   floats: positive ones with the sign bit set, negative ones with every bit
//     flipped; -0.0 is first made 0.0 (NumPy's sorts take them as equal) and
//     every NaN becomes the largest key (NaN sorts last, NaNs equal).
// Compiled by the host compiler and by NVRTC (portable.hpp's types).
#ifndef GPUVEC_SORT_KEYS_HPP
#define GPUVEC_SORT_KEYS_HPP

#include "gpuvec/portable.hpp"
#if !defined(__CUDACC_RTC__)
#include <string.h>
#endif

namespace gpuvec {

// The unsigned integer of a type's width: a key.
template <int Bytes>
struct key_of_size;
template <>
struct key_of_size<1> {
  using type = uint8_t;
};
template <>
struct key_of_size<2> {
  using type = uint16_t;
};
template <>
struct key_of_size<4> {
  using type = uint32_t;
};
template <>
struct key_of_size<8> {
  using type = uint64_t;
};
template <class T>
using sort_key_t = typename key_of_size<sizeof(T)>::type;

// The bits of x as its key type.
template <class T>
GPUVEC_HD sort_key_t<T> bits_of(T x) {
  sort_key_t<T> bits;
#if defined(__CUDA_ARCH__)
  if constexpr (is_same_v<T, float>) {
    bits = __float_as_uint(x);
  } else if constexpr (is_same_v<T, double>) {
    bits = static_cast<uint64_t>(__double_as_longlong(x));
  } else {
    bits = static_cast<sort_key_t<T>>(x);
  }
#else
  memcpy(&bits, &x, sizeof bits);
#endif
  return bits;
}

template <class T>
GPUVEC_HD sort_key_t<T> sort_key(T x) {
  using K = sort_key_t<T>;
  constexpr K top = static_cast<K>(K{1} << (8 * sizeof(K) - 1));
  if constexpr (is_same_v<T, float> || is_same_v<T, double>) {
    if (x != x) return static_cast<K>(~K{0});  // NaN: last, all equal
    if (x == 0) return top;                    // -0.0 and 0.0: equal
    const K bits = bits_of(x);
    return (bits & top) ? static_cast<K>(~bits) : static_cast<K>(bits | top);
  } else if constexpr (is_same_v<T, bool>) {
    return static_cast<K>(x ? 1 : 0);
  } else if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {  // signed
    return static_cast<K>(static_cast<K>(x) ^ top);
  } else {
    return static_cast<K>(x);
  }
}

// The value whose key is `key`, for the keys that stand for one value: every
// key of an integer or bool, and of a float but the two that stand for
// several (0.0 and -0.0's, the NaNs'); a sort of keys alone gives those back
// from its input (host/sort.cpp, the host backend only).
#if !defined(__CUDACC_RTC__)
template <class T>
GPUVEC_HD T sort_key_value(sort_key_t<T> key) {
  using K = sort_key_t<T>;
  constexpr K top = static_cast<K>(K{1} << (8 * sizeof(K) - 1));
  if constexpr (is_same_v<T, float> || is_same_v<T, double>) {
    const K bits = (key & top) ? static_cast<K>(key ^ top) : static_cast<K>(~key);
    T x;
    memcpy(&x, &bits, sizeof x);
    return x;
  } else if constexpr (is_same_v<T, bool>) {
    return key != 0;
  } else if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {  // signed
    return static_cast<T>(static_cast<K>(key ^ top));
  } else {
    return static_cast<T>(key);
  }
}
#endif

}  // namespace gpuvec

#endif  // GPUVEC_SORT_KEYS_HPP
