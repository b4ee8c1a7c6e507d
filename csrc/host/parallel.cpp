// The host backend's thread pool (see parallel.hpp for why it is not OpenMP).
//
// One job at a time: `count` items and a function. The calling thread and
// the workers claim items from one atomic word until none are left; the
// caller then waits for the items still running on workers, and for nothing
// else. Workers spin briefly after a job, then sleep until the next one.
#include "parallel.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

namespace gpuvec::host {
namespace {

constexpr int kMaxThreads = 1024;

// How long a thread waits before it sleeps, for the last items (the caller)
// or for the next job (a worker). A worker waits longer: in a loop of calls
// it must catch the next job even when the caller ran every item of this one
// alone, as waking it is slow (tens of microseconds, and on Linux the wake
// also moves it onto the caller's core: see move_off). Both yield while they
// wait, so what they cost other programs is little.
constexpr std::chrono::microseconds kCallerSpin{50};
constexpr std::chrono::microseconds kWorkerSpin{2000};

// The job word: a generation, one more for each job, above the number of
// items left to claim. An item is claimed by taking one off the word, and
// only while the generation is the job's: a worker that comes late for one
// job never claims an item of the next.
constexpr int kLeftBits = 24;
constexpr uint64_t kLeftMask = (uint64_t{1} << kLeftBits) - 1;
constexpr int64_t kMaxItems = kLeftMask;

uint64_t generation_of(uint64_t word) { return word >> kLeftBits; }
int64_t left_of(uint64_t word) { return static_cast<int64_t>(word & kLeftMask); }

// Tells the core that this thread is spinning: the other hardware thread of
// the core runs faster, and the spin uses less power.
void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Waits until ready() for up to `spin`; false if it never was. A few pauses
// first, then yields: a thread that shares this core (the pool's caller, or
// another program) runs in the meantime.
template <class Ready>
bool spin_until(std::chrono::microseconds spin, Ready&& ready) {
  const auto until = std::chrono::steady_clock::now() + spin;
  for (int k = 0; k < 64; ++k) {
    if (ready()) return true;
    cpu_relax();
  }
  do {
    if (ready()) return true;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

// The core this thread runs on, or -1 where the system does not say.
int current_cpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// Moves this thread to another core than `cpu` that it may run on, then lets
// it run anywhere again (which leaves it where it is). Linux may wake a
// worker on the core of the thread that woke it, and then leaves the two
// there for a whole loop of calls while the other core idles: both are busy
// in turns, so neither looks movable. Measured on 2 cores: a 2^22 float64
// sum took 1.1 ms instead of 0.57 in 6 of 10 loops of 30 calls (see
// docs/benchmarks.md, "a worker kept off its caller's core").
void move_off(int cpu) {
#if defined(__linux__)
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  cpu_set_t elsewhere = allowed;
  CPU_CLR(cpu, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0) return;
  if (sched_setaffinity(0, sizeof elsewhere, &elsewhere) == 0) {
    sched_setaffinity(0, sizeof allowed, &allowed);
  }
#else
  (void)cpu;
#endif
}

// GPUVEC_NUM_THREADS where it is a positive number, else one thread per core
// this process may run on (its affinity mask, which taskset and container
// CPU sets narrow, as OpenMP's default did).
int thread_count() {
  long n = 0;
  if (const char* text = std::getenv("GPUVEC_NUM_THREADS")) {
    char* end = nullptr;
    n = std::strtol(text, &end, 10);
    if (end == text || *end != '\0') n = 0;
  }
#ifdef CPU_COUNT
  cpu_set_t cores;
  if (n < 1 && sched_getaffinity(0, sizeof cores, &cores) == 0) n = CPU_COUNT(&cores);
#endif
  if (n < 1) n = std::thread::hardware_concurrency();
  return n < 1 ? 1 : n < kMaxThreads ? static_cast<int>(n) : kMaxThreads;
}

class Pool {
 public:
  explicit Pool(int threads) : threads_(threads) {}

  int threads() const { return threads_; }

  void run(int64_t count, Item item, void* context) {
    // A second caller (another Python thread, or an item that loops again)
    // runs its items alone, as thread 0, rather than wait for the pool: the
    // workspace that thread numbers index belongs to each call. So does a job
    // of more items than the job word counts (in_pieces makes far fewer).
    if (count > kMaxItems || busy_.exchange(true, std::memory_order_acquire)) {
      for (int64_t i = 0; i < count; ++i) item(context, i, 0);
      return;
    }
    start_workers();
    const uint64_t generation = submit(count, item, context);
    while (run_one(generation, 0)) {
    }
    // Every item is claimed: wait for those that workers are running, and
    // sleep if it takes long. That leaves this core idle, where the system
    // can move a worker that another program took its core from.
    const auto finished = [&] { return done_.load() == count; };
    if (!spin_until(kCallerSpin, finished)) {
      std::unique_lock<std::mutex> lock(mutex_);
      caller_asleep_ = true;
      last_done_.wait(lock, finished);
      caller_asleep_ = false;
    }
    busy_.store(false, std::memory_order_release);
  }

 private:
  // Started on the first parallel loop, not at import: a program that runs
  // no large host op has none. If the system refuses a thread, the pool runs
  // with fewer: the calling thread takes the items nobody else does.
  void start_workers() {
    if (started_) return;
    started_ = true;
    for (int thread = 1; thread < threads_; ++thread) {
      try {
        // Detached: the pool is never destroyed, and at exit its workers are
        // asleep (no job outlives the call that submitted it).
        std::thread(&Pool::work, this, thread).detach();
      } catch (const std::system_error&) {
        break;
      }
    }
  }

  // Makes the job the current one and wakes the workers that sleep; returns
  // its generation.
  uint64_t submit(int64_t count, Item item, void* context) {
    // Read only by a thread that has claimed an item of the job, which
    // cannot end before that item has run.
    item_ = item;
    context_ = context;
    count_ = count;
    caller_cpu_ = current_cpu();
    done_.store(0, std::memory_order_relaxed);
    const uint64_t generation = generation_of(job_.load(std::memory_order_relaxed)) + 1;
    // Sequentially consistent, as in next_job: either this thread sees that
    // a worker sleeps, or that worker sees the new job.
    job_.store(generation << kLeftBits | static_cast<uint64_t>(count));
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      wake_.notify_all();
    }
    return generation;
  }

  // Claims an item of job `generation` and runs it; false when none is left.
  bool run_one(uint64_t generation, int thread) {
    uint64_t word = job_.load(std::memory_order_acquire);
    do {
      if (generation_of(word) != generation || left_of(word) == 0) return false;
    } while (!job_.compare_exchange_weak(word, word - 1, std::memory_order_acq_rel,
                                         std::memory_order_acquire));
    const int64_t count = count_;
    item_(context_, count - left_of(word), thread);  // in order: memory is read forwards
    // The worker that runs the last item wakes the caller if it sleeps.
    if (done_.fetch_add(1) + 1 == count && thread != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (caller_asleep_) last_done_.notify_one();
    }
    return true;
  }

  void work(int thread) {
    uint64_t seen = generation_of(job_.load(std::memory_order_acquire));
    for (;;) {
      seen = next_job(seen);
      // submit() writes caller_cpu_ before the job word: a worker that has
      // seen the job sees its caller's core.
      const int caller_cpu = caller_cpu_;
      if (caller_cpu >= 0 && current_cpu() == caller_cpu) move_off(caller_cpu);
      while (run_one(seen, thread)) {
      }
    }
  }

  // Waits for a job newer than `seen` and returns its generation. A worker
  // that wakes after the other threads have claimed every item of the job
  // finds nothing to run, and waits again.
  uint64_t next_job(uint64_t seen) {
    const auto newer = [&] { return generation_of(job_.load()) != seen; };
    if (!spin_until(kWorkerSpin, newer)) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);
      wake_.wait(lock, newer);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    return generation_of(job_.load(std::memory_order_acquire));
  }

  const int threads_;              // workers and the calling thread
  bool started_ = false;           // only the thread holding busy_ reads and writes it
  std::atomic<bool> busy_{false};  // a job is running
  std::atomic<uint64_t> job_{0};   // the job word (generation, items left)
  Item item_ = nullptr;            // the current job's
  void* context_ = nullptr;
  int64_t count_ = 0;
  std::atomic<int> caller_cpu_{-1};  // the core of the thread that submitted the current job
  std::atomic<int64_t> done_{0};     // items of the current job that have run
  std::mutex mutex_;
  std::condition_variable wake_;       // workers sleep here until a job comes
  std::atomic<int> sleepers_{0};       // workers asleep on wake_, or about to be
  std::condition_variable last_done_;  // the caller sleeps here until the last item has run
  bool caller_asleep_ = false;         // under mutex_
};

// Made on first use and never destroyed: detached workers live in it.
std::atomic<Pool*> the_pool{nullptr};

// fork() copies only the thread that calls it: in the child the workers are
// gone, and the pool's mutex may be held by one of them. The child makes a
// pool of its own on its next parallel loop; the parent's copy is left alone.
void forget_pool_in_child() { the_pool.store(nullptr, std::memory_order_relaxed); }

Pool& pool() {
  static const int threads = [] {
    pthread_atfork(nullptr, nullptr, forget_pool_in_child);
    return thread_count();
  }();
  Pool* p = the_pool.load(std::memory_order_acquire);
  if (p != nullptr) return *p;
  Pool* made = new Pool(threads);
  if (the_pool.compare_exchange_strong(p, made, std::memory_order_acq_rel)) return *made;
  delete made;  // another thread made one first
  return *p;
}

}  // namespace

int workers(bool parallel) { return parallel ? pool().threads() : 1; }

void run_items(int64_t count, Item item, void* context) { pool().run(count, item, context); }

}  // namespace gpuvec::host
