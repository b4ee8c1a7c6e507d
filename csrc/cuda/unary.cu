// Unary ops, clip and where on the CUDA backend (the kernels are in map.cuh).
#include <stdint.h>

#include "../common/backends.hpp"
#include "../common/dispatch.hpp"
#include "gpuvec/ops.hpp"
#include "map.cuh"

namespace gpuvec::cuda {

template <class T>
void unary(gpuvec_unary_op op, const Layout<2>& L, T* out, const T* x, int threads_per_block,
           gpuvec_stream stream) {
  visit_unary_op(op, [&](auto f) { map(L, f, out, threads_per_block, stream, x); });
}

template <class T>
void clip(const Layout<4>& L, T* out, const T* x, const T* lo, const T* hi, int threads_per_block,
          gpuvec_stream stream) {
  map(L, ops::Clip{}, out, threads_per_block, stream, x, lo, hi);
}

template <class T>
void where(const Layout<4>& L, T* out, const uint8_t* cond, const T* a, const T* b,
           int threads_per_block, gpuvec_stream stream) {
  map(L, ops::Where{}, out, threads_per_block, stream, cond, a, b);
}

template void unary<float>(gpuvec_unary_op, const Layout<2>&, float*, const float*, int,
                           gpuvec_stream);
template void unary<double>(gpuvec_unary_op, const Layout<2>&, double*, const double*, int,
                            gpuvec_stream);
template void clip<float>(const Layout<4>&, float*, const float*, const float*, const float*, int,
                          gpuvec_stream);
template void clip<double>(const Layout<4>&, double*, const double*, const double*, const double*,
                           int, gpuvec_stream);
template void where<float>(const Layout<4>&, float*, const uint8_t*, const float*, const float*,
                           int, gpuvec_stream);
template void where<double>(const Layout<4>&, double*, const uint8_t*, const double*,
                            const double*, int, gpuvec_stream);

}  // namespace gpuvec::cuda
