// What gpuvec_module and gpuvec_kernel handles are (gpuvec/kernels.h): shared
// by the launch of a user's kernel (abi_kernels.cpp) and of a compiled
// ElementwiseKernel (abi_map.cpp).
#ifndef GPUVEC_COMMON_KERNEL_HANDLES_HPP
#define GPUVEC_COMMON_KERNEL_HANDLES_HPP

#include <memory>
#include <vector>

#include "gpuvec/kernels.h"

struct gpuvec_kernel_s {
  gpuvec_module module;
  void* handle;  // the CUDA kernel (cudaKernel_t), or the host library's entry
  int flags;
};

struct gpuvec_module_s {
  gpuvec_backend backend;
  void* library;  // cudaLibrary_t, or the dlopen handle
  std::vector<std::unique_ptr<gpuvec_kernel_s>> kernels;
};

#endif  // GPUVEC_COMMON_KERNEL_HANDLES_HPP
