// Visiting the elements of a layout on the host, in C order: the host
// backend's loops (gpuvec/map.hpp's among them, compiled into a user's
// ElementwiseKernel too) and the staging pipeline's gathers and scatters.
#ifndef GPUVEC_WALK_HPP
#define GPUVEC_WALK_HPP

#include "gpuvec/layout.hpp"
#include "gpuvec/portable.hpp"

namespace gpuvec {

// Below this many elements a host loop runs on one thread, without waking
// other threads: handing out the work costs more than it saves.
constexpr int64_t kParallelThreshold = 1 << 15;

// Calls visit(off) for the linear indices [begin, end), where off[k] is the
// element offset of operand k. An odometer over the dimensions replaces the
// per-element divisions of Layout::offsets.
template <int N, class Visit>
void walk(const Layout<N>& L, int64_t begin, int64_t end, Visit&& visit) {
  if (begin >= end) return;
  int64_t index[GPUVEC_MAX_NDIM];
  int64_t off[N];
  for (int k = 0; k < N; ++k) off[k] = 0;
  int64_t rest = begin;
  for (int d = L.ndim - 1; d >= 0; --d) {
    index[d] = rest % L.shape[d];
    rest /= L.shape[d];
    for (int k = 0; k < N; ++k) off[k] += index[d] * L.strides[k][d];
  }
  for (int64_t i = begin; i < end; ++i) {
    visit(off);
    for (int d = L.ndim - 1; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off[k] += L.strides[k][d];
      if (++index[d] < L.shape[d]) break;
      for (int k = 0; k < N; ++k) off[k] -= L.strides[k][d] * L.shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace gpuvec

#endif  // GPUVEC_WALK_HPP
