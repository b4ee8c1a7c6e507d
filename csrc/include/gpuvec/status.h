/* Status codes and the thread-local last-error message of the gpuvec C ABI.
 *
 * Every ABI function returns a gpuvec_status. On failure it also records a
 * message (and, for CUDA failures, the CUDA error code and name) for the
 * calling thread; the Cython layer reads them to build the Python exception.
 */
#ifndef GPUVEC_STATUS_H
#define GPUVEC_STATUS_H

#include "gpuvec/limits.h" /* GPUVEC_MAX_THREADS_PER_BLOCK */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpuvec_status {
  GPUVEC_SUCCESS = 0,
  GPUVEC_ERROR_INVALID_ARGUMENT = 1, /* the message names the argument */
  GPUVEC_ERROR_CUDA = 2,             /* a CUDA call failed: see the cuda code and name */
  GPUVEC_ERROR_OUT_OF_MEMORY = 3,    /* device or host allocation failed */
  GPUVEC_ERROR_NOT_BUILT = 4,        /* this build has no CUDA backend */
  GPUVEC_ERROR_INTERNAL = 5,         /* a bug in gpuvec: please report it */
  GPUVEC_ERROR_INDEX = 6,            /* a checked kernel indexed a pointer out of its bounds */
  GPUVEC_ERROR_COMPILE = 7,          /* a user's kernel did not compile: see the log */
  GPUVEC_ERROR_CALLBACK = 8          /* the kernel compiler the caller registered failed
                                        (gpuvec_set_kernel_compiler): its own error is pending */
} gpuvec_status;

/* CUDA's code for a launch with an invalid configuration (cudaErrorInvalidConfiguration).
 * The host backend reports the same code so that both backends fail alike. */
#define GPUVEC_CUDA_ERROR_INVALID_CONFIGURATION 9

/* Details of the last failure on the calling thread. The strings stay valid
 * until the next failing gpuvec call on the same thread. */
const char* gpuvec_last_error_message(void);
int gpuvec_last_error_cuda_code(void); /* 0 when the failure was not a CUDA error */
const char* gpuvec_last_error_cuda_name(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_STATUS_H */
