// The threads of one cooperative block, run as fibers on one OS thread.
//
// Fibers run round-robin; one runs until it waits at a barrier or returns
// from the kernel, then the next runnable one in the ring of live threads
// takes over. The last thread to arrive at a barrier releases the others and
// runs on without a switch.
//
// Two barriers:
//   - the block barrier (__syncthreads) waits for every live thread;
//   - the warp barrier of the warp intrinsics waits for every live lane of
//     the mask the caller names, in the caller's warp. Each lane brings a
//     value, and when the last one arrives the scheduler hands each lane what
//     it asked for: the value of a source lane (the shuffles) or the mask of
//     lanes that brought a nonzero value (__ballot_sync). One barrier suffices:
//     a lane's result is not overwritten before the lane comes back to
//     the next barrier, and that cannot complete without it.
// A thread that has returned no longer takes part in either. If every live
// thread waits and no barrier can release, the block has deadlocked; run()
// then gives up its fibers (they are never resumed) and says so. It gives
// them up too when the launch is told to stop (a timeout, Ctrl-C, another
// block's failure), which it looks at each time a barrier releases.
//
// A block without barriers runs as a plain loop, on a fiber too (run_alone),
// so that its threads have the stack that a fiber has, guard page included.
//
// Spinning. A thread that waits for another to change memory (a volatile
// read, an atomic, __nanosleep or __threadfence, in a loop) calls spin(),
// which lets the next runnable thread of the ring run: a yield is no barrier,
// and the thread stays runnable. GPUs since sm_70 schedule their threads
// independently, and such a spin ends there too. spin() also finds a spin
// that can never end: when every thread that could run has spun twice in
// the same state (its registers and stack, hashed) with nothing changed in
// between (no thread arrived at a barrier, returned, or read anything new
// through the calls that spin), the block is stuck, and the launch's
// SpinCensus says whether another block may still release it.
#ifndef GPUVEC_HOST_EMULATION_SCHEDULER_HPP
#define GPUVEC_HOST_EMULATION_SCHEDULER_HPP

#include <stdint.h>
#include <stdlib.h>

#include <atomic>
#include <vector>

#include "fiber.hpp"
#include "spin_census.hpp"
#include "stack_pool.hpp"

namespace gpuvec::host::emulation {

class Scheduler {
 public:
  enum class Outcome { kFinished, kDeadlock, kStopped };
  // What spin() found: the caller goes on spinning (kRunning, kWait), or the
  // spin can never end (kHopeless, kWaitsForBlock: see SpinCensus).
  enum class Spin { kRunning, kWait, kHopeless, kWaitsForBlock };

  // Where the threads were when a block deadlocked.
  struct Census {
    uint32_t at_block_barrier = 0;
    uint32_t at_warp_barrier = 0;
    uint32_t returned = 0;
  };

  Scheduler() = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Runs body(arg, t) for every t < threads (at most 1024), each on a fiber,
  // until all have returned, the block deadlocks or *stop is set; `census`
  // is the launch's, for spin(). Throws Error if it cannot map the stacks;
  // body must not throw.
  Outcome run(uint32_t threads, void (*body)(void*, uint32_t), void* arg,
              const std::atomic<bool>* stop, SpinCensus* census);

  // Runs fn(arg) on a fiber of its own (on stack 0), and returns when it does.
  void run_alone(void (*fn)(void*), void* arg);

  // After a fault took this OS thread out of a fiber for good (sandbox.hpp):
  // the fibers are given up, as after a deadlock.
  void abandon() { running_ = false; }

  // Which stack's guard page holds `address` (-1: none); and giving back the
  // pages of one that overflowed.
  long guard_of(uintptr_t address) const { return stacks_.guard_of(address); }
  void release_stack(long i) { stacks_.release(static_cast<size_t>(i)); }

  // Only from inside run()'s fibers:
  // __syncthreads: returns how many threads brought predicate != 0.
  uint32_t sync_threads(int predicate);
  // The warp barrier: op is GPUVEC_EMULATION_WARP_* (gpuvec/emulation.h).
  uint64_t warp_exchange(int op, uint32_t mask, uint64_t value, uint32_t src);
  // The lanes of the running thread's warp that have not returned.
  uint32_t live_lanes() const;
  // Ends the running thread as if it had returned.
  [[noreturn]] void exit_thread();
  // The running thread spins (see above). `from` is the lowest address of
  // its stack that holds its state, callee-saved registers included (the
  // runtime's frame); `changes` counts the reads through the calls that spin
  // that saw something new, on this OS thread. Lets the other runnable
  // threads run first, unless the spin can never end. Stops the block if the
  // launch was told to stop.
  Spin spin(const char* from, uint64_t changes);
  // Gives up the block's fibers (the launch has failed) and goes back to run().
  [[noreturn]] void stop();
  // The running thread (linear index).
  uint32_t current() const { return current_; }

  bool in_fiber() const { return running_; }
  Census census() const;

 private:
  enum class State : uint8_t { kRunnable, kBlockBarrier, kWarpBarrier, kReturned };

  struct Thread {
    FiberContext context;
    uint32_t next, prev;  // neighbours in the ring of live threads
    uint32_t generation;  // at the block barrier: the barrier's generation it waits for
    State state;
  };

  // What spin() knows of a thread; apart from Thread, which the hot path of
  // the barriers keeps small.
  struct Spinner {
    const char* top;  // the top of its stack
    uint64_t seen;    // the round of its last spin()
    uint64_t stuck;   // the round in which it spun in the same state twice
    uint64_t print;   // the hash of its state
    bool has_print;   // print holds its state at its last spin() of round `seen`
  };

  struct Warp {
    uint32_t live;     // lanes that have not returned
    uint32_t waiting;  // lanes at the warp barrier
    uint32_t mask[32];
    uint64_t value[32];   // what each waiting lane brought
    uint64_t result[32];  // what each gets back
    uint8_t op[32];
    uint8_t src[32];
  };

  static void fiber_main(void* scheduler);
  static void alone_main(void* scheduler);

  bool runnable(const Thread& thread) const;
  void wait(State state);
  void switch_away(uint32_t start, bool returned);
  void release_block();
  bool try_release(Warp& warp, uint32_t warp_index, uint32_t lane);
  uint32_t runnable_threads() const;
  Spin block_stuck();
  void yield();

  StackPool stacks_;
  std::vector<Thread> threads_;
  std::vector<Spinner> spinners_;
  Warp warps_[32];
  FiberContext home_;   // the OS thread, which run() switches from and back to
  FiberContext alone_;  // run_alone's fiber
  void (*body_)(void*, uint32_t) = nullptr;
  void* arg_ = nullptr;
  void (*alone_fn_)(void*) = nullptr;
  const std::atomic<bool>* stop_ = nullptr;
  bool running_ = false;
  Outcome outcome_ = Outcome::kFinished;
  uint32_t threads_in_block_ = 0;
  uint32_t current_ = 0;
  uint32_t live_ = 0;
  uint32_t block_generation_ = 0;  // how many times the block barrier released
  uint32_t block_waiting_ = 0;     // threads at the block barrier
  uint32_t block_count_ = 0;       // of those, how many brought a nonzero predicate
  uint32_t block_result_ = 0;      // block_count_ of the last release

  // spin()'s proof. Progress is anything that may let a stuck thread go on:
  // an arrival at a barrier, a return, a read that saw something new, a
  // thread whose state changed. A round is the stretch in which a thread
  // must spin twice in the same state to count as stuck: it ends at each
  // progress, and when the block checks itself again (rerounds_).
  SpinCensus* census_ = nullptr;
  uint64_t progress_ = 1;
  uint64_t rerounds_ = 0;
  uint64_t changes_ = 0;      // the `changes` of the last spin()
  uint64_t stuck_round_ = 0;  // the round stuck_threads_ counts in
  uint32_t stuck_threads_ = 0;
  uint64_t checked_progress_ = 0;          // progress_ when the block last found itself stuck
  uint64_t round_epoch_ = 0;               // the census epoch the block checks itself in
  uint64_t counted_epoch_ = ~uint64_t{0};  // the epoch the census counts it in
  int64_t waiting_since_ns_ = -1;  // since when the census said kWaitsForBlock, in round_epoch_
};

// The hot path of a barrier, inline so that a waiting fiber keeps few frames
// (and cache lines) on its stack.

// A thread at the block barrier needs no one to wake it: once the barrier's
// generation has moved on, it may go.
inline bool Scheduler::runnable(const Thread& thread) const {
  return thread.state == State::kRunnable ||
         (thread.state == State::kBlockBarrier && thread.generation != block_generation_);
}

// The running thread stops here in `state`; returns once released.
inline void Scheduler::wait(State state) {
  Thread& thread = threads_[current_];
  thread.state = state;
  thread.generation = block_generation_;
  switch_away(thread.next, false);
  thread.state = State::kRunnable;
}

// Resumes the first runnable thread of the ring from `start`; with none, goes
// back to run(): the block is done, or deadlocked.
inline void Scheduler::switch_away(uint32_t start, bool returned) {
  const uint32_t from = current_;
  uint32_t t = start;
  for (uint32_t n = 0; n < live_; ++n, t = threads_[t].next) {
    if (runnable(threads_[t])) {
      current_ = t;
      fiber_switch(threads_[from].context, threads_[t].context, returned);
      return;
    }
  }
  if (live_ > 0) outcome_ = Outcome::kDeadlock;
  fiber_switch(threads_[from].context, home_, true);
  abort();  // run() never resumes a thread of a finished block
}

inline uint32_t Scheduler::sync_threads(int predicate) {
  ++progress_;
  block_count_ += predicate != 0;
  if (++block_waiting_ == live_) {
    // Once a barrier round: a block that loops forever through barriers
    // stops here.
    if (stop_->load(std::memory_order_relaxed)) stop();
    release_block();
  } else {
    wait(State::kBlockBarrier);
  }
  return block_result_;
}

inline uint64_t Scheduler::warp_exchange(int op, uint32_t mask, uint64_t value, uint32_t src) {
  if (stop_->load(std::memory_order_relaxed)) stop();
  ++progress_;
  const uint32_t w = current_ / 32, lane = current_ % 32;
  Warp& warp = warps_[w];
  warp.mask[lane] = mask | 1u << lane;  // a lane always meets itself
  warp.value[lane] = value;
  warp.op[lane] = static_cast<uint8_t>(op);
  warp.src[lane] = static_cast<uint8_t>(src % 32);
  warp.waiting |= 1u << lane;
  if (!try_release(warp, w, lane)) wait(State::kWarpBarrier);
  return warp.result[lane];
}

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_SCHEDULER_HPP
