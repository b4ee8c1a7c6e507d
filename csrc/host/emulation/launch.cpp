// Running the blocks of a launch, each inside the sandbox, and reporting
// what took one out of it.
#include "launch.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <new>

#include "../../kit/error.hpp"

namespace gpuvec::host::emulation {
namespace {

// CUDA's codes for what the same failure is on a GPU.
constexpr int kCudaErrorIllegalAddress = 700;
constexpr int kCudaErrorLaunchFailure = 719;

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// A block run as a plain loop: its entry, on a fiber.
struct PlainBlock {
  gpuvec_emulation_entry entry;
  gpuvec_emulation_block* block;
  void* const* params;

  static void run(void* self) {
    const auto* p = static_cast<const PlainBlock*>(self);
    p->entry(p->block, p->params);
  }
};

}  // namespace

// --- workers -----------------------------------------------------------------------------------

Worker::Worker() {
  guard.guard_of = [](const void* owner, uintptr_t address) {
    return static_cast<const Scheduler*>(owner)->guard_of(address);
  };
  guard.owner = &scheduler;
  register_thread(guard);
}

Worker::~Worker() { unregister_thread(guard); }

Worker& this_thread_worker() {
  thread_local std::unique_ptr<Worker> worker;
  if (!worker) worker = std::make_unique<Worker>();
  return *worker;
}

SharedMemory::~SharedMemory() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
}

void* SharedMemory::take(size_t bytes) {
  if (mapping_ == nullptr) {
    const size_t page = page_size();
    const size_t usable = (GPUVEC_MAX_SHARED_MEMORY_PER_BLOCK + page - 1) / page * page;
    void* mapping =
        mmap(nullptr, usable + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED)
      throw Error(GPUVEC_ERROR_OUT_OF_MEMORY, "cannot map the dynamic shared memory of a block");
    char* guard = static_cast<char*>(mapping) + usable;
    if (mprotect(guard, page, PROT_NONE) != 0) {
      munmap(mapping, usable + page);
      throw Error(GPUVEC_ERROR_OUT_OF_MEMORY,
                  "cannot protect the guard page of a block's dynamic shared memory");
    }
    mapping_ = static_cast<char*>(mapping);
    guard_ = guard;
    size_ = usable + page;
  }
  return guard_ - (bytes + 15) / 16 * 16;
}

// --- launches ----------------------------------------------------------------------------------

int64_t Launch::blocks() const {
  return int64_t{config_.grid.x} * config_.grid.y * config_.grid.z;
}

int64_t Launch::threads_per_block() const {
  return int64_t{config_.block.x} * config_.block.y * config_.block.z;
}

void Launch::run_block(int64_t index) noexcept {
  if (failed()) return;  // after a failure, the blocks not started yet are skipped
  try {
    Worker& worker = this_thread_worker();
    const gpuvec_dim3 grid = config_.grid, block = config_.block;
    gpuvec_emulation_block& b = worker.block;
    b.runtime = &runtime_table;
    b.grid_dim = {grid.x, grid.y, grid.z};
    b.block_dim = {block.x, block.y, block.z};
    b.block_idx = {static_cast<uint32_t>(index % grid.x),
                   static_cast<uint32_t>(index / grid.x % grid.y),
                   static_cast<uint32_t>(index / (int64_t{grid.x} * grid.y))};
    b.dynamic_shared = worker.dynamic_shared.take(config_.shared_mem);
    b.dynamic_shared_size = config_.shared_mem;
    b.cooperative = cooperative_;
    b.runtime_data = &worker;
    worker.run = this;
    worker.guard.shared_guard = worker.dynamic_shared.guard();
    worker.guard.stack = -1;
    PlainBlock plain{entry_, &b, params_};
    // Counted from here to the end of the block, however it ends: a block
    // that spins asks the census whether the blocks that run can release it.
    // (A plain loop never spins: its blocks cost no atomics.)
    struct Counted {
      SpinCensus* census;
      explicit Counted(SpinCensus* c) : census(c) {
        if (census) census->block_started();
      }
      ~Counted() {
        if (census) census->block_finished();
      }
    } counted(cooperative_ ? &census_ : nullptr);
    const Fault fault = guarded(worker.guard, *this, [&] {
      if (cooperative_) {
        entry_(&b, params_);  // its threads run as fibers (run_threads)
      } else {
        worker.scheduler.run_alone(&PlainBlock::run, &plain);
      }
    });
    if (fault != Fault::kNone) {
      worker.scheduler.abandon();
      report(fault, b, worker.guard.stack);
      if (fault == Fault::kStackOverflow) worker.scheduler.release_stack(worker.guard.stack);
    }
  } catch (const Error& e) {
    fail(e.status(), e.what(), e.cuda_code(), e.cuda_name().c_str());
  } catch (const std::bad_alloc&) {
    fail(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
  } catch (const std::exception& e) {
    fail(GPUVEC_ERROR_INTERNAL, e.what());
  } catch (...) {
    fail(GPUVEC_ERROR_INTERNAL, "unknown C++ exception in a block of the host emulation");
  }
}

void Launch::report(Fault fault, const gpuvec_emulation_block& b, long stack) noexcept {
  try {
    const gpuvec_emulation_dim3 at = b.block_idx;
    const std::string block = "block (" + std::to_string(at.x) + ", " + std::to_string(at.y) +
                              ", " + std::to_string(at.z) + ")";
    switch (fault) {
      case Fault::kStackOverflow: {
        // A fiber's stack is its thread's (thread t on stack t); a plain
        // loop runs all its threads on stack 0.
        std::string who = "a thread of " + block;
        if (cooperative_ && stack >= 0) {
          const auto t = static_cast<uint32_t>(stack);
          const gpuvec_emulation_dim3 d = b.block_dim;
          who = where({t % d.x, t / d.x % d.y, t / (d.x * d.y)}, at).substr(2);
          who.pop_back();
        }
        fail(GPUVEC_ERROR_CUDA,
             "unspecified launch failure: the stack of a thread overflowed its " +
                 std::to_string(StackPool::kStackBytes / 1024) +
                 " KiB (deep recursion, or large local arrays), in " + who +
                 "; a GPU allows a thread at most 512 KiB of stack",
             kCudaErrorLaunchFailure, "cudaErrorLaunchFailure");
        break;
      }
      case Fault::kSharedMemory: {
        const std::string bytes = std::to_string(config_.shared_mem);
        fail(GPUVEC_ERROR_CUDA,
             config_.shared_mem == 0
                 ? "an illegal memory access was encountered: the kernel accessed its extern "
                   "__shared__ array, but the launch gave it no dynamic shared memory "
                   "(shared_mem=0), in " +
                       block + "; pass shared_mem=<bytes per block> to the launch"
                 : "an illegal memory access was encountered: the kernel accessed its extern "
                   "__shared__ array beyond the " +
                       bytes + " bytes that the launch gave it (shared_mem=" + bytes + "), in " +
                       block,
             kCudaErrorIllegalAddress, "cudaErrorIllegalAddress");
        break;
      }
      case Fault::kStopped:  // the launch failed already: that is what it reports
      case Fault::kNone:
        break;
    }
  } catch (...) {
    fail(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
  }
}

std::string where(gpuvec_emulation_dim3 thread, gpuvec_emulation_dim3 block) {
  return " (thread (" + std::to_string(thread.x) + ", " + std::to_string(thread.y) + ", " +
         std::to_string(thread.z) + ") of block (" + std::to_string(block.x) + ", " +
         std::to_string(block.y) + ", " + std::to_string(block.z) + "))";
}

}  // namespace gpuvec::host::emulation
