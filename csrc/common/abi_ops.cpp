// The extern "C" op launchers: validate, simplify the layout, pick the backend.
#include <string>

#include "backends.hpp"
#include "checks.hpp"
#include "error.hpp"
#include "gpuvec/gpuvec.h"
#include "gpuvec/layout.hpp"

namespace gpuvec {
namespace {

template <class T>
gpuvec_status binary(gpuvec_backend backend, gpuvec_binary_op op, int ndim, const int64_t* shape,
                     const T* a, const int64_t* a_strides, const T* b, const int64_t* b_strides,
                     T* out, const int64_t* out_strides, int threads_per_block,
                     gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, false);
    const Layout<3> L = simplify_layout<3>(ndim, shape, {out_strides, a_strides, b_strides});
    check_pointer(out, L.size, "out");
    check_pointer(a, L.size, "a");
    check_pointer(b, L.size, "b");
    if (L.size == 0) return;
    T* o = out + L.offset[0];
    const T* pa = a + L.offset[1];
    const T* pb = b + L.offset[2];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::binary(op, L, o, pa, pb, threads_per_block, stream);
    } else {
      host::binary(op, L, o, pa, pb, threads_per_block, stream);
    }
  });
}

template <class T>
gpuvec_status scale(gpuvec_backend backend, int ndim, const int64_t* shape, T alpha, const T* x,
                    const int64_t* x_strides, T* out, const int64_t* out_strides,
                    int threads_per_block, gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, false);
    const Layout<2> L = simplify_layout<2>(ndim, shape, {out_strides, x_strides});
    check_pointer(out, L.size, "out");
    check_pointer(x, L.size, "x");
    if (L.size == 0) return;
    T* o = out + L.offset[0];
    const T* px = x + L.offset[1];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::scale(L, o, alpha, px, threads_per_block, stream);
    } else {
      host::scale(L, o, alpha, px, threads_per_block, stream);
    }
  });
}

template <class T>
gpuvec_status axpy(gpuvec_backend backend, int ndim, const int64_t* shape, T alpha, const T* x,
                   const int64_t* x_strides, const T* y, const int64_t* y_strides, T* out,
                   const int64_t* out_strides, int threads_per_block, gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, false);
    const Layout<3> L = simplify_layout<3>(ndim, shape, {out_strides, x_strides, y_strides});
    check_pointer(out, L.size, "out");
    check_pointer(x, L.size, "x");
    check_pointer(y, L.size, "y");
    if (L.size == 0) return;
    T* o = out + L.offset[0];
    const T* px = x + L.offset[1];
    const T* py = y + L.offset[2];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::axpy(L, o, alpha, px, py, threads_per_block, stream);
    } else {
      host::axpy(L, o, alpha, px, py, threads_per_block, stream);
    }
  });
}

template <class T>
gpuvec_status axpby(gpuvec_backend backend, int ndim, const int64_t* shape, T alpha, const T* x,
                    const int64_t* x_strides, T beta, const T* y, const int64_t* y_strides, T* out,
                    const int64_t* out_strides, int threads_per_block, gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, false);
    const Layout<3> L = simplify_layout<3>(ndim, shape, {out_strides, x_strides, y_strides});
    check_pointer(out, L.size, "out");
    check_pointer(x, L.size, "x");
    check_pointer(y, L.size, "y");
    if (L.size == 0) return;
    T* o = out + L.offset[0];
    const T* px = x + L.offset[1];
    const T* py = y + L.offset[2];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::axpby(L, o, alpha, px, beta, py, threads_per_block, stream);
    } else {
      host::axpby(L, o, alpha, px, beta, py, threads_per_block, stream);
    }
  });
}

// Reductions always write *result, also for an empty input (the sum is 0).
template <class T>
gpuvec_status sum(gpuvec_backend backend, int ndim, const int64_t* shape, const T* x,
                  const int64_t* x_strides, T* result, int threads_per_block,
                  gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, true);
    const Layout<1> L = simplify_layout<1>(ndim, shape, {x_strides});
    check_pointer(result, 1, "result");
    check_pointer(x, L.size, "x");
    const T* px = x + L.offset[0];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::sum(L, px, result, threads_per_block, stream);
    } else {
      host::sum(L, px, result, threads_per_block, stream);
    }
  });
}

template <class T>
gpuvec_status dot(gpuvec_backend backend, int ndim, const int64_t* shape, const T* x,
                  const int64_t* x_strides, const T* y, const int64_t* y_strides, T* result,
                  int threads_per_block, gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, true);
    const Layout<2> L = simplify_layout<2>(ndim, shape, {x_strides, y_strides});
    check_pointer(result, 1, "result");
    check_pointer(x, L.size, "x");
    check_pointer(y, L.size, "y");
    const T* px = x + L.offset[0];
    const T* py = y + L.offset[1];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::dot(L, px, py, result, threads_per_block, stream);
    } else {
      host::dot(L, px, py, result, threads_per_block, stream);
    }
  });
}

}  // namespace
}  // namespace gpuvec

// One line per dtype: the templates above do the work.
extern "C" {

gpuvec_status gpuvec_binary_f32(gpuvec_backend backend, gpuvec_binary_op op, int ndim,
                                const int64_t* shape, const float* a, const int64_t* a_strides,
                                const float* b, const int64_t* b_strides, float* out,
                                const int64_t* out_strides, int threads_per_block,
                                gpuvec_stream stream) {
  return gpuvec::binary(backend, op, ndim, shape, a, a_strides, b, b_strides, out, out_strides,
                        threads_per_block, stream);
}
gpuvec_status gpuvec_binary_f64(gpuvec_backend backend, gpuvec_binary_op op, int ndim,
                                const int64_t* shape, const double* a, const int64_t* a_strides,
                                const double* b, const int64_t* b_strides, double* out,
                                const int64_t* out_strides, int threads_per_block,
                                gpuvec_stream stream) {
  return gpuvec::binary(backend, op, ndim, shape, a, a_strides, b, b_strides, out, out_strides,
                        threads_per_block, stream);
}

gpuvec_status gpuvec_scale_f32(gpuvec_backend backend, int ndim, const int64_t* shape, float alpha,
                               const float* x, const int64_t* x_strides, float* out,
                               const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::scale(backend, ndim, shape, alpha, x, x_strides, out, out_strides,
                       threads_per_block, stream);
}
gpuvec_status gpuvec_scale_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                               double alpha, const double* x, const int64_t* x_strides,
                               double* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::scale(backend, ndim, shape, alpha, x, x_strides, out, out_strides,
                       threads_per_block, stream);
}

gpuvec_status gpuvec_axpy_f32(gpuvec_backend backend, int ndim, const int64_t* shape, float alpha,
                              const float* x, const int64_t* x_strides, const float* y,
                              const int64_t* y_strides, float* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream) {
  return gpuvec::axpy(backend, ndim, shape, alpha, x, x_strides, y, y_strides, out, out_strides,
                      threads_per_block, stream);
}
gpuvec_status gpuvec_axpy_f64(gpuvec_backend backend, int ndim, const int64_t* shape, double alpha,
                              const double* x, const int64_t* x_strides, const double* y,
                              const int64_t* y_strides, double* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream) {
  return gpuvec::axpy(backend, ndim, shape, alpha, x, x_strides, y, y_strides, out, out_strides,
                      threads_per_block, stream);
}

gpuvec_status gpuvec_axpby_f32(gpuvec_backend backend, int ndim, const int64_t* shape, float alpha,
                               const float* x, const int64_t* x_strides, float beta,
                               const float* y, const int64_t* y_strides, float* out,
                               const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::axpby(backend, ndim, shape, alpha, x, x_strides, beta, y, y_strides, out,
                       out_strides, threads_per_block, stream);
}
gpuvec_status gpuvec_axpby_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                               double alpha, const double* x, const int64_t* x_strides,
                               double beta, const double* y, const int64_t* y_strides, double* out,
                               const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::axpby(backend, ndim, shape, alpha, x, x_strides, beta, y, y_strides, out,
                       out_strides, threads_per_block, stream);
}

gpuvec_status gpuvec_sum_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const float* x, const int64_t* x_strides, float* result,
                             int threads_per_block, gpuvec_stream stream) {
  return gpuvec::sum(backend, ndim, shape, x, x_strides, result, threads_per_block, stream);
}
gpuvec_status gpuvec_sum_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const double* x, const int64_t* x_strides, double* result,
                             int threads_per_block, gpuvec_stream stream) {
  return gpuvec::sum(backend, ndim, shape, x, x_strides, result, threads_per_block, stream);
}

gpuvec_status gpuvec_dot_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const float* x, const int64_t* x_strides, const float* y,
                             const int64_t* y_strides, float* result, int threads_per_block,
                             gpuvec_stream stream) {
  return gpuvec::dot(backend, ndim, shape, x, x_strides, y, y_strides, result, threads_per_block,
                     stream);
}
gpuvec_status gpuvec_dot_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const double* x, const int64_t* x_strides, const double* y,
                             const int64_t* y_strides, double* result, int threads_per_block,
                             gpuvec_stream stream) {
  return gpuvec::dot(backend, ndim, shape, x, x_strides, y, y_strides, result, threads_per_block,
                     stream);
}

}  // extern "C"
