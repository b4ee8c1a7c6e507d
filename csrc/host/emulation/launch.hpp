// One launch of a user's kernel on the host: its blocks, run in parallel over
// OS threads, and its first failure.
#ifndef GPUVEC_HOST_EMULATION_LAUNCH_HPP
#define GPUVEC_HOST_EMULATION_LAUNCH_HPP

#include <stddef.h>
#include <stdint.h>

#include <string>

#include "gpuvec/emulation.h"
#include "gpuvec/kernels.h"
#include "sandbox.hpp"
#include "scheduler.hpp"
#include "spin_census.hpp"

namespace gpuvec::host::emulation {

class Launch : public Run {
 public:
  Launch(gpuvec_emulation_entry entry, bool cooperative, const gpuvec_kernel_config& config,
         void* const* params)
      : Run(Kind::kKernel, config.timeout),
        entry_(entry),
        cooperative_(cooperative),
        config_(config),
        params_(params),
        census_(blocks()) {}

  int64_t blocks() const;
  int64_t threads_per_block() const;
  SpinCensus& census() { return census_; }

  // Runs block `index` (linear, x fastest) on the calling OS thread, unless
  // the launch has failed already. Never throws: a failure is recorded.
  void run_block(int64_t index) noexcept;

 private:
  void report(Fault fault, const gpuvec_emulation_block& block, long stack) noexcept;

  gpuvec_emulation_entry entry_;
  bool cooperative_;
  gpuvec_kernel_config config_;
  void* const* params_;
  SpinCensus census_;  // after config_, which its initializer reads
};

// A block's dynamic shared memory: GPUVEC_MAX_SHARED_MEMORY_PER_BLOCK bytes
// that end at a guard page, so that an access past the launch's shared_mem
// (or any access, with shared_mem=0) faults into the handler of sandbox.hpp.
class SharedMemory {
 public:
  SharedMemory() = default;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  // `bytes` of it, 16-byte aligned, ending at (or, for a size not a multiple
  // of 16, up to 15 bytes before) the guard page; never null. Maps it on
  // first use; throws Error(OUT_OF_MEMORY) if it cannot.
  void* take(size_t bytes);
  uintptr_t guard() const { return reinterpret_cast<uintptr_t>(guard_); }

 private:
  char* mapping_ = nullptr;
  char* guard_ = nullptr;
  size_t size_ = 0;
};

// What an OS thread keeps for the blocks it runs, launch after launch.
struct Worker {
  Worker();
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  ThreadGuard guard;  // what the signal handlers know of this thread
  Scheduler scheduler;
  SharedMemory dynamic_shared;
  gpuvec_emulation_block block;  // the block it runs now
  Run* run = nullptr;            // the run it works for now

  static Worker& of(const gpuvec_emulation_block* block) {
    return *static_cast<Worker*>(block->runtime_data);
  }
};

// The calling OS thread's worker, made (and registered with the signal
// handlers) on first use.
Worker& this_thread_worker();

// The services a kernel library calls (runtime.cpp).
extern const gpuvec_emulation_runtime runtime_table;

// The run a block context belongs to: a block's worker's, or, for the
// context of an ElementwiseKernel or ReductionKernel (no threads: block_dim
// 0 x 0 x 0), the Run its runtime_data points at.
inline Run& run_of(const gpuvec_emulation_block* block) {
  if (block->block_dim.x == 0) return *static_cast<Run*>(block->runtime_data);
  return *Worker::of(block).run;
}

// " (thread (x, y, z) of block (x, y, z))", as messages name a thread.
std::string where(gpuvec_emulation_dim3 thread, gpuvec_emulation_dim3 block);

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_LAUNCH_HPP
