/* Unary elementwise launchers of the gpuvec C ABI, and the two elementwise ops
 * of three operands: clip and where.
 *
 * Arrays, strides, streams and threads_per_block work as in gpuvec/ops.h.
 */
#ifndef GPUVEC_UNARY_H
#define GPUVEC_UNARY_H

#include <stdint.h>

#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The unary family: out = f(x), with the meaning of the NumPy function of the
 * same name (sigmoid is 1 / (1 + exp(-x)), computed without overflow). */
typedef enum gpuvec_unary_op {
  GPUVEC_NEGATIVE = 0,
  GPUVEC_ABS = 1,
  GPUVEC_SQRT = 2,
  GPUVEC_EXP = 3,
  GPUVEC_LOG = 4,
  GPUVEC_LOG1P = 5,
  GPUVEC_EXPM1 = 6,
  GPUVEC_SIN = 7,
  GPUVEC_COS = 8,
  GPUVEC_TANH = 9,
  GPUVEC_SIGMOID = 10
} gpuvec_unary_op;

gpuvec_status gpuvec_unary_f32(gpuvec_backend backend, gpuvec_unary_op op, int ndim,
                               const int64_t* shape, const float* x, const int64_t* x_strides,
                               float* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);
gpuvec_status gpuvec_unary_f64(gpuvec_backend backend, gpuvec_unary_op op, int ndim,
                               const int64_t* shape, const double* x, const int64_t* x_strides,
                               double* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);

/* out = min(max(x, lo), hi), like numpy.clip: a NaN in any operand gives NaN,
 * and where lo > hi the result is hi. */
gpuvec_status gpuvec_clip_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                              const float* x, const int64_t* x_strides, const float* lo,
                              const int64_t* lo_strides, const float* hi,
                              const int64_t* hi_strides, float* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream);
gpuvec_status gpuvec_clip_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                              const double* x, const int64_t* x_strides, const double* lo,
                              const int64_t* lo_strides, const double* hi,
                              const int64_t* hi_strides, double* out, const int64_t* out_strides,
                              int threads_per_block, gpuvec_stream stream);

/* out = cond ? a : b, like numpy.where; cond holds one byte per element (a
 * NumPy bool array), and any nonzero byte counts as true. */
gpuvec_status gpuvec_where_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                               const uint8_t* cond, const int64_t* cond_strides, const float* a,
                               const int64_t* a_strides, const float* b, const int64_t* b_strides,
                               float* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);
gpuvec_status gpuvec_where_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                               const uint8_t* cond, const int64_t* cond_strides, const double* a,
                               const int64_t* a_strides, const double* b, const int64_t* b_strides,
                               double* out, const int64_t* out_strides, int threads_per_block,
                               gpuvec_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_UNARY_H */
