// Per-stream device memory for single-pass reductions.
//
// A reduction whose grid has several blocks finishes in one kernel: each
// block leaves its total in `partials`, takes a ticket, and the block that
// takes the last one adds the totals up and sets the ticket back to 0. The
// ticket must be 0 when a reduction starts, and two reductions must not share
// it at once. Work on one stream runs in order, so one scratch per stream
// gives both: it is made (zeroed) on a stream's first reduction and reused by
// every later one on that stream.
#ifndef GPUVEC_CUDA_SCRATCH_HPP
#define GPUVEC_CUDA_SCRATCH_HPP

#include <cuda_runtime.h>

#include "gpuvec/reduce.hpp"

namespace gpuvec::cuda {

// The most blocks a single-pass reduction may launch.
constexpr int kMaxReductionBlocks = 4096;

struct ReductionScratch {
  double* partials;  // kMaxReductionBlocks block totals
  unsigned int* ticket;
};

// The room for partials, for kernels whose blocks leave larger states.
constexpr size_t kReductionScratchBytes = kMaxReductionBlocks * sizeof(double);

// What a reduction's launch plan needs of the current device (its SM count)
// and of this scratch (gpuvec/reduce.hpp).
ReduceDevice reduce_device();

// The scratch of a reduction on `stream`, for as long as this object lives:
// the stream's own (made on first use, kept until the stream is destroyed)
// where gpuvec sees the stream's lifetime (known_streams.hpp), else the
// call's own, zeroed on the stream and freed in stream order afterwards.
class ScratchLease {
 public:
  explicit ScratchLease(cudaStream_t stream);
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  const ReductionScratch& scratch() const { return scratch_; }

 private:
  ReductionScratch scratch_{nullptr, nullptr};
  cudaStream_t stream_;
  bool own_ = false;  // the call's own memory, freed by the destructor
};

// Frees the scratch of a stream that is about to be destroyed (so that a new
// stream given the same handle starts afresh). It waits for the device.
void forget_reduction_scratch(cudaStream_t stream) noexcept;

// The bytes of the streams' kept scratch on `device`. It is cudaMalloc'ed,
// outside the pool, so the pool's counts miss it: gpuvec_cuda_pool_usage and
// the memory limit add it, so that a stream's scratch that outlived the
// stream shows in gpuvec.memory_info().
size_t reduction_scratch_bytes(int device);

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_SCRATCH_HPP
