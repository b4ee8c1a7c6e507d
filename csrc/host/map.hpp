// gpuvec's own elementwise ops on the host backend: gpuvec/map.hpp's loop, on the
// thread pool where the work is large enough.
#ifndef GPUVEC_HOST_MAP_HPP
#define GPUVEC_HOST_MAP_HPP

#include <stdint.h>

#include "gpuvec/layout.hpp"
#include "gpuvec/map.hpp"
#include "gpuvec/operand.hpp"
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

// out = f(in...) over the layout (gpuvec/map.hpp's loop), in pieces on the
// pool where it is large enough.
template <int N, class T, class F, class... In, class... S>
void map(const Layout<N>& L, F f, T* out, const Operand<In, S>... in) {
  parallel_ranges(L.size,
                  [&](int64_t begin, int64_t end) { map_range(L, f, out, begin, end, in...); });
}

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_MAP_HPP
