/* Converting between float32 and float64 arrays (see ops.h for the layout
 * conventions): out = (T_out) x, elementwise, with any strides. */
#ifndef GPUVEC_CAST_H
#define GPUVEC_CAST_H

#include <stdint.h>

#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

gpuvec_status gpuvec_cast_f32_to_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                     const float* x, const int64_t* x_strides, double* out,
                                     const int64_t* out_strides, gpuvec_stream stream);
gpuvec_status gpuvec_cast_f64_to_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                     const double* x, const int64_t* x_strides, float* out,
                                     const int64_t* out_strides, gpuvec_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_CAST_H */
