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
  for (void* mapping : mappings_) munmap(mapping, page_size() + kStackBytes);
}

void* StackPool::stack(size_t i) {
  if (mappings_.size() <= i) mappings_.reserve(i + 1);  // so that push_back cannot throw
  while (mappings_.size() <= i) {
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
    // A failure here (the process ran out of memory mappings) leaves the stack
    // without its guard: it still works, only an overflow goes unnoticed.
    mprotect(mapping, guard, PROT_NONE);
    mappings_.push_back(mapping);
  }
  return static_cast<char*>(mappings_[i]) + page_size();
}

}  // namespace gpuvec::host::emulation
