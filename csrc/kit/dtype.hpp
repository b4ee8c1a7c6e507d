// The C++ type behind each gpuvec_dtype, and dispatch on it.
#ifndef GPUVEC_KIT_DTYPE_HPP
#define GPUVEC_KIT_DTYPE_HPP

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <type_traits>

#include "error.hpp"
#include "gpuvec/gpuvec.h"

namespace gpuvec {

inline bool is_float(gpuvec_dtype dtype) {
  return dtype == GPUVEC_FLOAT32 || dtype == GPUVEC_FLOAT64;
}

inline const char* dtype_name(gpuvec_dtype dtype) {
  switch (dtype) {
    case GPUVEC_FLOAT32:
      return "float32";
    case GPUVEC_FLOAT64:
      return "float64";
    case GPUVEC_INT64:
      return "int64";
    case GPUVEC_BOOL:
      return "bool";
  }
  return "an unknown dtype";
}

// Calls body(T{}) with T the type of a float dtype: float or double.
template <class Body>
decltype(auto) with_float(gpuvec_dtype dtype, Body&& body) {
  if (dtype == GPUVEC_FLOAT32) return body(float{});
  if (dtype == GPUVEC_FLOAT64) return body(double{});
  throw Error(GPUVEC_ERROR_INTERNAL,
              std::string("a float dtype was expected, got ") + dtype_name(dtype));
}

// Calls body(T{}) with T the type of any dtype; bool's is C++'s one-byte bool.
template <class Body>
decltype(auto) with_dtype(gpuvec_dtype dtype, Body&& body) {
  switch (dtype) {
    case GPUVEC_FLOAT32:
      return body(float{});
    case GPUVEC_FLOAT64:
      return body(double{});
    case GPUVEC_INT64:
      return body(int64_t{});
    case GPUVEC_BOOL:
      return body(bool{});
  }
  throw_invalid_argument("unknown dtype code " + std::to_string(static_cast<int>(dtype)));
}

// The dtype of a C type.
template <class T>
constexpr gpuvec_dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>) {
    return GPUVEC_FLOAT32;
  } else if constexpr (std::is_same_v<T, double>) {
    return GPUVEC_FLOAT64;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return GPUVEC_INT64;
  } else {
    static_assert(std::is_same_v<T, bool>, "a type with a gpuvec dtype");
    return GPUVEC_BOOL;
  }
}

inline size_t itemsize(gpuvec_dtype dtype) {
  return with_dtype(dtype, [](auto zero) { return sizeof(zero); });
}

// The conversions the kernels are compiled for: between the float types and
// bool (GPUVEC_CAST_TYPES). gpuvec_copy makes those of convertible() alone.
template <class T>
constexpr bool kFloatOrBool = std::is_floating_point_v<T> || std::is_same_v<T, bool>;
template <class To, class From>
constexpr bool kConvertible = std::is_same_v<To, From> || (kFloatOrBool<To> && kFloatOrBool<From>);

inline bool convertible(gpuvec_dtype to, gpuvec_dtype from) {
  return to == from || (is_float(to) && is_float(from));
}

// Calls body(To{}, From{}) with the types of two dtypes that convert.
template <class Body>
void with_conversion(gpuvec_dtype to, gpuvec_dtype from, Body&& body) {
  // To is named in the outer lambda: GCC 12 takes decltype(t) of the outer
  // parameter, once the inner lambda uses t, for a reference type.
  with_dtype(to, [&](auto t) {
    using To = decltype(t);
    with_dtype(from, [&](auto f) {
      using From = decltype(f);
      if constexpr (kConvertible<To, From>) {
        body(To{}, From{});
      } else {
        throw Error(GPUVEC_ERROR_INTERNAL, std::string("no conversion from ") + dtype_name(from) +
                                               " to " + dtype_name(to));
      }
    });
  });
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_DTYPE_HPP
