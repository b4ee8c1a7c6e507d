/* Host (NumPy) arrays on the GPU through pinned staging buffers.
 *
 * The data is cut into chunks. For each chunk, host threads gather the
 * operands' elements (following their strides, converting float64 <-> float32
 * on the way) into pinned buffers; the chunk is copied to the device, the
 * kernel runs, and the result is copied back and scattered into `out`. Chunks
 * rotate over a few streams, so copies in, kernels and copies out of
 * neighbouring chunks overlap. The cast is part of the gather, which the data
 * needs anyway to reach pinned memory: it is never a pass of its own, and
 * data cast to float32 crosses the bus at half the size.
 *
 * gpuvec_staged_upload and gpuvec_staged_download move whole arrays the same
 * way (an upload gathers and casts too), for ops that need their operands in
 * device memory at once: axis reductions, clip, where, gpuvec.to_device.
 *
 * Staging memory is fixed: GPUVEC_STAGING_SLOTS slots of
 * GPUVEC_STAGING_CHUNK_BYTES per operand, pinned on the host and allocated on
 * the device once per device, whatever the size of the data.
 *
 * Calls are serialized (one pipeline at a time per process) and synchronous:
 * when one returns, `out` holds the result.
 */
#ifndef GPUVEC_STAGED_H
#define GPUVEC_STAGED_H

#include <stddef.h>
#include <stdint.h>

#include "gpuvec/ops.h"
#include "gpuvec/runtime.h"
#include "gpuvec/status.h"
#include "gpuvec/unary.h"

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
/* out = alpha * x + beta * y */
gpuvec_status gpuvec_staged_axpby(gpuvec_dtype compute, double alpha, double beta, int ndim,
                                  const int64_t* shape, gpuvec_host_array x, gpuvec_host_array y,
                                  void* out, const int64_t* out_strides, int threads_per_block);
/* out = f(x) for the unary op `op` (see gpuvec/unary.h). */
gpuvec_status gpuvec_staged_unary(gpuvec_unary_op op, gpuvec_dtype compute, int ndim,
                                  const int64_t* shape, gpuvec_host_array x, void* out,
                                  const int64_t* out_strides, int threads_per_block);
/* *result = sum of x (read in `compute`), accumulated in double. */
gpuvec_status gpuvec_staged_sum(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                gpuvec_host_array x, double* result, int threads_per_block);
/* *result = sum of x * y (read in `compute`), accumulated in double. */
gpuvec_status gpuvec_staged_dot(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                gpuvec_host_array x, gpuvec_host_array y, double* result,
                                int threads_per_block);

/* Copies the elements of src, in C order over `shape` and converted to `to`,
 * into the contiguous device memory device_dst. The copies are queued on
 * `stream` (the stream that allocated device_dst and that will use it), and
 * the call returns once they are done. */
gpuvec_status gpuvec_staged_upload(gpuvec_dtype to, int ndim, const int64_t* shape,
                                   gpuvec_host_array src, void* device_dst, gpuvec_stream stream);
/* Copies nbytes from device_src to host_dst, on `stream` (after the work
 * queued there), and returns once they have landed. */
gpuvec_status gpuvec_staged_download(void* host_dst, const void* device_src, size_t nbytes,
                                     gpuvec_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_STAGED_H */
