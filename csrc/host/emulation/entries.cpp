// Users' ElementwiseKernels and ReductionKernels on the host backend: their
// library's entry, run on gpuvec's thread pool inside the sandbox, as a
// kernel's blocks are (sandbox.hpp). The user's failures (assert, __trap, an
// exception) are reported through a context without threads
// (gpuvec/emulation.h); Ctrl-C and GPUVEC_KERNEL_TIMEOUT stop the call.
#include <atomic>
#include <new>

#include "../../kit/error.hpp"
#include "../../kit/kernel_backends.hpp"
#include "../map.hpp"
#include "../parallel.hpp"
#include "gpuvec/emulation.h"
#include "launch.hpp"
#include "sandbox.hpp"

namespace gpuvec::host {
namespace {

using emulation::Run;
using emulation::Worker;

// The context through which the library reports the user's failures to `run`.
gpuvec_emulation_block failure_context(Run& run) {
  gpuvec_emulation_block context{};
  context.runtime = &emulation::runtime_table;
  context.runtime_data = &run;  // block_dim 0 x 0 x 0: runtime_data is the run
  return context;
}

// Runs body() as the user's code of `run` on the calling thread; false where
// gpuvec could not (no memory for the thread's worker).
template <class Body>
void contained(Run& run, Body&& body) noexcept {
  try {
    Worker& worker = emulation::this_thread_worker();
    worker.guard.shared_guard = 0;  // no block's dynamic shared memory here
    // Only the watchdog's stop can take the thread out: the code runs on the
    // thread's own stack, not a fiber's.
    emulation::guarded(worker.guard, run, body);
  } catch (...) {
    run.fail(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
  }
}

// The run of the reduction that the calling thread's library entry runs.
thread_local Run* reduction = nullptr;

// HostReduceCall's run_items: gpuvec's pool, each item contained.
void contained_items(int64_t count, Item item, void* context) {
  struct Job {
    Run* run;
    Item item;
    void* context;
  } job{reduction, item, context};
  run_items(
      count,
      [](void* j, int64_t i, int thread) {
        const Job& job = *static_cast<const Job*>(j);
        if (job.run->failed()) return;  // stopped: the items left are skipped
        contained(*job.run, [&] { job.item(job.context, i, thread); });
      },
      &job);
}

}  // namespace

void run_map(void* entry, const void* layout, int64_t size, void* out, const void* const* in) {
  const auto run_entry = reinterpret_cast<gpuvec_emulation_map_entry>(entry);
  emulation::InterruptScope interrupts;
  Run run(Run::Kind::kElementwise);
  gpuvec_emulation_block context = failure_context(run);
  std::atomic<bool> out_of_memory{false};
  parallel_ranges(size, [&](int64_t begin, int64_t end) {
    if (run.failed()) return;
    contained(run, [&] {
      if (run_entry(&context, layout, out, in, begin, end) == 2) out_of_memory = true;
    });
  });
  if (out_of_memory) run.fail(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
  run.check();
}

void run_map_reduce(void* entry, const void* layout, void* out, const void* const* in) {
  emulation::InterruptScope interrupts;
  Run run(Run::Kind::kReduction);
  gpuvec_emulation_block context = failure_context(run);
  const HostReduceCall call{layout, out, in, contained_items, &context};
  Run* const outer = reduction;
  reduction = &run;
  int result = 0;
  contained(run, [&] { result = reinterpret_cast<ReduceEntry>(entry)(&call); });
  reduction = outer;
  if (result == 1) {
    run.fail(GPUVEC_ERROR_OUT_OF_MEMORY, "out of host memory for a reduction's states");
  }
  run.check();
}

}  // namespace gpuvec::host
