/* The lab's C ABI: what Python (through Cython) calls.
 *
 * Plain C types only, and every function returns a status: no C++ exception
 * and no CUDA type crosses this line, so the Cython side needs nothing but
 * this header. The status codes are gpuvec's own (gpuvec/status.h, found
 * through gpuvec.get_include()).
 */
#ifndef LAB_H
#define LAB_H

#include <stdint.h>

#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = alpha * x + y for n float32 elements in host memory.
 *
 * The CUDA launcher copies x and y to the GPU, runs a kernel and copies y
 * back. The host fallback has the same signature and checks the same launch
 * limits, so code tested without a GPU fails the same way with one. */
gpuvec_status lab_saxpy_f32_cuda(int64_t n, float alpha, const float* x, float* y,
                                 int threads_per_block);
gpuvec_status lab_saxpy_f32_host(int64_t n, float alpha, const float* x, float* y,
                                 int threads_per_block);

/* 1 when the CUDA launcher was built (nvcc was found), else 0. */
int lab_cuda_built(void);

/* The last failure on the calling thread: its message and, for CUDA
 * failures, CUDA's error code and name (0 and "" otherwise). */
const char* lab_last_error_message(void);
int lab_last_error_cuda_code(void);
const char* lab_last_error_cuda_name(void);

/* Records a failure for the functions above; used by the launchers. */
void lab_set_error(const char* message, int cuda_code, const char* cuda_name);

#ifdef __cplusplus
}
#endif

#endif /* LAB_H */
