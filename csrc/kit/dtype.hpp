// The C++ type behind each gpuvec_dtype, and dispatch on it.
#ifndef GPUVEC_KIT_DTYPE_HPP
#define GPUVEC_KIT_DTYPE_HPP

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <type_traits>

#include "error.hpp"
#include "gpuvec/gpuvec.h"
#include "gpuvec/operand.hpp"

namespace gpuvec {

// Every dtype the ops compute in: X(code, C type, NumPy's name). A new
// dtype is a row here.
#define GPUVEC_DTYPES(X)               \
  X(GPUVEC_FLOAT32, float, "float32")  \
  X(GPUVEC_FLOAT64, double, "float64") \
  X(GPUVEC_BOOL, bool, "bool")         \
  X(GPUVEC_INT8, int8_t, "int8")       \
  X(GPUVEC_INT16, int16_t, "int16")    \
  X(GPUVEC_INT32, int32_t, "int32")    \
  X(GPUVEC_INT64, int64_t, "int64")    \
  X(GPUVEC_UINT8, uint8_t, "uint8")    \
  X(GPUVEC_UINT16, uint16_t, "uint16") \
  X(GPUVEC_UINT32, uint32_t, "uint32") \
  X(GPUVEC_UINT64, uint64_t, "uint64")

// Every dtype an array may hold: those, float16, which the ops read as
// float32 (the boundary converts it) and which copies and conversions move,
// and the complex dtypes, which the elementwise ops NumPy defines for them
// compute in (with_complex), and nothing else does: reductions, scans and
// sorts dispatch with with_dtype, over the real compute dtypes alone.
// No op kernel is instantiated for half: with_stored_dtype dispatches over
// all of these.
#define GPUVEC_STORAGE_DTYPES(X)              \
  GPUVEC_DTYPES(X)                            \
  X(GPUVEC_FLOAT16, half, "float16")          \
  X(GPUVEC_COMPLEX64, complex64, "complex64") \
  X(GPUVEC_COMPLEX128, complex128, "complex128")

inline bool is_float(gpuvec_dtype dtype) {
  return dtype == GPUVEC_FLOAT32 || dtype == GPUVEC_FLOAT64;
}

inline bool is_complex(gpuvec_dtype dtype) {
  return dtype == GPUVEC_COMPLEX64 || dtype == GPUVEC_COMPLEX128;
}

inline bool is_signed_integer(gpuvec_dtype dtype) {
  return dtype == GPUVEC_INT8 || dtype == GPUVEC_INT16 || dtype == GPUVEC_INT32 ||
         dtype == GPUVEC_INT64;
}

inline bool is_integer(gpuvec_dtype dtype) {
  return is_signed_integer(dtype) || dtype == GPUVEC_UINT8 || dtype == GPUVEC_UINT16 ||
         dtype == GPUVEC_UINT32 || dtype == GPUVEC_UINT64;
}

// The unsigned dtype of a signed one's width (the dtype itself for any other).
inline gpuvec_dtype unsigned_dtype(gpuvec_dtype dtype) {
  switch (dtype) {
    case GPUVEC_INT8:
      return GPUVEC_UINT8;
    case GPUVEC_INT16:
      return GPUVEC_UINT16;
    case GPUVEC_INT32:
      return GPUVEC_UINT32;
    case GPUVEC_INT64:
      return GPUVEC_UINT64;
    default:
      return dtype;
  }
}

inline const char* dtype_name(gpuvec_dtype dtype) {
  switch (dtype) {
#define GPUVEC_NAME(code, type, name) \
  case code:                          \
    return name;
    GPUVEC_STORAGE_DTYPES(GPUVEC_NAME)
#undef GPUVEC_NAME
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

// Calls body(T{}) with T the type of any dtype the ops compute in (float16,
// stored only, is with_stored_dtype's); a bool is C++'s bool, one byte
// holding 0 or 1 as NumPy's does.
template <class Body>
decltype(auto) with_dtype(gpuvec_dtype dtype, Body&& body) {
  switch (dtype) {
#define GPUVEC_CASE(code, type, name) \
  case code:                          \
    return body(type{});
    GPUVEC_DTYPES(GPUVEC_CASE)
#undef GPUVEC_CASE
    case GPUVEC_FLOAT16:    // stored only: no op computes in it
    case GPUVEC_COMPLEX64:  // the elementwise ops' alone: with_complex
    case GPUVEC_COMPLEX128:
      break;
  }
  if (dtype == GPUVEC_FLOAT16) {
    throw_invalid_argument(
        "float16 data is not taken here: convert it with astype(numpy.float32) first");
  }
  if (is_complex(dtype)) {
    throw_invalid_argument(std::string(dtype_name(dtype)) + " data is not taken here");
  }
  throw_invalid_argument("unknown dtype code " + std::to_string(static_cast<int>(dtype)));
}

// Calls body(T{}) with T the type of any dtype an array may hold: with_dtype's,
// half for float16, complex64 and complex128.
template <class Body>
decltype(auto) with_stored_dtype(gpuvec_dtype dtype, Body&& body) {
  if (dtype == GPUVEC_FLOAT16) return body(half{});
  if (dtype == GPUVEC_COMPLEX64) return body(complex64{});
  if (dtype == GPUVEC_COMPLEX128) return body(complex128{});
  return with_dtype(dtype, static_cast<Body&&>(body));
}

// Calls body(T{}) with T complex64 or complex128.
template <class Body>
decltype(auto) with_complex(gpuvec_dtype dtype, Body&& body) {
  if (dtype == GPUVEC_COMPLEX64) return body(complex64{});
  if (dtype == GPUVEC_COMPLEX128) return body(complex128{});
  throw Error(GPUVEC_ERROR_INTERNAL,
              std::string("a complex dtype was expected, got ") + dtype_name(dtype));
}

// Whether T is the type of a dtype.
#define GPUVEC_IS(code, type, name) || std::is_same_v<T, type>
template <class T>
constexpr bool kHasDtype = false GPUVEC_STORAGE_DTYPES(GPUVEC_IS);
#undef GPUVEC_IS

// The dtype of a C type.
template <class T>
constexpr gpuvec_dtype dtype_of() {
  static_assert(kHasDtype<T>, "a type with a gpuvec dtype");
#define GPUVEC_CODE(code, type, name) \
  if constexpr (std::is_same_v<T, type>) return code;
  GPUVEC_STORAGE_DTYPES(GPUVEC_CODE)
#undef GPUVEC_CODE
  return GPUVEC_FLOAT64;  // not reached
}

inline size_t itemsize(gpuvec_dtype dtype) {
  return with_stored_dtype(dtype, [](auto zero) { return sizeof(zero); });
}

// A scalar's value as T (of a gpuvec_array or a HostView), converted as
// NumPy's astype converts: from its exact 64-bit `integer` for an integer
// dtype, else from its double (to bool: any nonzero value is true, NaN too).
template <class T, class Scalar>
T scalar_value(const Scalar& a) {
  if (a.dtype == GPUVEC_UINT64) return convert<T>(static_cast<uint64_t>(a.integer));
  if (is_integer(a.dtype)) return convert<T>(a.integer);
  return convert<T>(a.scalar);
}

// Every dtype converts to every other (gpuvec/operand.hpp's convert: NumPy's
// astype with casting="unsafe").
inline bool convertible(gpuvec_dtype, gpuvec_dtype) { return true; }

// Calls body(To{}, From{}) with the types of two dtypes that arrays hold
// (float16 included).
template <class Body>
void with_conversion(gpuvec_dtype to, gpuvec_dtype from, Body&& body) {
  // To is named in the outer lambda: GCC 12 takes decltype(t) of the outer
  // parameter, once the inner lambda uses t, for a reference type.
  with_stored_dtype(to, [&](auto t) {
    using To = decltype(t);
    with_stored_dtype(from, [&](auto f) {
      using From = decltype(f);
      body(To{}, From{});
    });
  });
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_DTYPE_HPP
