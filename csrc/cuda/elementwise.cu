// Elementwise ops on the CUDA backend (the kernels are in map.cuh).
#include <stdint.h>

#include "../common/backends.hpp"
#include "../common/dispatch.hpp"
#include "gpuvec/ops.hpp"
#include "map.cuh"

namespace gpuvec::cuda {

template <class T>
void binary(gpuvec_binary_op op, const Layout<3>& L, T* out, const T* a, const T* b,
            int threads_per_block, gpuvec_stream stream) {
  visit_binary_op(op, [&](auto f) { map(L, f, out, threads_per_block, stream, a, b); });
}

template <class T>
void scale(const Layout<2>& L, T* out, T alpha, const T* x, int threads_per_block,
           gpuvec_stream stream) {
  map(L, ops::Scale<T>{alpha}, out, threads_per_block, stream, x);
}

template <class T>
void axpy(const Layout<3>& L, T* out, T alpha, const T* x, const T* y, int threads_per_block,
          gpuvec_stream stream) {
  map(L, ops::Axpy<T>{alpha}, out, threads_per_block, stream, x, y);
}

template <class T>
void axpby(const Layout<3>& L, T* out, T alpha, const T* x, T beta, const T* y,
           int threads_per_block, gpuvec_stream stream) {
  map(L, ops::Axpby<T>{alpha, beta}, out, threads_per_block, stream, x, y);
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
template void axpby<float>(const Layout<3>&, float*, float, const float*, float, const float*, int,
                           gpuvec_stream);
template void axpby<double>(const Layout<3>&, double*, double, const double*, double,
                            const double*, int, gpuvec_stream);

}  // namespace gpuvec::cuda
