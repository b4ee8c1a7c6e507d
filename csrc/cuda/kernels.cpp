// Users' kernels on the CUDA backend: images loaded with the runtime's
// library API (CUDA >= 12), which the static cudart provides, so gpuvec needs
// no link to the driver library.
#include <cuda_runtime.h>

#include "../kit/kernel_backends.hpp"
#include "check.cuh"
#include "gpuvec/map.hpp"
#include "gpuvec/reduce.hpp"
#include "launch.cuh"
#include "reduce_plan.hpp"

namespace gpuvec::cuda {

void* load_library(const void* image, size_t) {
  cudaLibrary_t library = nullptr;
  GPUVEC_CUDA_CHECK(
      cudaLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
  return library;
}

void unload_library(void* library) {
  GPUVEC_CUDA_CHECK(cudaLibraryUnload(static_cast<cudaLibrary_t>(library)));
}

void* find_kernel(void* library, const char* symbol) {
  cudaKernel_t kernel = nullptr;
  GPUVEC_CUDA_CHECK(cudaLibraryGetKernel(&kernel, static_cast<cudaLibrary_t>(library), symbol));
  return kernel;
}

void kernel_attributes(void* kernel, gpuvec_kernel_attributes* out) {
  cudaFuncAttributes a{};
  GPUVEC_CUDA_CHECK(cudaFuncGetAttributes(&a, static_cast<const void*>(kernel)));
  out->max_threads_per_block = a.maxThreadsPerBlock;
  out->num_regs = a.numRegs;
  out->shared_size_bytes = static_cast<int64_t>(a.sharedSizeBytes);
  out->local_size_bytes = static_cast<int64_t>(a.localSizeBytes);
  out->const_size_bytes = static_cast<int64_t>(a.constSizeBytes);
  out->ptx_version = a.ptxVersion;
  out->binary_version = a.binaryVersion;
}

void launch_kernel(void* kernel, const gpuvec_kernel_config& c, void** params,
                   gpuvec_stream stream) {
  const dim3 grid(c.grid.x, c.grid.y, c.grid.z);
  const dim3 block(c.block.x, c.block.y, c.block.z);
  // A cudaKernel_t is accepted wherever a kernel's address is (CUDA >= 12).
  GPUVEC_CUDA_CHECK(cudaLaunchKernel(static_cast<const void*>(kernel), grid, block, params,
                                     c.shared_mem, as_cuda_stream(stream)));
}

void launch_map(void* kernel, const MapPlan& plan, const void* layout, int64_t size,
                const void* functor, void* out, const void* const* in, int n_inputs,
                int threads_per_block, gpuvec_stream stream) {
  const int threads = block_size(threads_per_block);
  const bool contiguous =
      plan.kernel == MapKernel::kContiguousPacks || plan.kernel == MapKernel::kContiguous;
  // The parameters as the map kernels take them: (n or L, f, out, in...).
  // A user's functor is an empty struct: one byte.
  char empty = 0;
  void* params[3 + GPUVEC_MAX_MAP_INPUTS];
  params[0] = contiguous ? static_cast<void*>(&size) : const_cast<void*>(layout);
  params[1] = functor != nullptr ? const_cast<void*>(functor) : &empty;
  params[2] = &out;
  for (int k = 0; k < n_inputs; ++k) params[3 + k] = const_cast<void*>(in[k]);
  const gpuvec_kernel_config config{
      {static_cast<uint32_t>(tiles(plan.work, threads)), 1, 1},
      {static_cast<uint32_t>(threads), 1, 1},
      0,
      0.0,
  };
  launch_kernel(kernel, config, params, stream);
}

int reduce_threads(int threads_per_block) { return block_size(threads_per_block); }

void launch_map_reduce(void* const* kernels, const ReducePlan& plan, const void* layout, int64_t n,
                       const void* policy, void* out, const void* const* in, int n_inputs,
                       gpuvec_stream stream) {
  run_plan(plan, as_cuda_stream(stream),
           [&](ReduceKernel kernel, dim3 grid, void* partial, unsigned int* ticket, int extra) {
             // The parameters as the reduction kernels take them: (n or L, op,
             // out, partial, ticket[, extra], in...), except reduce_partials,
             // which reads no input. A user's policy is an empty struct: one byte.
             const bool contiguous =
                 kernel == ReduceKernel::kContiguousPacks || kernel == ReduceKernel::kContiguous;
             char empty = 0;
             void* params[6 + GPUVEC_MAX_MAP_INPUTS];
             int count = 0;
             params[count++] = contiguous ? static_cast<void*>(&n) : const_cast<void*>(layout);
             params[count++] = policy != nullptr ? const_cast<void*>(policy) : &empty;
             params[count++] = &out;
             params[count++] = &partial;
             params[count++] = &ticket;
             if (!contiguous) params[count++] = &extra;
             if (kernel != ReduceKernel::kPartials) {
               for (int k = 0; k < n_inputs; ++k) params[count++] = const_cast<void**>(in + k);
             }
             const gpuvec_kernel_config config{
                 {grid.x, grid.y, 1}, {static_cast<uint32_t>(plan.threads), 1, 1}, 0, 0.0};
             launch_kernel(kernels[static_cast<int>(kernel)], config, params, stream);
           });
}

}  // namespace gpuvec::cuda
