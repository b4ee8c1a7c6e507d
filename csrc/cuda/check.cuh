// Checking CUDA calls: every failure becomes a gpuvec::Error carrying CUDA's
// error code, name and description.
#ifndef GPUVEC_CUDA_CHECK_CUH
#define GPUVEC_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include <string>

#include "../kit/error.hpp"
#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

namespace gpuvec::cuda {

static_assert(cudaErrorInvalidConfiguration == GPUVEC_CUDA_ERROR_INVALID_CONFIGURATION,
              "the host backend reports CUDA's code for an invalid launch configuration");

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what) {
  const gpuvec_status status =
      err == cudaErrorMemoryAllocation ? GPUVEC_ERROR_OUT_OF_MEMORY : GPUVEC_ERROR_CUDA;
  throw Error(status, std::string(cudaGetErrorString(err)) + " (in " + what + ")",
              static_cast<int>(err), cudaGetErrorName(err));
}

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw_cuda_error(err, what);
}

// After a kernel launch: a bad configuration is reported here, at once, while
// faults inside the kernel surface at the next synchronizing call.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

inline cudaStream_t as_cuda_stream(gpuvec_stream stream) {
  return static_cast<cudaStream_t>(stream);
}

}  // namespace gpuvec::cuda

#define GPUVEC_CUDA_CHECK(call) ::gpuvec::cuda::check((call), #call)

#endif  // GPUVEC_CUDA_CHECK_CUH
