// Reductions on the host backend.
//
// The input is cut into fixed blocks of kBlock elements; each block is summed
// on its own (on the thread pool of parallel.hpp where the input is
// large) and the block sums are then added pairwise. The order depends only
// on the input's size, never on the number of threads, so the result is
// deterministic.
#include <stdint.h>

#include <utility>
#include <vector>

#include "../kit/backends.hpp"
#include "gpuvec/ops.hpp"
#include "gpuvec/walk.hpp"
#include "parallel.hpp"

namespace gpuvec::host {
namespace {

using ops::Accumulator;
constexpr int64_t kBlock = 1 << 14;

// Independent running sums in a contiguous block. One sum is a chain of
// dependent adds, each waiting for the last (about 4 cycles): 8 of them,
// which the compiler keeps in vector registers, keep the adder busy, and the
// loop runs at memory speed instead of add latency. They are added in a
// fixed order, so the result still depends only on the input.
constexpr int kLanes = 8;

template <class Term, class... In>
Accumulator contiguous_sum(int64_t begin, int64_t end, Term term, const In*... in) {
  Accumulator lane[kLanes] = {};
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lane[l] += term(in[i + l]...);
  }
  for (; i < end; ++i) lane[0] += term(in[i]...);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

Accumulator pairwise_total(const Accumulator* v, int64_t n) {
  if (n <= 8) {
    Accumulator s = 0;
    for (int64_t i = 0; i < n; ++i) s += v[i];
    return s;
  }
  const int64_t half = n / 2;
  return pairwise_total(v, half) + pairwise_total(v + half, n - half);
}

template <int N, class Term, class... In, size_t... K>
Accumulator reduce(const Layout<N>& L, Term term, std::index_sequence<K...>, const In*... in) {
  const int64_t n = L.size;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<Accumulator> partial(blocks);
  const bool contiguous = L.contiguous();
  for_each(blocks, n > kParallelThreshold, [&](int64_t blk, int) {
    const int64_t begin = blk * kBlock;
    const int64_t end = begin + kBlock < n ? begin + kBlock : n;
    Accumulator acc = 0;
    if (contiguous) {
      acc = contiguous_sum(begin, end, term, in...);
    } else {
      walk(L, begin, end, [&](const int64_t(&off)[N]) { acc += term(in[off[K]]...); });
    }
    partial[blk] = acc;
  });
  return pairwise_total(partial.data(), blocks);
}

template <int N, class Term, class... In>
Accumulator reduce(const Layout<N>& L, Term term, const In*... in) {
  return reduce(L, term, std::index_sequence_for<In...>{}, in...);
}

}  // namespace

template <class T>
void sum(const Layout<1>& L, const T* x, T* result, int, gpuvec_stream) {
  *result = static_cast<T>(reduce(L, ops::SumTerm{}, x));
}

template <class T>
void dot(const Layout<2>& L, const T* x, const T* y, T* result, int, gpuvec_stream) {
  *result = static_cast<T>(reduce(L, ops::DotTerm{}, x, y));
}

template void sum<float>(const Layout<1>&, const float*, float*, int, gpuvec_stream);
template void sum<double>(const Layout<1>&, const double*, double*, int, gpuvec_stream);
template void dot<float>(const Layout<2>&, const float*, const float*, float*, int, gpuvec_stream);
template void dot<double>(const Layout<2>&, const double*, const double*, double*, int,
                          gpuvec_stream);

}  // namespace gpuvec::host
