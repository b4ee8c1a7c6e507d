// Array layouts: one shape shared by N operands, each with its own strides.
//
// Before a launch the layout is simplified: dimensions of extent 1 are
// dropped, dimensions that every operand walks backwards are flipped, the
// dimensions are ordered by the first operand's stride, and neighbours that
// are contiguous in every operand are merged. A C- or Fortran-ordered array,
// or a reversed one, thereby becomes one dimension of stride 1, which is the
// fast path of every kernel.
//
// Installed, and compiled by NVRTC too (see gpuvec/portable.hpp): a Layout is
// a kernel parameter of the map kernels (gpuvec/map.hpp).
#ifndef GPUVEC_LAYOUT_HPP
#define GPUVEC_LAYOUT_HPP

#include "gpuvec/limits.h"
#include "gpuvec/portable.hpp"

namespace gpuvec {

template <int N>
struct Layout {
  int ndim = 0;
  int64_t size = 1;
  int64_t shape[GPUVEC_MAX_NDIM] = {};
  int64_t strides[N][GPUVEC_MAX_NDIM] = {};
  int64_t offset[N] = {};  // element offsets from flipped dimensions, added to each base pointer

  // True when every operand is one run of consecutive elements.
  GPUVEC_HD bool contiguous() const {
    if (ndim == 0) return true;
    if (ndim > 1) return false;
    for (int k = 0; k < N; ++k) {
      if (strides[k][0] != 1) return false;
    }
    return true;
  }

  // The element offsets of linear index i (C order over the simplified shape).
  GPUVEC_HD void offsets(int64_t i, int64_t (&off)[N]) const {
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t idx = i % shape[d];
      i /= shape[d];
      for (int k = 0; k < N; ++k) off[k] += idx * strides[k][d];
    }
  }
};

#if !defined(__CUDACC_RTC__)  // gpuvec's own (csrc/common/layout.cpp)
// Builds the simplified layout of an op's operands. strides[k] are the element
// strides of operand k. Throws gpuvec::Error for an invalid ndim or shape.
template <int N>
Layout<N> simplify_layout(int ndim, const int64_t* shape, const int64_t* const (&strides)[N]);

// The layout of one operand that keeps the order of its elements: dimensions
// of extent 1 are dropped and neighbours that are contiguous are merged, but
// nothing is flipped or reordered, so linear index i of the result is the
// C-order index i over `shape` (what argmin and argmax report).
Layout<1> ordered_layout(int ndim, const int64_t* shape, const int64_t* strides);
#endif

}  // namespace gpuvec

#endif  // GPUVEC_LAYOUT_HPP
