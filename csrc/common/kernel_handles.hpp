// What gpuvec_module and gpuvec_kernel handles are (gpuvec/kernels.h): shared
// by the launch of a user's kernel (abi_kernels.cpp) and of a compiled
// ElementwiseKernel (abi_map.cpp) or ReductionKernel (abi_map_reduce.cpp).
#ifndef GPUVEC_COMMON_KERNEL_HANDLES_HPP
#define GPUVEC_COMMON_KERNEL_HANDLES_HPP

#include <memory>
#include <string>
#include <vector>

#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
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

namespace gpuvec {

// Checks a compiled kernel k (a gpuvec_map_kernel or gpuvec_map_reduce_kernel)
// against a call of n_inputs: at least `least` inputs and at most
// GPUVEC_MAX_MAP_INPUTS, the dtypes known, and its instances there and
// compiled for `backend` (all `instances` of them on CUDA, the one entry on
// the host).
template <class K>
void check_compiled(const K* k, int n_inputs, int least, int instances, gpuvec_backend backend) {
  if (k == nullptr) throw_invalid_argument("kernel is a null pointer");
  if (k->n_inputs < least || k->n_inputs > GPUVEC_MAX_MAP_INPUTS) {
    throw_invalid_argument("the kernel must take " + std::to_string(least) + " to " +
                           std::to_string(GPUVEC_MAX_MAP_INPUTS) + " inputs, this one takes " +
                           std::to_string(k->n_inputs));
  }
  if (n_inputs != k->n_inputs) {
    throw_invalid_argument("the kernel takes " + std::to_string(k->n_inputs) + " inputs, got " +
                           std::to_string(n_inputs));
  }
  with_dtype(k->out_dtype, [](auto) {});  // known dtypes
  for (int j = 0; j < k->n_inputs; ++j) with_dtype(k->in_dtypes[j], [](auto) {});
  const int needed = backend == GPUVEC_BACKEND_HOST ? 1 : instances;
  for (int j = 0; j < needed; ++j) {
    if (k->kernels[j] == nullptr) throw_invalid_argument("the kernel lacks an instance");
    if (k->kernels[j]->module->backend != backend) {
      throw_invalid_argument("the kernel was compiled for the other backend");
    }
  }
}

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_KERNEL_HANDLES_HPP
