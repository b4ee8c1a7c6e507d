// The extern "C" launchers of gpuvec/unary.h: validate, simplify the layout,
// pick the backend (the same steps as abi_ops.cpp).
#include <stdint.h>

#include <string>

#include "backends.hpp"
#include "checks.hpp"
#include "error.hpp"
#include "gpuvec/layout.hpp"
#include "gpuvec/unary.h"

namespace gpuvec {
namespace {

template <class T>
gpuvec_status unary(gpuvec_backend backend, gpuvec_unary_op op, int ndim, const int64_t* shape,
                    const T* x, const int64_t* x_strides, T* out, const int64_t* out_strides,
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
      cuda::unary(op, L, o, px, threads_per_block, stream);
    } else {
      host::unary(op, L, o, px, threads_per_block, stream);
    }
  });
}

template <class T>
gpuvec_status clip(gpuvec_backend backend, int ndim, const int64_t* shape, const T* x,
                   const int64_t* x_strides, const T* lo, const int64_t* lo_strides, const T* hi,
                   const int64_t* hi_strides, T* out, const int64_t* out_strides,
                   int threads_per_block, gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, false);
    const Layout<4> L =
        simplify_layout<4>(ndim, shape, {out_strides, x_strides, lo_strides, hi_strides});
    check_pointer(out, L.size, "out");
    check_pointer(x, L.size, "x");
    check_pointer(lo, L.size, "lo");
    check_pointer(hi, L.size, "hi");
    if (L.size == 0) return;
    T* o = out + L.offset[0];
    const T* px = x + L.offset[1];
    const T* plo = lo + L.offset[2];
    const T* phi = hi + L.offset[3];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::clip(L, o, px, plo, phi, threads_per_block, stream);
    } else {
      host::clip(L, o, px, plo, phi, threads_per_block, stream);
    }
  });
}

template <class T>
gpuvec_status where(gpuvec_backend backend, int ndim, const int64_t* shape, const uint8_t* cond,
                    const int64_t* cond_strides, const T* a, const int64_t* a_strides, const T* b,
                    const int64_t* b_strides, T* out, const int64_t* out_strides,
                    int threads_per_block, gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, false);
    const Layout<4> L =
        simplify_layout<4>(ndim, shape, {out_strides, cond_strides, a_strides, b_strides});
    check_pointer(out, L.size, "out");
    check_pointer(cond, L.size, "cond");
    check_pointer(a, L.size, "a");
    check_pointer(b, L.size, "b");
    if (L.size == 0) return;
    T* o = out + L.offset[0];
    const uint8_t* pc = cond + L.offset[1];
    const T* pa = a + L.offset[2];
    const T* pb = b + L.offset[3];
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::where(L, o, pc, pa, pb, threads_per_block, stream);
    } else {
      host::where(L, o, pc, pa, pb, threads_per_block, stream);
    }
  });
}

}  // namespace
}  // namespace gpuvec

// One line per dtype: the templates above do the work.
extern "C" {

gpuvec_status gpuvec_unary_f32(gpuvec_backend backend, gpuvec_unary_op op, int ndim,
                               const int64_t* shape, const float* x, const int64_t* x_strides,
                               float* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::unary(backend, op, ndim, shape, x, x_strides, out, out_strides, threads_per_block,
                       stream);
}
gpuvec_status gpuvec_unary_f64(gpuvec_backend backend, gpuvec_unary_op op, int ndim,
                               const int64_t* shape, const double* x, const int64_t* x_strides,
                               double* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::unary(backend, op, ndim, shape, x, x_strides, out, out_strides, threads_per_block,
                       stream);
}

gpuvec_status gpuvec_clip_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                              const float* x, const int64_t* x_strides, const float* lo,
                              const int64_t* lo_strides, const float* hi,
                              const int64_t* hi_strides, float* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream) {
  return gpuvec::clip(backend, ndim, shape, x, x_strides, lo, lo_strides, hi, hi_strides, out,
                      out_strides, threads_per_block, stream);
}
gpuvec_status gpuvec_clip_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                              const double* x, const int64_t* x_strides, const double* lo,
                              const int64_t* lo_strides, const double* hi,
                              const int64_t* hi_strides, double* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream) {
  return gpuvec::clip(backend, ndim, shape, x, x_strides, lo, lo_strides, hi, hi_strides, out,
                      out_strides, threads_per_block, stream);
}

gpuvec_status gpuvec_where_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                               const uint8_t* cond, const int64_t* cond_strides, const float* a,
                               const int64_t* a_strides, const float* b, const int64_t* b_strides,
                               float* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::where(backend, ndim, shape, cond, cond_strides, a, a_strides, b, b_strides, out,
                       out_strides, threads_per_block, stream);
}
gpuvec_status gpuvec_where_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                               const uint8_t* cond, const int64_t* cond_strides, const double* a,
                               const int64_t* a_strides, const double* b, const int64_t* b_strides,
                               double* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream) {
  return gpuvec::where(backend, ndim, shape, cond, cond_strides, a, a_strides, b, b_strides, out,
                       out_strides, threads_per_block, stream);
}

}  // extern "C"
