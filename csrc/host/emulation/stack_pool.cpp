// Fiber stacks from mmap, each with a guard page below it.
#include "stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include "../../kit/error.hpp"

namespace gpuvec::host::emulation {
namespace {

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

StackPool::~StackPool() {
  const size_t n = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) munmap(mappings_[i], page_size() + kStackBytes);
}

void* StackPool::stack(size_t i) {
  if (i >= kMaxStacks) throw Error(GPUVEC_ERROR_INTERNAL, "a fiber stack beyond the pool's");
  size_t n = count_.load(std::memory_order_relaxed);
  while (n <= i) {
    const size_t guard = page_size();
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;  // stack pages are mostly never touched: do not count them
#endif
#ifdef MAP_STACK
    flags |= MAP_STACK;
#endif
    void* mapping = mmap(nullptr, guard + kStackBytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (mapping == MAP_FAILED)
      throw Error(GPUVEC_ERROR_OUT_OF_MEMORY, "cannot map a fiber stack for the host emulation");
    // Without its guard an overflow would run into whatever lies below.
    if (mprotect(mapping, guard, PROT_NONE) != 0) {
      munmap(mapping, guard + kStackBytes);
      throw Error(GPUVEC_ERROR_OUT_OF_MEMORY,
                  "cannot protect the guard page of a fiber stack for the host emulation");
    }
    mappings_[n] = mapping;
    count_.store(++n, std::memory_order_release);
  }
  return static_cast<char*>(mappings_[i]) + page_size();
}

long StackPool::guard_of(uintptr_t address) const {
  const size_t n = count_.load(std::memory_order_acquire);
  const uintptr_t guard = page_size();
  for (size_t i = 0; i < n; ++i) {
    const auto begin = reinterpret_cast<uintptr_t>(mappings_[i]);
    if (address - begin < guard) return static_cast<long>(i);
  }
  return -1;
}

void StackPool::release(size_t i) {
  if (i < count_.load(std::memory_order_relaxed))
    madvise(static_cast<char*>(mappings_[i]) + page_size(), kStackBytes, MADV_DONTNEED);
}

}  // namespace gpuvec::host::emulation
