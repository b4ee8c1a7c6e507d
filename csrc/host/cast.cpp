// float32 <-> float64 conversion on the host backend.
#include "../common/cast.hpp"

#include "walk.hpp"

namespace gpuvec::host {

template <class To, class From>
void cast(const Layout<2>& L, To* out, const From* x) {
  const int64_t n = L.size;
  if (L.contiguous()) {
#pragma omp parallel for simd if (n > kParallelThreshold) schedule(static)
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(x[i]);
    return;
  }
  walk(L, 0, n, [&](const int64_t(&off)[2]) { out[off[0]] = static_cast<To>(x[off[1]]); });
}

template void cast<double, float>(const Layout<2>&, double*, const float*);
template void cast<float, double>(const Layout<2>&, float*, const double*);

}  // namespace gpuvec::host
