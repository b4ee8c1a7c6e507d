// The block scheduler: fibers, the block barrier and the warp barriers.
#include "scheduler.hpp"

#include <stdlib.h>

#include "gpuvec/emulation.h"

namespace gpuvec::host::emulation {

Scheduler::Outcome Scheduler::run(uint32_t threads, void (*body)(void*, uint32_t), void* arg,
                                  const std::atomic<bool>* stop) {
  if (threads_.size() < threads) threads_.resize(threads);
  // Every thread's fiber starts afresh, on the pooled stack of its index.
  for (uint32_t t = 0; t < threads; ++t) {
    Thread& thread = threads_[t];
    // Stacks lie a multiple of the page size apart, so their tops would all
    // share the same few cache sets; staggering them by cache lines spreads
    // the fibers' hottest lines over the cache.
    const size_t stagger = (t % 64) * 64;
    fiber_prepare(thread.context, stacks_.stack(t), StackPool::kStackBytes - stagger, &fiber_main,
                  this);
    thread.next = t + 1 == threads ? 0 : t + 1;
    thread.prev = t == 0 ? threads - 1 : t - 1;
    thread.state = State::kRunnable;
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
