// The elementwise loop of the host backend, shared by every elementwise op.
#ifndef GPUVEC_HOST_MAP_HPP
#define GPUVEC_HOST_MAP_HPP

#include <stdint.h>

#include <utility>

#include "../kit/operand.hpp"
#include "../kit/walk.hpp"
#include "gpuvec/layout.hpp"
#include "parallel.hpp"

namespace gpuvec::host {

// Pieces of a loop are at least this many elements (microseconds of work):
// smaller ones cost more to hand out than they give back.
constexpr int64_t kMinPiece = 1 << 14;

// Runs body(begin, end) over [0, n): on this thread alone up to
// kParallelThreshold, else in pieces on the pool.
template <class Body>
void parallel_ranges(int64_t n, Body&& body) {
  const int threads = workers(n > kParallelThreshold);
  in_pieces(n, pieces(n, threads, kMinPiece),
            [&](int64_t begin, int64_t end, int) { body(begin, end); });
}

// out = f(in...) over the layout; operand 0 is out, operand k + 1 is in[k].
// The inputs may differ in type (a bool mask beside float data, say).
template <int N, class T, class F, class... In, class... S, size_t... K>
void map(const Layout<N>& L, F f, T* out, std::index_sequence<K...>, const Operand<In, S>... in) {
  if (L.contiguous()) {
    // One loop for arrays and scalars alike: each scalar's test is loop
    // invariant, so the compiler unswitches it and vectorizes every version.
    parallel_ranges(L.size, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) out[i] = f(in.at(i)...);
    });
    return;
  }
  // Strided: each thread walks its own range of linear indices.
  parallel_ranges(L.size, [&](int64_t begin, int64_t end) {
    walk(L, begin, end, [&](const int64_t(&off)[N]) { out[off[0]] = f(in.at(off[K + 1])...); });
  });
}

template <int N, class T, class F, class... In, class... S>
void map(const Layout<N>& L, F f, T* out, const Operand<In, S>... in) {
  map(L, f, out, std::index_sequence_for<In...>{}, in...);
}

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_MAP_HPP
