// What gpuvec_elementwise (gpuvec's own ops) and gpuvec_map (a user's
// compiled ElementwiseKernel) do alike before their kernels run: the joint
// layout of out and the inputs, each input as an Operand, and an out that
// overlaps an input computed in a temporary first.
#ifndef GPUVEC_COMMON_MAP_CALL_HPP
#define GPUVEC_COMMON_MAP_CALL_HPP

#include <stdint.h>

#include <type_traits>

#include "../kit/dtype.hpp"
#include "arrays.hpp"
#include "gpuvec/gpuvec.h"
#include "gpuvec/layout.hpp"
#include "gpuvec/operand.hpp"
#include "temporaries.hpp"

namespace gpuvec {

// The address of a's element at `offset` elements from element (0, ..., 0).
inline void* element_at(const gpuvec_array& a, int64_t offset) {
  return static_cast<char*>(a.data) + offset * static_cast<int64_t>(itemsize(a.dtype));
}

// Input a, read as T from elements stored as S, from `offset` on (a layout's
// offset from flipped dimensions); a scalar's value in T.
template <class T, class S = T>
Operand<T, S> operand(const gpuvec_array& a, int64_t offset) {
  if (is_scalar(a)) return {nullptr, scalar_value<T>(a)};
  return {static_cast<const S*>(element_at(a, offset)), T{}};
}

// One simplified layout over out (operand 0) and the N - 1 inputs (operand
// k + 1), a scalar given out's strides so that it never keeps dimensions
// apart.
template <int N>
Layout<N> joint_layout(const gpuvec_array& out, const gpuvec_array* in) {
  const int64_t* strides[N];
  strides[0] = out.strides;
  for (int k = 0; k + 1 < N; ++k) strides[k + 1] = is_scalar(in[k]) ? out.strides : in[k].strides;
  return simplify_layout<N>(out.ndim, out.shape, strides);
}

// out itself, or, where it overlaps one of the n inputs other than as its
// very view (an element could then be written before it is read), a
// temporary like it in `memory`, which the caller copies into out afterwards.
gpuvec_array writable_out(const gpuvec_array& out, const gpuvec_array* in, int n,
                          gpuvec_memory memory, Scratch& scratch);

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_MAP_CALL_HPP
