// What each backend implements for users' own kernels (gpuvec/kernels.h).
// The boundary (csrc/common/abi_kernels.cpp) validates a launch and moves
// host memory for the CUDA backend, then calls one of these. Each function
// throws gpuvec::Error.
#ifndef GPUVEC_KIT_KERNEL_BACKENDS_HPP
#define GPUVEC_KIT_KERNEL_BACKENDS_HPP

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "gpuvec/kernels.h"
#include "gpuvec/map.hpp"
#include "gpuvec/reduce.hpp"

namespace gpuvec {

namespace host {
// A shared library compiled against gpuvec/cuda_emulation.h, and the entry
// gpuvec generated in it for one kernel.
void* load_library(const char* path);
void unload_library(void* library);
void* find_entry(void* library, const char* symbol);

// Runs the kernel behind `entry` on every block of config.grid, blocks in
// parallel over the cores; returns when all are done. flags are
// GPUVEC_KERNEL_* bits. The arguments' pointers are host memory. A checked
// kernel's out-of-bounds access throws Error(GPUVEC_ERROR_INDEX, ...).
void launch_kernel(void* entry, int flags, const gpuvec_kernel_config& config,
                   const gpuvec_kernel_arg* args, int n_args);

// A compiled ElementwiseKernel: runs its library's entry (a gpuvec::MapEntry)
// over the `size` elements of *layout, in pieces on the pool where the work
// is large enough; in[k] points at input k's Operand.
void run_map(void* entry, const void* layout, int64_t size, void* out, const void* const* in);

// A compiled ReductionKernel: runs its library's entry (a gpuvec::ReduceEntry)
// over *layout (a ReduceLayout<number of inputs>) on the pool; in[k] is input
// k's first element.
void run_map_reduce(void* entry, const void* layout, void* out, const void* const* in);
}  // namespace host

namespace cuda {
// A CUBIN or PTX image loaded with cudaLibraryLoadData, and its kernels.
void* load_library(const void* image, size_t size);
void unload_library(void* library);
void* find_kernel(void* library, const char* symbol);
void kernel_attributes(void* kernel, gpuvec_kernel_attributes* attributes);

// Queues the kernel on `stream`; params[k] points at argument k's value (a
// device pointer for a pointer parameter), as cudaLaunchKernel takes them.
void launch_kernel(void* kernel, const gpuvec_kernel_config& config, void** params,
                   gpuvec_stream stream);

// A map kernel (gpuvec/map.hpp), of a compiled ElementwiseKernel or one of
// gpuvec's own ops: queues `kernel`, the instance that `plan` chose, on
// `stream`, with its parameters: the layout (a Layout<1 + n_inputs>) or its
// size for map_contiguous, the functor (null: an empty one, as a user's
// is), out, and the Operand each in[k] points at.
void launch_map(void* kernel, const MapPlan& plan, const void* layout, int64_t size,
                const void* functor, void* out, const void* const* in, int n_inputs,
                int threads_per_block, gpuvec_stream stream);

// What a reduction's launch plan needs (gpuvec/reduce.hpp's plan_reduce):
// the threads of a block for threads_per_block (0: the default), and the
// current device's facts.
int reduce_threads(int threads_per_block);
ReduceDevice reduce_device();

// The reduction kernels (gpuvec/reduce.hpp), of a compiled ReductionKernel
// or one of gpuvec's own reductions: runs `plan` on `stream`, kernels[k]
// being the instance of ReduceKernel k (only those the plan uses need be
// there), with its parameters: the layout (a ReduceLayout<n_inputs>) or n,
// the row's size, for reduce_contiguous; the policy (null: an empty one, as
// a user's is); out; and each input's first element in[k].
void launch_map_reduce(void* const* kernels, const ReducePlan& plan, const void* layout, int64_t n,
                       const void* policy, void* out, const void* const* in, int n_inputs,
                       gpuvec_stream stream);

// The compiler of gpuvec's own kernels, which the CUDA backend compiles at
// their first use (own_kernels.cpp; gpuvec_set_kernel_compiler).
void set_kernel_compiler(gpuvec_kernel_compiler compiler);

// NVRTC, loaded from `path` on first use (nvrtc.cpp).
struct NvrtcProgram {
  std::string source;
  std::string name;  // the name the log's messages give the source
  int arch = 0;      // compute capability, e.g. 90
  std::vector<const char*> options;
  std::vector<const char*> name_expressions;
};
struct NvrtcResult {
  bool ok = false;
  std::string log;
  std::string image;  // CUBIN or PTX bytes
  bool is_cubin = false;
  std::vector<std::string> lowered_names;  // one per name expression
};
void nvrtc_version(const char* path, int* major, int* minor);
NvrtcResult nvrtc_compile(const char* path, const NvrtcProgram& program);
}  // namespace cuda

}  // namespace gpuvec

#endif  // GPUVEC_KIT_KERNEL_BACKENDS_HPP
