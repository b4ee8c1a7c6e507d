// The stacks of the fibers of one OS thread, mapped on first use and kept for
// every later block and launch that the thread runs: mapping a fresh stack for
// each thread of each block would cost more than running most kernels.
#ifndef GPUVEC_HOST_EMULATION_STACK_POOL_HPP
#define GPUVEC_HOST_EMULATION_STACK_POOL_HPP

#include <stddef.h>
#include <stdint.h>

#include <atomic>

namespace gpuvec::host::emulation {

class StackPool {
 public:
  // What a GPU allows a thread (cudaLimitStackSize can go no higher than
  // 512 KiB on current GPUs). Mapped without reserving memory: only the pages
  // a fiber touches take any, so most stacks cost a page or two.
  static constexpr size_t kStackBytes = 512 * 1024;
  // One stack per thread of a block (a block run as a plain loop takes
  // stack 0).
  static constexpr size_t kMaxStacks = 1024;

  StackPool() = default;
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  ~StackPool();

  // The lowest address of stack i < kMaxStacks (kStackBytes long). Below it
  // lies a guard page that faults when touched: the fault handler
  // (sandbox.hpp) then reports the overflow. Throws Error(OUT_OF_MEMORY) if
  // mapping fails.
  void* stack(size_t i);

  // Which stack's guard page holds `address`, or -1. Safe in a signal
  // handler of the owning thread: the table only grows, each entry written
  // before the count that publishes it.
  long guard_of(uintptr_t address) const;

  // Gives the pages stack i has touched back to the system (after it
  // overflowed: it used them all).
  void release(size_t i);

 private:
  void* mappings_[kMaxStacks] = {};  // each a guard page, then the stack
  std::atomic<size_t> count_{0};
};

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_STACK_POOL_HPP
