// The extern "C" launchers of gpuvec/reduce.h: validate, simplify the two
// layouts (the rows and the elements of a row), pick the backend.
#include <stdint.h>

#include <string>

#include "backends.hpp"
#include "checks.hpp"
#include "error.hpp"
#include "gpuvec/layout.hpp"
#include "gpuvec/reduce.h"

namespace gpuvec {
namespace {

const char* op_name(gpuvec_reduce_op op) {
  switch (op) {
    case GPUVEC_REDUCE_SUM:
      return "sum";
    case GPUVEC_REDUCE_MEAN:
      return "mean";
    case GPUVEC_REDUCE_MIN:
      return "min";
    case GPUVEC_REDUCE_MAX:
      return "max";
    case GPUVEC_REDUCE_ARGMIN:
      return "argmin";
    case GPUVEC_REDUCE_ARGMAX:
      return "argmax";
    case GPUVEC_REDUCE_PROD:
      return "prod";
    case GPUVEC_REDUCE_VAR:
      return "var";
    case GPUVEC_REDUCE_STD:
      return "std";
    case GPUVEC_REDUCE_NANSUM:
      return "nansum";
    case GPUVEC_REDUCE_NANMEAN:
      return "nanmean";
    case GPUVEC_REDUCE_ASUM:
      return "asum";
    case GPUVEC_REDUCE_NRM2:
      return "nrm2";
  }
  throw_invalid_argument("unknown reduce op " + std::to_string(static_cast<int>(op)));
}

// Ops without a value for an empty row.
bool needs_elements(gpuvec_reduce_op op) {
  return op == GPUVEC_REDUCE_MIN || op == GPUVEC_REDUCE_MAX || op == GPUVEC_REDUCE_ARGMIN ||
         op == GPUVEC_REDUCE_ARGMAX;
}

// ArgMin and ArgMax report positions, so they visit a row in its own order.
bool keeps_order(gpuvec_reduce_op op) {
  return op == GPUVEC_REDUCE_ARGMIN || op == GPUVEC_REDUCE_ARGMAX;
}

template <class T>
gpuvec_status reduce(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                     const int64_t* out_shape, int red_ndim, const int64_t* red_shape, const T* x,
                     const int64_t* x_out_strides, const int64_t* x_red_strides, void* out,
                     const int64_t* out_strides, double ddof, int threads_per_block,
                     gpuvec_stream stream) {
  return guard([&] {
    check_backend(backend);
    check_threads_per_block(backend, threads_per_block, true);
    const char* name = op_name(op);
    const Layout<2> rows = simplify_layout<2>(out_ndim, out_shape, {out_strides, x_out_strides});
    // The other ops may visit a row in any order, so simplify_layout may
    // flip, reorder and merge its dimensions to walk x's memory forwards.
    const Layout<1> row = keeps_order(op)
                              ? ordered_layout(red_ndim, red_shape, x_red_strides)
                              : simplify_layout<1>(red_ndim, red_shape, {x_red_strides});
    check_pointer(out, rows.size, "out");
    check_pointer(x, rows.size * row.size, "x");
    if (rows.size == 0) return;
    if (row.size == 0 && needs_elements(op)) {
      throw_invalid_argument(std::string("zero-size reduction: ") + name +
                             " of no elements has no value");
    }
    const T* px = x + rows.offset[1] + row.offset[0];
    void* po = keeps_order(op) ? static_cast<void*>(static_cast<int64_t*>(out) + rows.offset[0])
                               : static_cast<void*>(static_cast<T*>(out) + rows.offset[0]);
    if (backend == GPUVEC_BACKEND_CUDA) {
      cuda::reduce(op, rows, row, px, po, ddof, threads_per_block, stream);
    } else {
      host::reduce(op, rows, row, px, po, ddof, threads_per_block, stream);
    }
  });
}

}  // namespace
}  // namespace gpuvec

// One line per dtype: the template above does the work.
extern "C" {

gpuvec_status gpuvec_reduce_f32(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                                const int64_t* out_shape, int red_ndim, const int64_t* red_shape,
                                const float* x, const int64_t* x_out_strides,
                                const int64_t* x_red_strides, void* out,
                                const int64_t* out_strides, double ddof, int threads_per_block,
                                gpuvec_stream stream) {
  return gpuvec::reduce(backend, op, out_ndim, out_shape, red_ndim, red_shape, x, x_out_strides,
                        x_red_strides, out, out_strides, ddof, threads_per_block, stream);
}
gpuvec_status gpuvec_reduce_f64(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                                const int64_t* out_shape, int red_ndim, const int64_t* red_shape,
                                const double* x, const int64_t* x_out_strides,
                                const int64_t* x_red_strides, void* out,
                                const int64_t* out_strides, double ddof, int threads_per_block,
                                gpuvec_stream stream) {
  return gpuvec::reduce(backend, op, out_ndim, out_shape, red_ndim, red_shape, x, x_out_strides,
                        x_red_strides, out, out_strides, ddof, threads_per_block, stream);
}

}  // extern "C"
