// The host fallback of the lab's ABI, and its error record.
#include <string>

#include "lab.h"

namespace {

thread_local std::string last_message;
thread_local std::string last_cuda_name;
thread_local int last_cuda_code = 0;

}  // namespace

extern "C" {

void lab_set_error(const char* message, int cuda_code, const char* cuda_name) {
  last_message = message;
  last_cuda_code = cuda_code;
  last_cuda_name = cuda_name;
}

const char* lab_last_error_message(void) { return last_message.c_str(); }
int lab_last_error_cuda_code(void) { return last_cuda_code; }
const char* lab_last_error_cuda_name(void) { return last_cuda_name.c_str(); }

int lab_cuda_built(void) { return LAB_HAVE_CUDA; }

gpuvec_status lab_saxpy_f32_host(int64_t n, float alpha, const float* x, float* y,
                                 int threads_per_block) {
  // The host has no blocks, but it refuses what a CUDA launch would refuse.
  if (threads_per_block < 1 || threads_per_block > GPUVEC_MAX_THREADS_PER_BLOCK) {
    lab_set_error("invalid configuration argument (threads_per_block must be 1 to 1024)",
                  GPUVEC_CUDA_ERROR_INVALID_CONFIGURATION, "cudaErrorInvalidConfiguration");
    return GPUVEC_ERROR_CUDA;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i] + y[i];
  return GPUVEC_SUCCESS;
}

#if !LAB_HAVE_CUDA
// A build without nvcc still has the CUDA entry point: it says why it cannot run.
gpuvec_status lab_saxpy_f32_cuda(int64_t, float, const float*, float*, int) {
  lab_set_error("gpuvec_lab was built without CUDA (nvcc was not found)", 0, "");
  return GPUVEC_ERROR_NOT_BUILT;
}
#endif

}  // extern "C"
