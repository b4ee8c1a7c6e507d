// Running a reduction's launch plan (gpuvec/reduce.hpp) on the CUDA backend:
// the scratch memory it asks for, its launch, and the second pass where it
// has one. gpuvec's own reductions and a user's compiled ReductionKernels
// both run their plans here (kernels.cpp's launch_map_reduce). Host code: no
// kernels.
#ifndef GPUVEC_CUDA_REDUCE_PLAN_HPP
#define GPUVEC_CUDA_REDUCE_PLAN_HPP

#include <cuda_runtime.h>

#include <optional>

#include "check.cuh"
#include "gpuvec/reduce.hpp"
#include "launch.cuh"
#include "scratch.hpp"

namespace gpuvec::cuda {

// Stream-ordered device memory, freed in stream order when it goes out of
// scope: after the kernels queued before, reused by the next call.
class StreamMemory {
 public:
  StreamMemory(size_t bytes, cudaStream_t stream) : stream_(stream) {
    GPUVEC_CUDA_CHECK(cudaMallocAsync(&ptr_, bytes, stream));
  }
  ~StreamMemory() { cudaFreeAsync(ptr_, stream_); }
  StreamMemory(const StreamMemory&) = delete;
  StreamMemory& operator=(const StreamMemory&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

// Runs `plan` on stream s: launch(kernel, grid, partial, ticket, extra)
// queues one kernel of the plan with the states' memory, the stream's ticket
// (or null) and the plan's extra parameter.
template <class Launch>
void run_plan(const ReducePlan& plan, cudaStream_t s, Launch&& launch) {
  std::optional<ScratchLease> lease;
  ReductionScratch scratch{nullptr, nullptr};
  if (plan.ticket || plan.partials == ReducePartials::kStream) {
    lease.emplace(s);
    scratch = lease->scratch();
  }
  void* partial = plan.partials == ReducePartials::kStream ? scratch.partials : nullptr;
  std::optional<StreamMemory> own;
  if (plan.partials == ReducePartials::kAllocated) {
    own.emplace(static_cast<size_t>(plan.partial_bytes), s);
    partial = own->get();
  }
  launch(plan.kernel, dim3(plan.grid_x, plan.grid_y), partial,
         plan.ticket ? scratch.ticket : nullptr, plan.extra);
  check_launch(reduce_kernel_name(plan.kernel));
  if (plan.second_blocks > 0) {
    launch(ReduceKernel::kPartials, dim3(plan.second_blocks), partial, nullptr, plan.extra);
    check_launch("reduce_partials");
  }
}

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_REDUCE_PLAN_HPP
