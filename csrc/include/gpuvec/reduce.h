/* Reductions over some axes of an array: the reduction launchers of the
 * gpuvec C ABI.
 *
 * The caller splits x's dimensions into the kept ones (out_shape, with x's
 * strides x_out_strides) and the reduced ones (red_shape, x_red_strides), so
 * that x[i..., j...] is the element at
 *   x + i . x_out_strides + j . x_red_strides
 * and out[i...] is the reduction of the row x[i..., :]. Reducing every axis is
 * out_ndim = 0 (one output element); reducing none is red_ndim = 0 (rows of one
 * element). Strides count elements, as in gpuvec/ops.h.
 *
 * Rows are accumulated in double in a fixed tree order, so a result is
 * deterministic for a given input, launch configuration and device.
 */
#ifndef GPUVEC_REDUCE_H
#define GPUVEC_REDUCE_H

#include <stdint.h>

#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a row reduces to, with the meaning of the NumPy function of the same
 * name. out has x's type, except for ARGMIN and ARGMAX, whose out is int64_t:
 * the C-order index over red_shape of the first minimum (maximum), or of the
 * first NaN. MIN, MAX and the ARG ops propagate NaN. An empty row gives 0 for
 * the sums, 1 for PROD and NaN for MEAN, NANMEAN, VAR and STD; MIN, MAX,
 * ARGMIN and ARGMAX refuse empty rows. VAR and STD divide by max(n - ddof, 0),
 * NumPy's rule. ASUM is the sum of |x| and NRM2 the Euclidean norm, computed
 * with a running scale so that it neither overflows nor underflows. */
typedef enum gpuvec_reduce_op {
  GPUVEC_REDUCE_SUM = 0,
  GPUVEC_REDUCE_MEAN = 1,
  GPUVEC_REDUCE_MIN = 2,
  GPUVEC_REDUCE_MAX = 3,
  GPUVEC_REDUCE_ARGMIN = 4,
  GPUVEC_REDUCE_ARGMAX = 5,
  GPUVEC_REDUCE_PROD = 6,
  GPUVEC_REDUCE_VAR = 7,
  GPUVEC_REDUCE_STD = 8,
  GPUVEC_REDUCE_NANSUM = 9,
  GPUVEC_REDUCE_NANMEAN = 10,
  GPUVEC_REDUCE_ASUM = 11,
  GPUVEC_REDUCE_NRM2 = 12
} gpuvec_reduce_op;

/* Reduces x over its red_shape dimensions into out (see above). threads_per_block
 * must be a multiple of 32 (0 picks a good default); ddof is read by VAR and STD
 * only. */
gpuvec_status gpuvec_reduce_f32(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                                const int64_t* out_shape, int red_ndim, const int64_t* red_shape,
                                const float* x, const int64_t* x_out_strides,
                                const int64_t* x_red_strides, void* out,
                                const int64_t* out_strides, double ddof, int threads_per_block,
                                gpuvec_stream stream);
gpuvec_status gpuvec_reduce_f64(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                                const int64_t* out_shape, int red_ndim, const int64_t* red_shape,
                                const double* x, const int64_t* x_out_strides,
                                const int64_t* x_red_strides, void* out,
                                const int64_t* out_strides, double ddof, int threads_per_block,
                                gpuvec_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_REDUCE_H */
