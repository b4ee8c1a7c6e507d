// The launch of gpuvec's own elementwise ops on the CUDA backend: the
// kernels, and the plan that picks one, are gpuvec/map.hpp's, shared with
// users' compiled ElementwiseKernels (csrc/cuda/kernels.cpp launches those).
#ifndef GPUVEC_CUDA_MAP_CUH
#define GPUVEC_CUDA_MAP_CUH

#include <stddef.h>

#include "check.cuh"
#include "gpuvec/layout.hpp"
#include "gpuvec/map.hpp"
#include "gpuvec/operand.hpp"
#include "launch.cuh"

namespace gpuvec::cuda {

template <int N, class T, class F, class... In, class... S>
void map(const Layout<N>& L, F f, T* out, int threads_per_block, gpuvec_stream stream,
         const Operand<In, S>... in) {
  const int threads = block_size(threads_per_block);
  const cudaStream_t s = as_cuda_stream(stream);
  constexpr int V = kPackWidth<T, In..., S...>;
  const void* const data[N] = {out, in.p...};
  const size_t itemsize[N] = {sizeof(T), sizeof(S)...};
  const MapPlan plan = plan_map(L, V, data, itemsize);
  const int blocks = tiles(plan.work, threads);
  switch (plan.kernel) {
    case MapKernel::kContiguousPacks:
      map_contiguous<T, V><<<blocks, threads, 0, s>>>(L.size, f, out, in...);
      break;
    case MapKernel::kContiguous:
      map_contiguous<T, 1><<<blocks, threads, 0, s>>>(L.size, f, out, in...);
      break;
    case MapKernel::kRows:
      map_rows<V><<<blocks, threads, 0, s>>>(L, f, out, in...);
      break;
    case MapKernel::kStrided:
      map_strided<<<blocks, threads, 0, s>>>(L, f, out, in...);
      break;
  }
  check_launch(map_kernel_name(plan.kernel));
}

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_MAP_CUH
