/* Op launchers of the gpuvec C ABI.
 *
 * Every array is a pointer plus a shape shared by all operands of the call and
 * its own strides, counted in elements (not bytes). A stride of 0 broadcasts,
 * negative strides walk backwards, so views and N-d arrays need no copy. The
 * pointer is the address of the element at index (0, ..., 0).
 *
 * Every launcher returns a status, takes the backend its pointers belong to,
 * an explicit stream (NULL is the default stream; the host backend runs in
 * order and ignores it) and threads_per_block (0 picks a good default; the
 * host backend checks the same limits as a CUDA launch).
 */
#ifndef GPUVEC_OPS_H
#define GPUVEC_OPS_H

#include <stdint.h>

#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUVEC_MAX_NDIM 32

/* The binary elementwise family: out = a (op) b. */
typedef enum gpuvec_binary_op {
  GPUVEC_ADD = 0,
  GPUVEC_SUBTRACT = 1,
  GPUVEC_MULTIPLY = 2,
  GPUVEC_DIVIDE = 3,
  GPUVEC_POWER = 4,
  GPUVEC_MAXIMUM = 5, /* NaN propagates, like numpy.maximum */
  GPUVEC_MINIMUM = 6,
  GPUVEC_HYPOT = 7,
  GPUVEC_ATAN2 = 8 /* atan2(a, b), numpy.arctan2 */
} gpuvec_binary_op;

gpuvec_status gpuvec_binary_f32(gpuvec_backend backend, gpuvec_binary_op op, int ndim,
                                const int64_t* shape, const float* a, const int64_t* a_strides,
                                const float* b, const int64_t* b_strides, float* out,
                                const int64_t* out_strides, int threads_per_block,
                                gpuvec_stream stream);
gpuvec_status gpuvec_binary_f64(gpuvec_backend backend, gpuvec_binary_op op, int ndim,
                                const int64_t* shape, const double* a, const int64_t* a_strides,
                                const double* b, const int64_t* b_strides, double* out,
                                const int64_t* out_strides, int threads_per_block,
                                gpuvec_stream stream);

/* out = alpha * x ("doublify" is alpha = 2). */
gpuvec_status gpuvec_scale_f32(gpuvec_backend backend, int ndim, const int64_t* shape, float alpha,
                               const float* x, const int64_t* x_strides, float* out,
                               const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);
gpuvec_status gpuvec_scale_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                               double alpha, const double* x, const int64_t* x_strides,
                               double* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);

/* out = alpha * x + y. */
gpuvec_status gpuvec_axpy_f32(gpuvec_backend backend, int ndim, const int64_t* shape, float alpha,
                              const float* x, const int64_t* x_strides, const float* y,
                              const int64_t* y_strides, float* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream);
gpuvec_status gpuvec_axpy_f64(gpuvec_backend backend, int ndim, const int64_t* shape, double alpha,
                              const double* x, const int64_t* x_strides, const double* y,
                              const int64_t* y_strides, double* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream);

/* out = alpha * x + beta * y. */
gpuvec_status gpuvec_axpby_f32(gpuvec_backend backend, int ndim, const int64_t* shape, float alpha,
                               const float* x, const int64_t* x_strides, float beta,
                               const float* y, const int64_t* y_strides, float* out,
                               const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);
gpuvec_status gpuvec_axpby_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                               double alpha, const double* x, const int64_t* x_strides,
                               double beta, const double* y, const int64_t* y_strides, double* out,
                               const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);

/* *result = sum of x, accumulated in double in a fixed tree order, so the
 * result is deterministic for a given input, launch configuration and device.
 * result points to one element in the backend's memory. */
gpuvec_status gpuvec_sum_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const float* x, const int64_t* x_strides, float* result,
                             int threads_per_block, gpuvec_stream stream);
gpuvec_status gpuvec_sum_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const double* x, const int64_t* x_strides, double* result,
                             int threads_per_block, gpuvec_stream stream);

/* *result = sum of x * y, like gpuvec_sum. */
gpuvec_status gpuvec_dot_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const float* x, const int64_t* x_strides, const float* y,
                             const int64_t* y_strides, float* result, int threads_per_block,
                             gpuvec_stream stream);
gpuvec_status gpuvec_dot_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                             const double* x, const int64_t* x_strides, const double* y,
                             const int64_t* y_strides, double* result, int threads_per_block,
                             gpuvec_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_OPS_H */
