// The services a kernel library calls through gpuvec_emulation_runtime: each
// takes the block context and reaches the OS thread's worker through it. None
// lets an exception out: they are called from the kernel's C++, across the
// library boundary and from fibers.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>

#include "launch.hpp"

namespace gpuvec::host::emulation {
namespace {

// CUDA's codes for what the same failure is on a GPU.
constexpr int kCudaErrorLaunchTimeout = 702;
constexpr int kCudaErrorAssert = 710;
constexpr int kCudaErrorLaunchFailure = 719;

// A barrier outside the fibers: gpuvec ran a kernel that synchronizes as a
// plain loop. The header stops such a thread before it gets here; this is the
// runtime's own guard.
bool outside_fibers(Worker& worker, const char* what) {
  if (worker.scheduler.in_fiber()) return false;
  run_of(&worker.block)
      .fail(GPUVEC_ERROR_INTERNAL,
            std::string(what) + " was called outside the fibers of a cooperative block");
  return true;
}

// Where a failure happened, for its message: the thread and block of a
// kernel, or the kind of kernel of a context without threads.
std::string place(const gpuvec_emulation_block* block, gpuvec_emulation_dim3 thread) {
  if (block->block_dim.x != 0) return where(thread, block->block_idx);
  return run_of(block).kind() == Run::Kind::kReduction ? " (in a ReductionKernel)"
                                                       : " (in an ElementwiseKernel)";
}

void run_threads(gpuvec_emulation_block* block, void (*thread)(void*, uint32_t),
                 void* arg) noexcept {
  Worker& worker = Worker::of(block);
  const uint32_t threads = block->block_dim.x * block->block_dim.y * block->block_dim.z;
  Run& run = *worker.run;
  Scheduler::Outcome outcome;
  try {
    outcome = worker.scheduler.run(threads, thread, arg, run.stop_flag(),
                                   &static_cast<Launch&>(run).census());
  } catch (const std::exception& e) {  // the stacks could not be mapped
    run.fail(GPUVEC_ERROR_OUT_OF_MEMORY, e.what());
    return;
  }
  // Stopped: the launch has failed already, and that is what it reports.
  if (outcome != Scheduler::Outcome::kDeadlock) return;
  const Scheduler::Census c = worker.scheduler.census();
  const gpuvec_emulation_dim3 b = block->block_idx;
  run.fail(GPUVEC_ERROR_CUDA,
           "the kernel deadlocked in block (" + std::to_string(b.x) + ", " + std::to_string(b.y) +
               ", " + std::to_string(b.z) + "): " + std::to_string(c.at_block_barrier) +
               " threads wait at __syncthreads() and " + std::to_string(c.at_warp_barrier) +
               " at a warp barrier (__syncwarp or a *_sync intrinsic) for threads "
               "that can never arrive (" +
               std::to_string(c.returned) + " have returned); on a GPU this launch would hang",
           kCudaErrorLaunchTimeout, "cudaErrorLaunchTimeout");
}

uint32_t sync_threads(gpuvec_emulation_block* block, int predicate) noexcept {
  Worker& worker = Worker::of(block);
  if (outside_fibers(worker, "__syncthreads")) return 0;
  return worker.scheduler.sync_threads(predicate);
}

uint64_t warp_exchange(gpuvec_emulation_block* block, int op, uint32_t mask, uint64_t value,
                       uint32_t src) noexcept {
  Worker& worker = Worker::of(block);
  if (outside_fibers(worker, "a warp intrinsic")) return value;
  return worker.scheduler.warp_exchange(op, mask, value, src);
}

uint32_t active_mask(gpuvec_emulation_block* block) noexcept {
  Worker& worker = Worker::of(block);
  if (outside_fibers(worker, "__activemask")) return 1;
  return worker.scheduler.live_lanes();
}

void index_fault(gpuvec_emulation_block* block, const char* name, int64_t index, int64_t length,
                 gpuvec_emulation_dim3 thread) noexcept {
  Run& launch = run_of(block);
  if (launch.failed()) return;  // only the first fault is told
  char text[160];
  snprintf(text, sizeof text, "index %" PRId64 " is out of bounds for parameter '", index);
  std::string message = text;
  message += name ? name : "?";
  snprintf(text, sizeof text, "' of length %" PRId64, length);
  message += text;
  launch.fail(GPUVEC_ERROR_INDEX, message + place(block, thread));
}

void fail(gpuvec_emulation_block* block, int failure, const char* message,
          gpuvec_emulation_dim3 thread) noexcept {
  Run& launch = run_of(block);
  const std::string what = message ? message : "";
  const std::string at = place(block, thread);
  switch (failure) {
    case GPUVEC_EMULATION_FAILURE_ASSERT:
      launch.fail(GPUVEC_ERROR_CUDA, "device-side assert triggered: " + what + at,
                  kCudaErrorAssert, "cudaErrorAssert");
      break;
    case GPUVEC_EMULATION_FAILURE_TRAP:
      launch.fail(GPUVEC_ERROR_CUDA, "unspecified launch failure: " + what + at,
                  kCudaErrorLaunchFailure, "cudaErrorLaunchFailure");
      break;
    case GPUVEC_EMULATION_FAILURE_EXCEPTION:
      launch.fail(GPUVEC_ERROR_CUDA,
                  "unspecified launch failure: a C++ exception left the kernel: " + what + at,
                  kCudaErrorLaunchFailure, "cudaErrorLaunchFailure");
      break;
    // Checked mode's findings: the message names the kernel, the lines and
    // the threads. The bug's kind travels as the error's name, which the
    // Python layer turns into its exception class (gpuvec.KernelBugError's).
    case GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS:
      launch.fail(GPUVEC_ERROR_INDEX, what + at);
      break;
    case GPUVEC_EMULATION_FAILURE_RACE:
      launch.fail(GPUVEC_ERROR_CUDA, what + at, 0, "kernel-bug:race");
      break;
    case GPUVEC_EMULATION_FAILURE_BARRIER:
      launch.fail(GPUVEC_ERROR_CUDA, what + at, 0, "kernel-bug:barrier");
      break;
    case GPUVEC_EMULATION_FAILURE_UNINITIALIZED:
      launch.fail(GPUVEC_ERROR_CUDA, what + at, 0, "kernel-bug:uninitialized");
      break;
    case GPUVEC_EMULATION_FAILURE_WARP_MASK:
      launch.fail(GPUVEC_ERROR_CUDA, what + at, 0, "kernel-bug:warp-mask");
      break;
    case GPUVEC_EMULATION_FAILURE_NOT_COOPERATIVE:
      launch.fail(GPUVEC_ERROR_INTERNAL, what +
                                             " was called in a kernel that gpuvec runs as a plain "
                                             "loop (launched without GPUVEC_KERNEL_COOPERATIVE)" +
                                             at);
      break;
    default:
      launch.fail(GPUVEC_ERROR_INTERNAL, "the kernel library reported an unknown failure" + at);
  }
}

void exit_thread(gpuvec_emulation_block* block) noexcept {
  Worker& worker = Worker::of(block);
  if (outside_fibers(worker, "exit_thread")) abort();  // cannot return, as promised
  worker.scheduler.exit_thread();
}

// noinline: its frame is where the spinning thread's state begins on its
// stack (the caller, the header's spin_wait, saved every callee-saved
// register there), for Scheduler::spin's hash of it.
__attribute__((noinline)) void spin(gpuvec_emulation_block* block, uint64_t changes,
                                    const char* kernel, const char* file, uint32_t line) noexcept {
  if (block->block_dim.x == 0) return;  // a context without threads
  Worker& worker = Worker::of(block);
  Scheduler& scheduler = worker.scheduler;
  if (!scheduler.in_fiber()) return;  // a plain loop: no other thread to let run
  const auto* from = static_cast<const char*>(__builtin_frame_address(0));
  const Scheduler::Spin verdict = scheduler.spin(from, changes);
  if (verdict == Scheduler::Spin::kRunning || verdict == Scheduler::Spin::kWait) return;
  Launch& launch = static_cast<Launch&>(*worker.run);
  try {
    const gpuvec_emulation_dim3 d = block->block_dim;
    const uint32_t t = scheduler.current();
    const std::string who = where({t % d.x, t / d.x % d.y, t / (d.x * d.y)}, block->block_idx);
    const std::string at = std::string(file ? file : "?") + ":" + std::to_string(line);
    const std::string name = kernel ? kernel : "?";
    if (verdict == Scheduler::Spin::kHopeless) {
      launch.fail(GPUVEC_ERROR_CUDA,
                  "the kernel '" + name + "' can never finish: a thread spins at " + at +
                      ", waiting for memory that no thread can change any more (every other "
                      "thread of the launch has returned, waits at a barrier, or spins in the "
                      "same state too); on a GPU this launch would hang" +
                      who,
                  kCudaErrorLaunchTimeout, "cudaErrorLaunchTimeout");
    } else {
      const SpinCensus& census = launch.census();
      const int64_t left = census.blocks() - census.started(), running = census.running();
      launch.fail(GPUVEC_ERROR_CUDA,
                  "the kernel '" + name + "' waits for another block: a thread spins at " + at +
                      ", every block that runs waits too, and " + std::to_string(left) +
                      " of the launch's " + std::to_string(census.blocks()) + " blocks " +
                      (left == 1 ? "has" : "have") + " not started. The host runs " +
                      std::to_string(running) + (running == 1 ? " block" : " blocks") +
                      " at a time, each to its end, and a GPU does not promise either that "
                      "the blocks of a launch run at the same time: a block must not wait "
                      "for another" +
                      who,
                  kCudaErrorLaunchTimeout, "cudaErrorLaunchTimeout");
    }
  } catch (...) {
    launch.fail(GPUVEC_ERROR_OUT_OF_MEMORY, "a host memory allocation failed");
  }
  scheduler.stop();
}

}  // namespace

const gpuvec_emulation_runtime runtime_table = {
    GPUVEC_EMULATION_VERSION,
    &run_threads,
    &sync_threads,
    &warp_exchange,
    &active_mask,
    &index_fault,
    &fail,
    &exit_thread,
    &spin,
};

}  // namespace gpuvec::host::emulation
