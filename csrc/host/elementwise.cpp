// Elementwise ops on the host backend.
#include <stdint.h>

#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../common/backends.hpp"
#include "../common/dispatch.hpp"
#include "gpuvec/ops.hpp"
#include "walk.hpp"

namespace gpuvec::host {
namespace {

// out = f(in...) over the layout; operand 0 is out, operand k + 1 is in[k].
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

}  // namespace

template <class T>
void binary(gpuvec_binary_op op, const Layout<3>& L, T* out, const T* a, const T* b, int,
            gpuvec_stream) {
  visit_binary_op(op, [&](auto f) { map(L, f, out, a, b); });
}

template <class T>
void scale(const Layout<2>& L, T* out, T alpha, const T* x, int, gpuvec_stream) {
  map(L, ops::Scale<T>{alpha}, out, x);
}

template <class T>
void axpy(const Layout<3>& L, T* out, T alpha, const T* x, const T* y, int, gpuvec_stream) {
  map(L, ops::Axpy<T>{alpha}, out, x, y);
}

template void binary<float>(gpuvec_binary_op, const Layout<3>&, float*, const float*, const float*,
                            int, gpuvec_stream);
template void binary<double>(gpuvec_binary_op, const Layout<3>&, double*, const double*,
                             const double*, int, gpuvec_stream);
template void scale<float>(const Layout<2>&, float*, float, const float*, int, gpuvec_stream);
template void scale<double>(const Layout<2>&, double*, double, const double*, int, gpuvec_stream);
template void axpy<float>(const Layout<3>&, float*, float, const float*, const float*, int,
                          gpuvec_stream);
template void axpy<double>(const Layout<3>&, double*, double, const double*, const double*, int,
                           gpuvec_stream);

}  // namespace gpuvec::host
