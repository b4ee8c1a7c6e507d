// The elementwise loop of the host backend, shared by every elementwise op.
#ifndef GPUVEC_HOST_MAP_HPP
#define GPUVEC_HOST_MAP_HPP

#include <stdint.h>

#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "gpuvec/layout.hpp"
#include "walk.hpp"

namespace gpuvec::host {

// out = f(in...) over the layout; operand 0 is out, operand k + 1 is in[k].
// The inputs may differ in type (a bool mask beside float data, say).
template <int N, class T, class F, class... In, size_t... K>
void map(const Layout<N>& L, F f, T* out, std::index_sequence<K...>, const In*... in) {
  const int64_t n = L.size;
  if (L.contiguous()) {
#pragma omp parallel for simd if (n > kParallelThreshold) schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]...);
    return;
  }
  // Strided: each thread walks its own range of linear indices.
#pragma omp parallel if (n > kParallelThreshold)
  {
    int64_t begin = 0, end = n;
#ifdef _OPENMP
    const int64_t chunk = (n + omp_get_num_threads() - 1) / omp_get_num_threads();
    begin = chunk * omp_get_thread_num();
    end = begin + chunk < n ? begin + chunk : n;
#endif
    walk(L, begin, end, [&](const int64_t(&off)[N]) { out[off[0]] = f(in[off[K + 1]]...); });
  }
}

template <int N, class T, class F, class... In>
void map(const Layout<N>& L, F f, T* out, const In*... in) {
  map(L, f, out, std::index_sequence_for<In...>{}, in...);
}

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_MAP_HPP
