// The stacks of the fibers of one OS thread, mapped on first use and kept for
// every later block and launch that the thread runs: mapping a fresh stack for
// each thread of each block would cost more than running most kernels.
#ifndef GPUVEC_HOST_EMULATION_STACK_POOL_HPP
#define GPUVEC_HOST_EMULATION_STACK_POOL_HPP

#include <stddef.h>

#include <vector>

namespace gpuvec::host::emulation {

class StackPool {
 public:
  // Enough for a kernel's locals and a printf; only the pages a fiber
  // touches take memory.
  static constexpr size_t kStackBytes = 128 * 1024;

  StackPool() = default;
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  ~StackPool();

  // The lowest address of stack i (kStackBytes long). Below it lies a page
  // that faults when touched, so that an overflow crashes instead of
  // overwriting the next stack. Throws Error(OUT_OF_MEMORY) if mapping fails.
  void* stack(size_t i);

 private:
  std::vector<void*> mappings_;  // each a guard page, then the stack
};

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_STACK_POOL_HPP
