/* Ops on host (NumPy) arrays, run on the GPU through pinned staging buffers.
 *
 * The data is cut into chunks. For each chunk, host threads gather the
 * operands' elements (following their strides, converting float64 <-> float32
 * on the way) into pinned buffers; the chunk is copied to the device, the
 * kernel runs, and the result is copied back and scattered into `out`. Chunks
 * rotate over a few streams, so copies in, kernels and copies out of
 * neighbouring chunks overlap. Staging memory is fixed: GPUVEC_STAGING_SLOTS
 * slots of GPUVEC_STAGING_CHUNK_BYTES per operand, pinned on the host and
 * allocated on the device once per device, whatever the size of the data.
 *
 * Calls are serialized (one pipeline at a time per process) and synchronous:
 * when one returns, `out` holds the result.
 */
#ifndef GPUVEC_STAGED_H
#define GPUVEC_STAGED_H

#include <stdint.h>

#include "gpuvec/ops.h"
#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUVEC_STAGING_SLOTS 3
#define GPUVEC_STAGING_CHUNK_BYTES (4 << 20)

typedef enum gpuvec_dtype { GPUVEC_FLOAT32 = 0, GPUVEC_FLOAT64 = 1 } gpuvec_dtype;

/* An input in host memory: element (0, ..., 0), its dtype, and its strides
 * in elements over the op's shape (0 where it is broadcast). */
typedef struct gpuvec_host_array {
  const void* data;
  gpuvec_dtype dtype;
  const int64_t* strides;
} gpuvec_host_array;

/* out (of dtype `compute`) = a (op) b, computed in `compute`. */
gpuvec_status gpuvec_staged_binary(gpuvec_binary_op op, gpuvec_dtype compute, int ndim,
                                   const int64_t* shape, gpuvec_host_array a, gpuvec_host_array b,
                                   void* out, const int64_t* out_strides, int threads_per_block);
/* out = alpha * x */
gpuvec_status gpuvec_staged_scale(gpuvec_dtype compute, double alpha, int ndim,
                                  const int64_t* shape, gpuvec_host_array x, void* out,
                                  const int64_t* out_strides, int threads_per_block);
/* out = alpha * x + y */
gpuvec_status gpuvec_staged_axpy(gpuvec_dtype compute, double alpha, int ndim,
                                 const int64_t* shape, gpuvec_host_array x, gpuvec_host_array y,
                                 void* out, const int64_t* out_strides, int threads_per_block);
/* *result = sum of x (read in `compute`), accumulated in double. */
gpuvec_status gpuvec_staged_sum(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                gpuvec_host_array x, double* result, int threads_per_block);
/* *result = sum of x * y (read in `compute`), accumulated in double. */
gpuvec_status gpuvec_staged_dot(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                gpuvec_host_array x, gpuvec_host_array y, double* result,
                                int threads_per_block);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_STAGED_H */
