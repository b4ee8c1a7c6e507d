// The CUDA launcher of the lab's ABI: copy in, one kernel, copy out.
#include <cuda_runtime.h>

#include <string>

#include "lab.h"

namespace {

// One thread per element; the grid-stride loop lets any grid cover any n.
__global__ void saxpy_kernel(int64_t n, float alpha, const float* __restrict__ x,
                             float* __restrict__ y) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    y[i] = alpha * x[i] + y[i];
  }
}

// Records a failed CUDA call for Python, and returns the status to hand back.
gpuvec_status fail(cudaError_t err, const char* where) {
  const std::string message = std::string(cudaGetErrorString(err)) + " (in " + where + ")";
  lab_set_error(message.c_str(), static_cast<int>(err), cudaGetErrorName(err));
  return GPUVEC_ERROR_CUDA;
}

}  // namespace

extern "C" gpuvec_status lab_saxpy_f32_cuda(int64_t n, float alpha, const float* x, float* y,
                                            int threads_per_block) {
  // CUDA 13 reports an oversized block as cudaErrorInvalidValue; check first,
  // so that the error is the one CUDA documents (and the host fallback gives).
  if (threads_per_block < 1 || threads_per_block > GPUVEC_MAX_THREADS_PER_BLOCK) {
    return fail(cudaErrorInvalidConfiguration, "the launch configuration");
  }
  if (n == 0) return GPUVEC_SUCCESS;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  const char* where = "cudaMalloc";
  cudaError_t err = cudaMalloc(&dx, bytes);
  if (err == cudaSuccess) err = cudaMalloc(&dy, bytes);
  // 1. Copy in.
  if (err == cudaSuccess) {
    where = "cudaMemcpy to the device";
    err = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  }
  if (err == cudaSuccess) err = cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  // 2. The kernel. A launch returns at once; a bad configuration shows up in
  // cudaGetLastError, a fault inside the kernel at the next synchronizing call.
  if (err == cudaSuccess) {
    where = "saxpy_kernel";
    const int64_t wanted = (n + threads_per_block - 1) / threads_per_block;
    const int blocks = static_cast<int>(wanted < (1 << 20) ? wanted : (1 << 20));
    saxpy_kernel<<<blocks, threads_per_block>>>(n, alpha, dx, dy);
    err = cudaGetLastError();
  }
  // 3. Copy out: cudaMemcpy waits for the kernel, so y is ready on return.
  if (err == cudaSuccess) {
    where = "cudaMemcpy to the host";
    err = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  }
  cudaFree(dx);
  cudaFree(dy);
  return err == cudaSuccess ? GPUVEC_SUCCESS : fail(err, where);
}
