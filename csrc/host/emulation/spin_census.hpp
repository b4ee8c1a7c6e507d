// Whether the spinning blocks of a launch can still be released: the part of
// a hopeless spin's proof that spans blocks (scheduler.hpp has the part
// inside a block).
//
// A block is *stuck* when none of its threads can go on by itself: each that
// could run spins, and has spun twice in the same state with nothing changed
// in between. A stuck block waits for memory that another block must write.
// Once every block that runs is stuck and no block is left to start, none
// ever will: the launch can never finish.
//
// Blocks run on different OS threads, so "every running block is stuck" must
// hold at one moment. The census keeps an epoch: a block bumps it when it
// finishes, and before it counts itself stuck after having run (it may have
// written what another block waits for), and each stuck block counts itself
// once per epoch, after it has checked, within that epoch, that it is still
// stuck. Bumping resets the count, so that a block counted in an epoch has
// seen every write made before the epoch began, and a block that writes
// anything later bumps the epoch first, by finishing or by counting itself.
#ifndef GPUVEC_HOST_EMULATION_SPIN_CENSUS_HPP
#define GPUVEC_HOST_EMULATION_SPIN_CENSUS_HPP

#include <stdint.h>

#include <atomic>

namespace gpuvec::host::emulation {

class SpinCensus {
 public:
  enum class Verdict {
    kWait,           // some block that runs is not stuck (or the epoch moved on)
    kHopeless,       // every block has started, and every one that runs is stuck
    kWaitsForBlock,  // every block that runs is stuck, and blocks are left to start
  };

  explicit SpinCensus(int64_t blocks) : blocks_(blocks) {}
  SpinCensus(const SpinCensus&) = delete;
  SpinCensus& operator=(const SpinCensus&) = delete;

  void block_started() {
    started_.fetch_add(1);
    bump();
  }
  // The bump comes first: until finished_ counts the block, no count can
  // match the blocks that run.
  void block_finished() {
    bump();
    finished_.fetch_add(1);
  }

  uint64_t epoch() const { return state_.load() >> kCountBits; }
  // A new epoch, with no block counted in it; returns it.
  uint64_t bump() {
    uint64_t s = state_.load();
    while (!state_.compare_exchange_weak(s, ((s >> kCountBits) + 1) << kCountBits)) {
    }
    return (s >> kCountBits) + 1;
  }
  // Counts a stuck block in `epoch`: false if the epoch has moved on.
  bool count(uint64_t epoch) {
    uint64_t s = state_.load();
    while (s >> kCountBits == epoch) {
      if (state_.compare_exchange_weak(s, s + 1)) return true;
    }
    return false;
  }
  // What a block counted in `epoch` may conclude.
  Verdict verdict(uint64_t epoch) const {
    const uint64_t before = state_.load();
    const int64_t started = started_.load(), finished = finished_.load();
    if (state_.load() != before || before >> kCountBits != epoch) return Verdict::kWait;
    const auto stuck = static_cast<int64_t>(before & ((uint64_t{1} << kCountBits) - 1));
    if (stuck != started - finished) return Verdict::kWait;
    return started == blocks_ ? Verdict::kHopeless : Verdict::kWaitsForBlock;
  }

  int64_t blocks() const { return blocks_; }
  int64_t started() const { return started_.load(); }
  int64_t running() const { return started_.load() - finished_.load(); }

 private:
  // The low bits of state_ count the stuck blocks of the epoch in its high bits.
  static constexpr int kCountBits = 24;

  const int64_t blocks_;
  std::atomic<uint64_t> state_{0};
  std::atomic<int64_t> started_{0};
  std::atomic<int64_t> finished_{0};
};

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_SPIN_CENSUS_HPP
