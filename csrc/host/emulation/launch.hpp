// One launch of a user's kernel on the host: its blocks, run in parallel over
// OS threads, and its first failure.
#ifndef GPUVEC_HOST_EMULATION_LAUNCH_HPP
#define GPUVEC_HOST_EMULATION_LAUNCH_HPP

#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "gpuvec/emulation.h"
#include "gpuvec/kernels.h"
#include "scheduler.hpp"

namespace gpuvec::host::emulation {

class Launch {
 public:
  Launch(gpuvec_emulation_entry entry, bool cooperative, const gpuvec_kernel_config& config,
         void* const* params)
      : entry_(entry), cooperative_(cooperative), config_(config), params_(params) {}

  int64_t blocks() const;
  int64_t threads_per_block() const;

  // Runs block `index` (linear, x fastest) on the calling OS thread, unless
  // the launch has failed already. Never throws: a failure is recorded.
  void run_block(int64_t index) noexcept;

  // Keeps the first failure of the launch; later ones are dropped. Any thread.
  void fail(gpuvec_status status, const std::string& message, int cuda_code = 0,
            const char* cuda_name = "") noexcept;
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Throws the first failure, if any, as gpuvec::Error.
  void check() const;

 private:
  gpuvec_emulation_entry entry_;
  bool cooperative_;
  gpuvec_kernel_config config_;
  void* const* params_;

  std::atomic<bool> failed_{false};
  std::mutex mutex_;  // guards what follows
  gpuvec_status status_ = GPUVEC_SUCCESS;
  std::string message_;
  int cuda_code_ = 0;
  std::string cuda_name_;
};

// What an OS thread keeps for the blocks it runs, launch after launch.
struct Worker {
  Scheduler scheduler;
  std::vector<std::max_align_t> dynamic_shared;  // 16-byte aligned
  gpuvec_emulation_block block;                  // the block it runs now
  Launch* launch = nullptr;

  static Worker& of(const gpuvec_emulation_block* block) {
    return *static_cast<Worker*>(block->runtime_data);
  }
};

// The services a kernel library calls (runtime.cpp).
extern const gpuvec_emulation_runtime runtime_table;

// " (thread (x, y, z) of block (x, y, z))", as messages name a thread.
std::string where(gpuvec_emulation_dim3 thread, gpuvec_emulation_dim3 block);

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_LAUNCH_HPP
