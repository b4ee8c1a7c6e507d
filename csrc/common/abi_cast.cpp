// The extern "C" cast launchers: validate, simplify the layout, pick the backend.
#include <string>

#include "cast.hpp"
#include "error.hpp"
#include "gpuvec/cast.h"
#include "gpuvec/layout.hpp"

namespace gpuvec {
namespace {

template <class To, class From>
gpuvec_status cast(gpuvec_backend backend, int ndim, const int64_t* shape, const From* x,
                   const int64_t* x_strides, To* out, const int64_t* out_strides,
                   gpuvec_stream stream) {
  return guard([&] {
    if (backend != GPUVEC_BACKEND_HOST && backend != GPUVEC_BACKEND_CUDA) {
      throw_invalid_argument("unknown backend " + std::to_string(static_cast<int>(backend)));
    }
    const Layout<2> L = simplify_layout<2>(ndim, shape, {out_strides, x_strides});
    if (L.size == 0) return;
    if (out == nullptr || x == nullptr) throw_invalid_argument("null pointer");
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::cast(L, out + L.offset[0], x + L.offset[1], stream);
    } else {
      host::cast(L, out + L.offset[0], x + L.offset[1]);
    }
  });
}

}  // namespace
}  // namespace gpuvec

extern "C" {

gpuvec_status gpuvec_cast_f32_to_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                     const float* x, const int64_t* x_strides, double* out,
                                     const int64_t* out_strides, gpuvec_stream stream) {
  return gpuvec::cast(backend, ndim, shape, x, x_strides, out, out_strides, stream);
}

gpuvec_status gpuvec_cast_f64_to_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                     const double* x, const int64_t* x_strides, float* out,
                                     const int64_t* out_strides, gpuvec_stream stream) {
  return gpuvec::cast(backend, ndim, shape, x, x_strides, out, out_strides, stream);
}

}  // extern "C"
