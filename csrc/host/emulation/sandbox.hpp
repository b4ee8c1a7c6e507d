// What keeps a user's kernel from taking the process down with it, and lets
// a launch be stopped.
//
// Faults. A SIGSEGV (or SIGBUS) handler, on an alternate signal stack,
// recognises a fault in a guard page of gpuvec's own: below a fiber's stack
// (the stack overflowed) or after a block's dynamic shared memory (an access
// beyond shared_mem). The thread then leaves the user's code for good: the
// handler jumps (siglongjmp) back to where gpuvec entered it (a Guard), which
// reports the fault as the launch's failure. Any other fault is handed to the
// handler that was there before (Python's faulthandler, or the default
// action), as if gpuvec had none.
//
// Stopping. A launch stops when it fails, when it runs past its timeout
// (GPUVEC_KERNEL_TIMEOUT) and on Ctrl-C (SIGINT, whose handler gpuvec holds
// during a launch and gives back after it, raising the signal again for
// Python). The launch's threads see it at each block and each barrier round.
// One that does not come back (a kernel spinning on a flag that no one will
// set) is fetched: a watchdog thread sends it SIGURG, whose handler jumps out
// of the kernel when the thread runs the kernel's own code, never inside the
// C library (a lock it holds would stay held) or gpuvec.
#ifndef GPUVEC_HOST_EMULATION_SANDBOX_HPP
#define GPUVEC_HOST_EMULATION_SANDBOX_HPP

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <type_traits>

namespace gpuvec::host::emulation {

// Why a thread left the user's code through its Guard.
enum class Fault : int {
  kNone = 0,
  kStackOverflow = 1,  // a guard page below a fiber stack
  kSharedMemory = 2,   // the guard page after the dynamic shared memory
  kStopped = 3,        // fetched by the watchdog: the launch stops
};

// What the signal handlers know of an OS thread that runs users' code. Each
// Worker (launch.hpp) has one, registered for its thread's life.
struct ThreadGuard {
  pid_t tid = 0;
  pthread_t thread{};
  // Set while the thread runs a user's code: where a fault takes it.
  sigjmp_buf* volatile recover = nullptr;
  // The run (Run::serial) the thread works for, and the one the watchdog
  // fetches it from.
  std::atomic<uint64_t> run{0};
  std::atomic<uint64_t> stop{0};
  // What the handler saw.
  volatile int fault = 0;
  volatile long stack = -1;
  // Which fiber stack's guard holds an address (-1: none); the dynamic shared
  // memory's guard page; both read by the handler on the thread itself.
  long (*guard_of)(const void* owner, uintptr_t address) = nullptr;
  const void* owner = nullptr;
  uintptr_t shared_guard = 0;
  void* altstack = nullptr;  // the alternate signal stack gpuvec gave the thread, if any
};

// Makes the calling thread's signals find `guard`, gives the thread an
// alternate signal stack if it has none big enough, and installs the
// handlers (once per process). unregister_thread undoes the first two.
void register_thread(ThreadGuard& guard);
void unregister_thread(ThreadGuard& guard);

// The code of a loaded kernel library: where the watchdog may fetch a thread
// from. forget_library when it is unloaded.
void remember_library(void* handle);
void forget_library(void* handle);

// Unblocks the signals a handler left blocked when it jumped away.
void unblock_fault_signals();

// Ctrl-C during a launch: while one lives, SIGINT stops every run instead of
// reaching Python's handler; the last to end gives the handler back and, if
// SIGINT came, raises it again for Python. Not where SIGINT is ignored or
// left to its default action (that kills the process, as it would have).
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// One run of a user's code (a kernel launch, an ElementwiseKernel or a
// ReductionKernel call): its first failure, and its stop flag.
class Run {
 public:
  enum class Kind { kKernel, kElementwise, kReduction };

  // A run that may last `timeout` seconds; 0 reads it from
  // GPUVEC_KERNEL_TIMEOUT (unset, empty or 0: none). Tells the watchdog.
  // Throws Error(INVALID_ARGUMENT) for a timeout that is not a number of
  // seconds.
  explicit Run(Kind kind, double timeout = 0);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  Kind kind() const { return kind_; }
  uint64_t serial() const { return serial_; }

  // Keeps the first failure; later ones are dropped. Any thread.
  void fail(int status, const std::string& message, int cuda_code = 0,
            const char* cuda_name = "") noexcept;
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Set with the first failure: what the scheduler watches.
  const std::atomic<bool>* stop_flag() const { return &failed_; }
  // Throws the first failure, if any, as gpuvec::Error.
  void check() const;

 private:
  friend class Watchdog;
  Kind kind_;
  uint64_t serial_;
  double timeout_;  // seconds, 0 for none
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point failed_at_;  // the watchdog's, once it saw the failure
  bool failure_seen_ = false;                        // the watchdog's
  uint64_t interrupts_;                              // SIGINTs before the run began

  std::atomic<bool> failed_{false};
  std::mutex mutex_;  // guards what follows
  int status_ = 0;
  int cuda_code_ = 0;
  std::string message_;
  std::string cuda_name_;
};

// Runs body() as user code of `run` on this thread (described by `guard`):
// a fault in a guard page, or the watchdog fetching the thread, takes it
// back here; returns which (Fault::kNone when body returned).
template <class Body>
Fault guarded(ThreadGuard& guard, const Run& run, Body&& body);

// The part of guarded() that must not be inlined: the jump's target.
Fault guarded_call(ThreadGuard& guard, uint64_t run, void (*body)(void*), void* context);

template <class Body>
Fault guarded(ThreadGuard& guard, const Run& run, Body&& body) {
  using B = std::remove_reference_t<Body>;
  return guarded_call(
      guard, run.serial(), [](void* b) { (*static_cast<B*>(b))(); },
      const_cast<void*>(static_cast<const void*>(&body)));
}

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_SANDBOX_HPP
