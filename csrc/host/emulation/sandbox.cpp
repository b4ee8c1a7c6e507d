// The signal handlers, the registry of threads and libraries they read, the
// runs and the watchdog (see sandbox.hpp).
#include "sandbox.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

#include "../../kit/error.hpp"

namespace gpuvec::host::emulation {
namespace {

// CUDA's codes for what the same failure is on a GPU.
constexpr int kCudaErrorLaunchTimeout = 702;

// An alternate signal stack, for a thread that has none this big: the
// handlers need little, but the one they hand a foreign fault to may need more.
constexpr size_t kAltStackBytes = 64 * 1024;

// How long a stopped run's threads get to come back by themselves before the
// watchdog fetches them, and how often it tries again.
constexpr std::chrono::milliseconds kGrace{50};

pid_t this_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// --- the registry of threads
// --------------------------------------------------------------------- Fixed slots of atomics, so
// that a handler finds its thread's guard without a lock or thread-local storage (neither is safe
// in a signal handler of a library that Python loaded with dlopen).

constexpr int kThreadSlots = 4096;
std::atomic<pid_t> slot_tid[kThreadSlots];
std::atomic<ThreadGuard*> slot_guard[kThreadSlots];
std::mutex registry_mutex;  // guards changes to the slots, and the watchdog's walk over them

ThreadGuard* find_guard(pid_t tid) {
  for (int i = 0; i < kThreadSlots; ++i) {
    if (slot_tid[i].load(std::memory_order_acquire) == tid)
      return slot_guard[i].load(std::memory_order_acquire);
  }
  return nullptr;
}

// --- the code of the kernel libraries ----------------------------------------------------------

constexpr int kLibrarySlots = 4096;
std::atomic<void*> library_handle[kLibrarySlots];
std::atomic<uintptr_t> library_begin[kLibrarySlots];
std::atomic<uintptr_t> library_end[kLibrarySlots];
std::mutex library_mutex;

bool in_library_code(uintptr_t pc) {
  for (int i = 0; i < kLibrarySlots; ++i) {
    const uintptr_t begin = library_begin[i].load(std::memory_order_relaxed);
    if (begin != 0 && pc >= begin && pc < library_end[i].load(std::memory_order_relaxed))
      return true;
  }
  return false;
}

// Where the interrupted thread was; 0 where the architecture is not known.
uintptr_t interrupted_pc(void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__linux__) && defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__linux__) && defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

// --- the handlers ------------------------------------------------------------------------------

struct sigaction previous_segv, previous_bus, previous_urg;

// Hands a signal that is not gpuvec's to whoever had it before, as if gpuvec
// had no handler.
void pass_on(int sig, siginfo_t* info, void* context, const struct sigaction& previous) {
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    if (sig == SIGURG) return;  // its default action is to ignore it
    // The default action. A fault comes back when the instruction runs again,
    // now to no handler; a signal that a process sent is sent again.
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(sig, &fallback, nullptr);
    if (info == nullptr || info->si_code <= 0) raise(sig);
    return;
  }
  previous.sa_handler(sig);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  ThreadGuard* guard = find_guard(this_tid());
  if (guard != nullptr && guard->recover != nullptr && info != nullptr) {
    const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
    const long stack = guard->guard_of ? guard->guard_of(guard->owner, address) : -1;
    if (stack >= 0) {
      guard->fault = static_cast<int>(Fault::kStackOverflow);
      guard->stack = stack;
      siglongjmp(*guard->recover, 1);
    }
    if (guard->shared_guard != 0 && address - guard->shared_guard < page_size()) {
      guard->fault = static_cast<int>(Fault::kSharedMemory);
      siglongjmp(*guard->recover, 1);
    }
  }
  errno = saved_errno;
  pass_on(sig, info, context, sig == SIGBUS ? previous_bus : previous_segv);
}

void on_stop(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  // The watchdog's: sent by this process to one thread (pthread_kill).
  if (info != nullptr && info->si_code == SI_TKILL && info->si_pid == getpid()) {
    ThreadGuard* guard = find_guard(this_tid());
    if (guard != nullptr) {
      const uint64_t stop = guard->stop.load(std::memory_order_acquire);
      if (guard->recover != nullptr && stop != 0 &&
          stop == guard->run.load(std::memory_order_acquire) &&
          in_library_code(interrupted_pc(context))) {
        guard->fault = static_cast<int>(Fault::kStopped);
        siglongjmp(*guard->recover, 1);
      }
      errno = saved_errno;
      return;  // elsewhere (gpuvec, the C library): the watchdog comes back
    }
  }
  errno = saved_errno;
  pass_on(sig, info, context, previous_urg);
}

void install(int sig, void (*handler)(int, siginfo_t*, void*), struct sigaction* previous) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, previous);
}

std::once_flag handlers_installed;

void install_handlers() {
  install(SIGSEGV, &on_fault, &previous_segv);
  install(SIGBUS, &on_fault, &previous_bus);
  install(SIGURG, &on_stop, &previous_urg);
}

// --- Ctrl-C ------------------------------------------------------------------------------------

std::atomic<uint64_t> interrupts{0};
volatile sig_atomic_t interrupt_pending = 0;
std::mutex interrupt_mutex;  // guards what follows
int interrupt_scopes = 0;
bool interrupt_installed = false;
struct sigaction interrupt_saved;

}  // namespace

// --- the watchdog ------------------------------------------------------------------------------

// One thread for the process, started with the first run: it fails runs past
// their deadline or interrupted, and fetches the threads of failed runs that
// do not come back.
class Watchdog {
 public:
  static Watchdog& get() {
    static Watchdog* watchdog = new Watchdog;  // never destroyed: its thread outlives main
    return *watchdog;
  }

  void add(Run* run) {
    std::lock_guard<std::mutex> lock(mutex_);
    start();
    runs_.push_back(run);
    if (run->timeout_ > 0) wake();  // a new deadline to wait for
  }

  void remove(Run* run) {
    std::lock_guard<std::mutex> lock(mutex_);
    runs_.erase(std::find(runs_.begin(), runs_.end(), run));
  }

  // Async-signal-safe.
  void wake() { sem_post(&wake_); }

 private:
  Watchdog() { sem_init(&wake_, 0, 0); }

  // In this process: a child of fork has none of its parent's threads.
  void start() {
    if (started_) return;
    started_ = true;
    static std::once_flag at_fork;
    std::call_once(at_fork,
                   [] { pthread_atfork(nullptr, nullptr, [] { get().started_ = false; }); });
    try {
      std::thread([this] { loop(); }).detach();
    } catch (const std::system_error&) {
      // No watchdog: runs still stop at their barriers, only not on time.
    }
  }

  [[noreturn]] void loop() {
    for (;;) {
      auto next = std::chrono::steady_clock::time_point::max();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        const uint64_t seen = interrupts.load();
        for (Run* run : runs_) {
          if (seen != run->interrupts_) {
            run->fail(GPUVEC_ERROR_CUDA,
                      "the launch was interrupted by SIGINT (Ctrl-C); its outputs are incomplete");
          }
          if (run->timeout_ > 0 && !run->failed() && now >= run->deadline_) {
            char text[64];
            snprintf(text, sizeof text, "%g", run->timeout_);
            run->fail(GPUVEC_ERROR_CUDA,
                      std::string("the launch timed out and was terminated: it ran longer than "
                                  "its timeout of ") +
                          text + " s (the timeout= of the launch, or GPUVEC_KERNEL_TIMEOUT)",
                      kCudaErrorLaunchTimeout, "cudaErrorLaunchTimeout");
          }
          if (run->failed()) {
            if (!run->failure_seen_) {
              run->failure_seen_ = true;
              run->failed_at_ = now;
            } else if (now - run->failed_at_ >= kGrace) {
              fetch(run->serial_);
            }
            next = std::min(next, now + kGrace);
          } else if (run->timeout_ > 0) {
            next = std::min(next, run->deadline_);
          }
        }
      }
      wait(next);
    }
  }

  // Sends SIGURG to each thread that runs user code for run `serial`.
  static void fetch(uint64_t serial) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (int i = 0; i < kThreadSlots; ++i) {
      if (slot_tid[i].load(std::memory_order_relaxed) == 0) continue;
      ThreadGuard* guard = slot_guard[i].load(std::memory_order_relaxed);
      if (guard == nullptr || guard->run.load(std::memory_order_acquire) != serial) continue;
      guard->stop.store(serial, std::memory_order_release);
      pthread_kill(guard->thread, SIGURG);
    }
  }

  void wait(std::chrono::steady_clock::time_point until) {
    if (until == std::chrono::steady_clock::time_point::max()) {
      while (sem_wait(&wake_) != 0 && errno == EINTR) {
      }
      return;
    }
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= left.zero()) return;
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    const int64_t ns =
        at.tv_nsec + std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    at.tv_sec += static_cast<time_t>(ns / 1000000000);
    at.tv_nsec = static_cast<long>(ns % 1000000000);
    while (sem_timedwait(&wake_, &at) != 0 && errno == EINTR) {
    }
  }

  std::mutex mutex_;  // guards runs_ and each run's watchdog fields
  std::vector<Run*> runs_;
  sem_t wake_;
  bool started_ = false;  // the thread runs in this process
};

namespace {

void on_interrupt(int) {
  interrupts.fetch_add(1);
  interrupt_pending = 1;
  Watchdog::get().wake();
}

// A number of seconds from GPUVEC_KERNEL_TIMEOUT: 0 where unset or empty.
double timeout_from_environment() {
  const char* text = getenv("GPUVEC_KERNEL_TIMEOUT");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const double seconds = strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds >= 0) || seconds > 1e9) {
    throw Error(GPUVEC_ERROR_INVALID_ARGUMENT,
                std::string("GPUVEC_KERNEL_TIMEOUT must be a number of seconds (0: no timeout), "
                            "got '") +
                    text + "'");
  }
  return seconds;
}

std::atomic<uint64_t> next_serial{1};

}  // namespace

// --- threads -----------------------------------------------------------------------------------

void register_thread(ThreadGuard& guard) {
  std::call_once(handlers_installed, install_handlers);
  guard.tid = this_tid();
  guard.thread = pthread_self();
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 &&
      ((current.ss_flags & SS_DISABLE) || current.ss_size < kAltStackBytes / 4)) {
    void* memory =
        mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory != MAP_FAILED) {
      stack_t ours;
      ours.ss_sp = memory;
      ours.ss_size = kAltStackBytes;
      ours.ss_flags = 0;
      if (sigaltstack(&ours, nullptr) == 0) {
        guard.altstack = memory;
      } else {
        munmap(memory, kAltStackBytes);
      }
    }
  }
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (int i = 0; i < kThreadSlots; ++i) {
    if (slot_tid[i].load(std::memory_order_relaxed) == 0) {
      slot_guard[i].store(&guard, std::memory_order_release);
      slot_tid[i].store(guard.tid, std::memory_order_release);
      return;
    }
  }
  // No slot: this thread's faults go to the previous handlers, as without gpuvec.
}

void unregister_thread(ThreadGuard& guard) {
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (int i = 0; i < kThreadSlots; ++i) {
      if (slot_guard[i].load(std::memory_order_relaxed) == &guard) {
        slot_tid[i].store(0, std::memory_order_release);
        slot_guard[i].store(nullptr, std::memory_order_release);
      }
    }
  }
  if (guard.altstack != nullptr) {
    stack_t current;
    if (sigaltstack(nullptr, &current) == 0 && current.ss_sp == guard.altstack) {
      stack_t off;
      memset(&off, 0, sizeof off);
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
    munmap(guard.altstack, kAltStackBytes);
    guard.altstack = nullptr;
  }
}

void unblock_fault_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGSEGV);
  sigaddset(&set, SIGBUS);
  sigaddset(&set, SIGURG);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

Fault guarded_call(ThreadGuard& guard, uint64_t run, void (*body)(void*), void* context) {
  sigjmp_buf recover;
  sigjmp_buf* const outer = guard.recover;
  const uint64_t outer_run = guard.run.load(std::memory_order_relaxed);
  if (sigsetjmp(recover, 0) != 0) {  // back from a handler
    guard.recover = outer;
    guard.run.store(outer_run, std::memory_order_release);
    unblock_fault_signals();
    const auto fault = static_cast<Fault>(guard.fault);
    guard.fault = 0;
    return fault;
  }
  guard.run.store(run, std::memory_order_release);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  guard.recover = &recover;
  try {
    body(context);
  } catch (...) {  // gpuvec's own failure (a stack it could not map): no fault
    guard.recover = outer;
    guard.run.store(outer_run, std::memory_order_release);
    throw;
  }
  guard.recover = outer;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  guard.run.store(outer_run, std::memory_order_release);
  return Fault::kNone;
}

// --- libraries ---------------------------------------------------------------------------------

namespace {

struct CodeRange {
  const struct link_map* map;
  uintptr_t begin = UINTPTR_MAX, end = 0;
};

int find_code(struct dl_phdr_info* info, size_t, void* data) {
  auto* range = static_cast<CodeRange*>(data);
  if (info->dlpi_addr != range->map->l_addr || info->dlpi_name == nullptr ||
      strcmp(info->dlpi_name, range->map->l_name) != 0)
    return 0;
  for (int k = 0; k < info->dlpi_phnum; ++k) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[k];
    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X)) continue;
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    range->begin = std::min(range->begin, begin);
    range->end = std::max(range->end, begin + segment.p_memsz);
  }
  return 1;
}

}  // namespace

void remember_library(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return;
  CodeRange range{map};
  dl_iterate_phdr(&find_code, &range);
  if (range.end <= range.begin) return;
  std::lock_guard<std::mutex> lock(library_mutex);
  for (int i = 0; i < kLibrarySlots; ++i) {
    if (library_handle[i].load(std::memory_order_relaxed) == nullptr) {
      library_handle[i].store(handle, std::memory_order_relaxed);
      library_end[i].store(range.end, std::memory_order_relaxed);
      library_begin[i].store(range.begin, std::memory_order_release);
      return;
    }
  }
  // No slot: the watchdog cannot fetch a thread from this library's code;
  // its launches still stop at their barriers.
}

void forget_library(void* handle) {
  std::lock_guard<std::mutex> lock(library_mutex);
  for (int i = 0; i < kLibrarySlots; ++i) {
    if (library_handle[i].load(std::memory_order_relaxed) == handle) {
      library_begin[i].store(0, std::memory_order_release);
      library_end[i].store(0, std::memory_order_relaxed);
      library_handle[i].store(nullptr, std::memory_order_relaxed);
    }
  }
}

// --- Ctrl-C ------------------------------------------------------------------------------------

InterruptScope::InterruptScope() {
  Watchdog::get();  // before the handler may wake it
  std::lock_guard<std::mutex> lock(interrupt_mutex);
  if (interrupt_scopes++ > 0) return;
  if (sigaction(SIGINT, nullptr, &interrupt_saved) != 0) return;
  const bool handled =
      (interrupt_saved.sa_flags & SA_SIGINFO)
          ? interrupt_saved.sa_sigaction != nullptr
          : interrupt_saved.sa_handler != SIG_DFL && interrupt_saved.sa_handler != SIG_IGN;
  if (!handled) return;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = &on_interrupt;
  action.sa_flags = SA_RESTART | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  interrupt_installed = sigaction(SIGINT, &action, nullptr) == 0;
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(interrupt_mutex);
  if (--interrupt_scopes > 0 || !interrupt_installed) return;
  sigaction(SIGINT, &interrupt_saved, nullptr);
  interrupt_installed = false;
  if (interrupt_pending) {
    interrupt_pending = 0;
    raise(SIGINT);  // for Python: its handler raises KeyboardInterrupt
  }
}

// --- runs --------------------------------------------------------------------------------------

Run::Run(Kind kind, double timeout)
    : kind_(kind),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)),
      timeout_(timeout > 0 ? timeout : timeout_from_environment()),
      interrupts_(interrupts.load()) {
  if (timeout_ > 0) {
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(timeout_));
  }
  Watchdog::get().add(this);
}

Run::~Run() { Watchdog::get().remove(this); }

void Run::fail(int status, const std::string& message, int cuda_code,
               const char* cuda_name) noexcept {
  if (failed()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed()) return;
    status_ = status;
    cuda_code_ = cuda_code;
    try {
      message_ = message;
      cuda_name_ = cuda_name ? cuda_name : "";
    } catch (...) {  // no memory for the message: the failure itself still counts
      message_.clear();
    }
    failed_.store(true, std::memory_order_relaxed);
  }
  Watchdog::get().wake();  // to fetch the threads that do not stop by themselves
}

void Run::check() const {
  if (failed()) throw Error(static_cast<gpuvec_status>(status_), message_, cuda_code_, cuda_name_);
}

}  // namespace gpuvec::host::emulation
