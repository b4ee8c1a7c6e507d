// Launch geometry: block size and a grid sized from the device's SM count.
#ifndef GPUVEC_CUDA_LAUNCH_CUH
#define GPUVEC_CUDA_LAUNCH_CUH

#include <stdint.h>

namespace gpuvec::cuda {

constexpr int kDefaultThreadsPerBlock = 256;

// Multiprocessor count of the current device, cached after the first query.
int multiprocessor_count();

// The threads of a launch: the caller's choice, or the default. A block larger
// than the device allows fails here with cudaErrorInvalidConfiguration, the
// code CUDA documents for it (CUDA 13's launch itself reports
// cudaErrorInvalidValue), so that both backends and all CUDA versions agree.
int block_size(int threads_per_block);

// Enough blocks for `work` items at one item per thread, capped at
// `blocks_per_sm` resident blocks per SM; grid-stride loops cover the rest.
inline int grid_size(int64_t work, int threads, int blocks_per_sm) {
  const int64_t needed = (work + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(multiprocessor_count()) * blocks_per_sm;
  const int64_t blocks = needed < cap ? needed : cap;
  return static_cast<int>(blocks > 0 ? blocks : 1);
}

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_LAUNCH_CUH
