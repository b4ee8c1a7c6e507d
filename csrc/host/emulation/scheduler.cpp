// The block scheduler: fibers, the block barrier and the warp barriers.
#include "scheduler.hpp"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "gpuvec/emulation.h"

namespace gpuvec::host::emulation {
namespace {

// How long every block that runs may stay stuck, with blocks left to start,
// before the launch is deemed to wait for one of them: a worker thread of
// the pool that woke late may yet start one.
constexpr int64_t kWaitForBlockNs = 300'000'000;

int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

// A hash of the 8-byte words of [from, top): a suspended thread's state.
// Whatever lies there is the fiber's own (its frames), so it is read as
// it is, redzones included.
__attribute__((no_sanitize_address, noinline)) uint64_t hash_stack(const char* from,
                                                                   const char* top) {
  auto at = reinterpret_cast<uintptr_t>(from) & ~uintptr_t{7};
  const auto end = reinterpret_cast<uintptr_t>(top) & ~uintptr_t{7};
  uint64_t h = 0xcbf29ce484222325u;
  for (; at < end; at += 8) {
    h ^= *reinterpret_cast<const uint64_t*>(at);
    h *= 0x100000001b3u;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

Scheduler::Outcome Scheduler::run(uint32_t threads, void (*body)(void*, uint32_t), void* arg,
                                  const std::atomic<bool>* stop, SpinCensus* census) {
  if (threads_.size() < threads) {
    threads_.resize(threads);
    spinners_.resize(threads);
  }
  // Every thread's fiber starts afresh, on the pooled stack of its index.
  for (uint32_t t = 0; t < threads; ++t) {
    Thread& thread = threads_[t];
    // Stacks lie a multiple of the page size apart, so their tops would all
    // share the same few cache sets; staggering them by cache lines spreads
    // the fibers' hottest lines over the cache.
    const size_t stagger = (t % 64) * 64;
    char* const stack = static_cast<char*>(stacks_.stack(t));
    fiber_prepare(thread.context, stack, StackPool::kStackBytes - stagger, &fiber_main, this);
    thread.next = t + 1 == threads ? 0 : t + 1;
    thread.prev = t == 0 ? threads - 1 : t - 1;
    thread.state = State::kRunnable;
    spinners_[t] = {stack + StackPool::kStackBytes - stagger, 0, 0, 0, false};
  }
  for (uint32_t w = 0; w * 32 < threads; ++w) {
    const uint32_t lanes = threads - w * 32;
    warps_[w].live = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
    warps_[w].waiting = 0;
  }
  threads_in_block_ = threads;
  body_ = body;
  arg_ = arg;
  stop_ = stop;
  census_ = census;
  progress_ = 1;
  rerounds_ = stuck_round_ = 0;
  stuck_threads_ = 0;
  checked_progress_ = 0;
  counted_epoch_ = ~uint64_t{0};
  waiting_since_ns_ = -1;
  live_ = threads;
  block_waiting_ = block_count_ = 0;
  outcome_ = Outcome::kFinished;
  current_ = 0;
  running_ = true;
  fiber_describe_thread(home_);
  fiber_switch(home_, threads_[0].context);
  // Back when every thread has returned, or none can go on.
  running_ = false;
  return outcome_;
}

void Scheduler::run_alone(void (*fn)(void*), void* arg) {
  fiber_prepare(alone_, stacks_.stack(0), StackPool::kStackBytes, &alone_main, this);
  alone_fn_ = fn;
  arg_ = arg;
  fiber_describe_thread(home_);
  fiber_switch(home_, alone_);
}

void Scheduler::alone_main(void* scheduler) {
  fiber_started();
  auto* self = static_cast<Scheduler*>(scheduler);
  self->alone_fn_(self->arg_);
  fiber_switch(self->alone_, self->home_, true);
  abort();  // run_alone never resumes a fiber that has returned
}

// Gives up the block's fibers and goes back to run().
void Scheduler::stop() {
  outcome_ = Outcome::kStopped;
  fiber_switch(threads_[current_].context, home_, true);
  abort();  // run() never resumes a thread of a finished block
}

void Scheduler::fiber_main(void* scheduler) {
  fiber_started();
  auto* self = static_cast<Scheduler*>(scheduler);
  self->body_(self->arg_, self->current_);
  self->exit_thread();
}

// Lets every thread at the block barrier go (see runnable()).
void Scheduler::release_block() {
  block_result_ = block_count_;
  block_waiting_ = block_count_ = 0;
  ++block_generation_;
}

// Releases the meeting of `lane` if all its live lanes are there.
bool Scheduler::try_release(Warp& warp, uint32_t w, uint32_t lane) {
  const uint32_t meeting = warp.mask[lane] & warp.live;
  if ((warp.waiting & meeting) != meeting) return false;
  uint32_t ballot = 0;
  for (uint32_t k = 0; k < 32; ++k) {
    if ((meeting >> k & 1) && warp.value[k] != 0) ballot |= 1u << k;
  }
  for (uint32_t k = 0; k < 32; ++k) {
    if (!(meeting >> k & 1)) continue;
    const uint32_t src = warp.src[k];
    switch (warp.op[k]) {
      case GPUVEC_EMULATION_WARP_READ:
        warp.result[k] = warp.value[meeting >> src & 1 ? src : k];
        break;
      case GPUVEC_EMULATION_WARP_BALLOT:
        warp.result[k] = ballot;
        break;
      default:
        warp.result[k] = 0;
    }
    threads_[w * 32 + k].state = State::kRunnable;
  }
  warp.waiting &= ~meeting;
  return true;
}

uint32_t Scheduler::live_lanes() const { return warps_[current_ / 32].live; }

void Scheduler::exit_thread() {
  const uint32_t me = current_, w = me / 32;
  Thread& thread = threads_[me];
  thread.state = State::kReturned;
  ++progress_;
  threads_[thread.prev].next = thread.next;
  threads_[thread.next].prev = thread.prev;
  --live_;
  // Whoever waited for this thread alone may go on now.
  Warp& warp = warps_[w];
  warp.live &= ~(1u << (me % 32));
  for (uint32_t k = 0; warp.waiting != 0 && k < 32; ++k) {
    if (warp.waiting >> k & 1) try_release(warp, w, k);
  }
  if (block_waiting_ > 0 && block_waiting_ == live_) release_block();
  switch_away(thread.next, true);
  abort();  // a returned thread is never resumed
}

// --- spinning ----------------------------------------------------------------------------------

Scheduler::Spin Scheduler::spin(const char* from, uint64_t changes) {
  if (stop_->load(std::memory_order_relaxed)) stop();
  if (changes != changes_) {
    changes_ = changes;
    ++progress_;
  }
  Spinner& me = spinners_[current_];
  Spin verdict = Spin::kRunning;
  if (me.seen != progress_ + rerounds_) {
    me.seen = progress_ + rerounds_;  // the first spin of its round
    me.has_print = false;
  } else {
    // Hashed here, where nothing that varies between spins lies on the
    // stack above `from`.
    const uint64_t print = hash_stack(from, me.top);
    if (!me.has_print) {
      me.print = print;
      me.has_print = true;
    } else if (print != me.print) {  // the thread got somewhere
      me.print = print;
      ++progress_;
      me.seen = progress_ + rerounds_;
    } else {
      const uint64_t round = progress_ + rerounds_;
      if (stuck_round_ != round) {
        stuck_round_ = round;
        stuck_threads_ = 0;
      }
      if (me.stuck != round) {
        me.stuck = round;
        ++stuck_threads_;
      }
      if (stuck_threads_ == runnable_threads()) verdict = block_stuck();
    }
  }
  if (verdict == Spin::kRunning || verdict == Spin::kWait) yield();
  return verdict;
}

// The threads that may run: not waiting at a barrier that has not released.
uint32_t Scheduler::runnable_threads() const {
  uint32_t waiting = block_waiting_;
  for (uint32_t w = 0; w * 32 < threads_in_block_; ++w)
    waiting += static_cast<uint32_t>(__builtin_popcount(warps_[w].waiting));
  return live_ - waiting;
}

// Every thread that may run is stuck: what the launch's census makes of it.
Scheduler::Spin Scheduler::block_stuck() {
  const uint64_t epoch = census_->epoch();
  if (checked_progress_ != progress_ || round_epoch_ != epoch) {
    // The block ran since it last found itself stuck (or never did): what
    // it wrote may release another block, so a new epoch begins, and the
    // block checks itself again within it. So it does when another block
    // began a new epoch.
    round_epoch_ = checked_progress_ != progress_ ? census_->bump() : epoch;
    checked_progress_ = progress_;
    ++rerounds_;
    waiting_since_ns_ = -1;
    return Spin::kRunning;
  }
  if (counted_epoch_ != epoch) {
    if (!census_->count(epoch)) return Spin::kRunning;  // the epoch moved on: checked again
    counted_epoch_ = epoch;
  }
  switch (census_->verdict(epoch)) {
    case SpinCensus::Verdict::kHopeless:
      return Spin::kHopeless;
    case SpinCensus::Verdict::kWaitsForBlock: {
      const int64_t now = now_ns();
      if (waiting_since_ns_ < 0) waiting_since_ns_ = now;
      if (now - waiting_since_ns_ >= kWaitForBlockNs) return Spin::kWaitsForBlock;
      break;
    }
    case SpinCensus::Verdict::kWait:
      waiting_since_ns_ = -1;
      break;
  }
  // Only another block can release this one: leave it the core.
  sched_yield();
  return Spin::kWait;
}

// Lets the next runnable thread of the ring run; the running thread stays
// runnable (a yield is no barrier).
void Scheduler::yield() {
  const uint32_t from = current_;
  uint32_t t = threads_[from].next;
  for (uint32_t n = 1; n < live_; ++n, t = threads_[t].next) {
    if (runnable(threads_[t])) {
      current_ = t;
      fiber_switch(threads_[from].context, threads_[t].context);
      return;
    }
  }
}

Scheduler::Census Scheduler::census() const {
  Census census;
  for (uint32_t t = 0; t < threads_in_block_; ++t) {
    switch (threads_[t].state) {
      case State::kBlockBarrier:
        census.at_block_barrier += threads_[t].generation == block_generation_;
        break;
      case State::kWarpBarrier:
        ++census.at_warp_barrier;
        break;
      case State::kReturned:
        ++census.returned;
        break;
      case State::kRunnable:
        break;
    }
  }
  return census;
}

}  // namespace gpuvec::host::emulation
