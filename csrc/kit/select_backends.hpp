// What each backend implements for boolean masks (gpuvec_count_true,
// gpuvec_compress, gpuvec_expand). The boundary (csrc/common/abi_select.cpp)
// checks a call and hands these functions dense arrays in C order only: the
// k-th selected element is then simply the k-th element whose mask byte is
// true, and every backend agrees on it without a layout to walk.
//
// A selection moves elements without looking at their values, so each
// function is compiled once per element size rather than per dtype: Bits is
// an unsigned integer of the element's size (uint8_t for bool, uint32_t for
// float32, uint64_t for float64 and int64), and the bits of every element,
// NaN payloads included, arrive unchanged. A mask is bytes, 0 or 1.
#ifndef GPUVEC_KIT_SELECT_BACKENDS_HPP
#define GPUVEC_KIT_SELECT_BACKENDS_HPP

#include <stddef.h>
#include <stdint.h>

#include <string>

#include "error.hpp"
#include "gpuvec/gpuvec.h"

namespace gpuvec {

// The n elements of the arrays are dense and in C order. threads_per_block is
// the block size of the CUDA backend's own kernels (CUB picks its own); the
// host backend ignores it and the stream.
#define GPUVEC_SELECT_FUNCTIONS                                                                  \
  /* The number of true bytes of mask; on the CUDA backend it waits for the result */            \
  int64_t count_true(int64_t n, const uint8_t* mask, gpuvec_stream stream);                      \
  /* out[k] = the k-th element of x whose mask byte is true */                                   \
  template <class Bits>                                                                          \
  void compress(int64_t n, const Bits* x, const uint8_t* mask, Bits* out, int threads_per_block, \
                gpuvec_stream stream);                                                           \
  /* The k-th element of x whose mask byte is true = values[k], or values[0] for every */        \
  /* such element when broadcast */                                                              \
  template <class Bits>                                                                          \
  void expand(int64_t n, Bits* x, const uint8_t* mask, const Bits* values, bool broadcast,       \
              int threads_per_block, gpuvec_stream stream);

// The element types the functions are compiled for.
#define GPUVEC_SELECT_BITS(X) \
  X(uint8_t)                  \
  X(uint16_t)                 \
  X(uint32_t)                 \
  X(uint64_t)

namespace host {
GPUVEC_SELECT_FUNCTIONS
}  // namespace host

namespace cuda {
GPUVEC_SELECT_FUNCTIONS
}  // namespace cuda

#undef GPUVEC_SELECT_FUNCTIONS

// Calls body(Bits{}) with Bits the unsigned integer of an element of `size`
// bytes.
template <class Body>
void with_bits(size_t size, Body&& body) {
  switch (size) {
    case 1:
      return body(uint8_t{});
    case 2:
      return body(uint16_t{});
    case 4:
      return body(uint32_t{});
    case 8:
      return body(uint64_t{});
    default:
      throw Error(GPUVEC_ERROR_INTERNAL,
                  "no selection for elements of " + std::to_string(size) + " bytes");
  }
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_SELECT_BACKENDS_HPP
