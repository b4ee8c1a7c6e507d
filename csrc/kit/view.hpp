// Host memory as the staging pipeline walks it, and the layouts it needs.
#ifndef GPUVEC_KIT_VIEW_HPP
#define GPUVEC_KIT_VIEW_HPP

#include <stdint.h>

#include "gpuvec/gpuvec.h"
#include "gpuvec/layout.hpp"

namespace gpuvec {

// One operand of a staged op: element i of the walk (i in C order over
// layout's shape) is at data + the layout's offsets of i. The operands of one
// op share the walk's shape, so index i means the same element in each.
struct HostView {
  void* data;  // the element at index 0 (any flipped dimensions applied); null: a scalar
  gpuvec_dtype dtype;
  union {  // a scalar's value, as gpuvec_array holds it
    double scalar;
    int64_t integer;
  };
  Layout<1> layout;
};

// Operand k of a joint layout on its own: the same dimensions in the same
// order, so linear index i means the same element.
template <int N>
Layout<1> operand_layout(const Layout<N>& joint, int k) {
  Layout<1> L;
  L.ndim = joint.ndim;
  L.size = joint.size;
  for (int d = 0; d < joint.ndim; ++d) {
    L.shape[d] = joint.shape[d];
    L.strides[0][d] = joint.strides[k][d];
  }
  return L;
}

// n consecutive elements in each of N operands.
template <int N>
Layout<N> contiguous_layout(int64_t n) {
  Layout<N> L;
  L.ndim = 1;
  L.size = n;
  L.shape[0] = n;
  for (int k = 0; k < N; ++k) L.strides[k][0] = 1;
  return L;
}

// True when linear index i of the operand's walk is its element i: it can be
// written or read as one block.
inline bool dense_walk(const Layout<1>& L) {
  return L.ndim == 0 || (L.ndim == 1 && L.strides[0][0] == 1);
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_VIEW_HPP
