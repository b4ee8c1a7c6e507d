// Conversions, strided copies and fills on the CUDA backend: one grid-stride
// kernel with the contiguous case split out, so that it compiles to plain
// loads.
#include "../kit/backends.hpp"
#include "check.cuh"
#include "launch.cuh"

namespace gpuvec::cuda {
namespace {

template <bool Contiguous, class To, class From>
__global__ void cast_kernel(const Layout<2> L, To* __restrict__ out, const Operand<From> x) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.size;
       i += step) {
    if constexpr (Contiguous) {
      out[i] = static_cast<To>(x.at(i));
    } else {
      int64_t off[2];
      L.offsets(i, off);
      out[off[0]] = static_cast<To>(x.at(off[1]));
    }
  }
}

}  // namespace

template <class To, class From>
void cast(const Layout<2>& L, To* out, Operand<From> x, gpuvec_stream stream) {
  const int threads = kDefaultThreadsPerBlock;
  const int blocks = grid_size(L.size, threads, 16);
  const cudaStream_t s = as_cuda_stream(stream);
  if (L.contiguous()) {
    cast_kernel<true><<<blocks, threads, 0, s>>>(L, out, x);
  } else {
    cast_kernel<false><<<blocks, threads, 0, s>>>(L, out, x);
  }
  check_launch("cast_kernel");
}

#define GPUVEC_INSTANTIATE(To, From) \
  template void cast<To, From>(const Layout<2>&, To*, Operand<From>, gpuvec_stream);
GPUVEC_CAST_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::cuda
