// CUDA C++ on the CPU: what a user's kernel source is compiled against on
// gpuvec's host backend.
//
// The source is compiled as C++17 by the host compiler into a shared library
// (-O2 -fPIC -shared -ffp-contract=off), and gpuvec's runtime runs it: blocks
// in parallel over the cores, one block at a time on each OS thread. A kernel
// without barriers or warp intrinsics runs its block's threads as a plain
// loop; one with them runs each thread as a fiber, and the runtime switches
// fibers at __syncthreads() and inside the warp intrinsics.
//
// This header needs nothing of gpuvec at link time: every call into the
// runtime goes through the table in the block context (gpuvec/emulation.h).
// After the user's source come the entries, one per kernel:
//     GPUVEC_EMULATION_KERNEL(gpuvec_entry_0, doublify)
//     GPUVEC_EMULATION_KERNEL(gpuvec_entry_1, (scale<float, 4>))
#ifndef GPUVEC_CUDA_EMULATION_H
#define GPUVEC_CUDA_EMULATION_H

#include <assert.h>
#include <math.h>  // libstdc++'s math.h: sqrt(float) etc. overloaded in the global namespace
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// <memory> and <stdexcept> come before __noinline__ is defined below:
// libstdc++ spells __attribute__((__noinline__)) in <memory>, which other
// standard headers include (<stdexcept> does with GCC 13), so a kernel that
// includes them after this header would not compile.
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>
#if __cpp_exceptions
#include <exception>
#include <new>
#endif

#include "gpuvec/emulation.h"

#define GPUVEC_EMULATION 1

// Symbols of the library are its own: hidden, so that two kernel libraries
// never share one. A static variable inside an inline or template function of
// default visibility would otherwise become one process-wide symbol
// (STB_GNU_UNIQUE): a recompiled cell would then use the old cell's
// __shared__ array, of the old size.
#define GPUVEC_EMU_HIDDEN __attribute__((visibility("hidden")))
// The attribute is redundant (and warned about) on static functions.
#pragma GCC diagnostic ignored "-Wattributes"
// The same for this header's own declarations (the standard headers above
// keep theirs).
#pragma GCC visibility push(hidden)

// --- CUDA's qualifiers ---------------------------------------------------------------------

#define __global__ GPUVEC_EMU_HIDDEN
#define __device__ GPUVEC_EMU_HIDDEN
#define __host__
#define __forceinline__ __inline__ __attribute__((always_inline))
// (libstdc++'s <memory> spells __attribute__((__noinline__)): included above.)
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __constant__
#define __managed__
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
// At block scope thread_local implies static: one array per OS thread, which
// runs one block at a time, so the block's fibers share it as CUDA's threads
// share their block's shared memory.
#define __shared__ thread_local

// --- Vector types and the built-in variables --------------------------------------------------

#define GPUVEC_EMU_VECTOR1(name, T) \
  struct name {                     \
    T x;                            \
  };                                \
  inline name make_##name(T x) { return name{x}; }
#define GPUVEC_EMU_VECTOR2(name, T, align)      \
  struct __attribute__((aligned(align))) name { \
    T x, y;                                     \
  };                                            \
  inline name make_##name(T x, T y) { return name{x, y}; }
#define GPUVEC_EMU_VECTOR3(name, T) \
  struct name {                     \
    T x, y, z;                      \
  };                                \
  inline name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define GPUVEC_EMU_VECTOR4(name, T, align)      \
  struct __attribute__((aligned(align))) name { \
    T x, y, z, w;                               \
  };                                            \
  inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }

// CUDA's vector types, with its alignments (vector_types.h): a 2- or 4-vector
// is aligned to its size, up to 16 bytes; a 1- or 3-vector to its component.
#define GPUVEC_EMU_VECTORS(prefix, T, align2, align4) \
  GPUVEC_EMU_VECTOR1(prefix##1, T)                    \
  GPUVEC_EMU_VECTOR2(prefix##2, T, align2)            \
  GPUVEC_EMU_VECTOR3(prefix##3, T)                    \
  GPUVEC_EMU_VECTOR4(prefix##4, T, align4)
GPUVEC_EMU_VECTORS(char, signed char, 2, 4)
GPUVEC_EMU_VECTORS(uchar, unsigned char, 2, 4)
GPUVEC_EMU_VECTORS(short, short, 4, 8)
GPUVEC_EMU_VECTORS(ushort, unsigned short, 4, 8)
GPUVEC_EMU_VECTORS(int, int, 8, 16)
GPUVEC_EMU_VECTORS(uint, unsigned int, 8, 16)
GPUVEC_EMU_VECTORS(long, long, 16, 16)
GPUVEC_EMU_VECTORS(ulong, unsigned long, 16, 16)
GPUVEC_EMU_VECTORS(longlong, long long, 16, 16)
GPUVEC_EMU_VECTORS(ulonglong, unsigned long long, 16, 16)
GPUVEC_EMU_VECTORS(float, float, 8, 16)
GPUVEC_EMU_VECTORS(double, double, 16, 16)
#undef GPUVEC_EMU_VECTORS
#undef GPUVEC_EMU_VECTOR1
#undef GPUVEC_EMU_VECTOR2
#undef GPUVEC_EMU_VECTOR3
#undef GPUVEC_EMU_VECTOR4

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

constexpr int warpSize = 32;

// The built-in variables live in thread-local storage, per OS thread. blockIdx,
// blockDim and gridDim are the same for every thread of the block; threadIdx is
// the running thread's, so every call that may switch fibers saves it before
// and restores it after (see gpuvec_emu::block_barrier).
//
// They are static: with internal linkage the compiler finds the thread-local
// block once per function (the local-dynamic TLS model) instead of calling
// __tls_get_addr at every access. So a kernel library is one translation unit.
//
// threadIdx is read and written through a pointer: the plain loop writes it
// for every thread, and GCC does not take a thread-local address out of a
// loop, while a pointer loaded once per block it does.
#define GPUVEC_EMU_THREAD_LOCAL static thread_local __attribute__((unused))
GPUVEC_EMU_THREAD_LOCAL uint3 blockIdx;
GPUVEC_EMU_THREAD_LOCAL dim3 blockDim;
GPUVEC_EMU_THREAD_LOCAL dim3 gridDim;
namespace gpuvec_emu {
GPUVEC_EMU_THREAD_LOCAL uint3 thread_idx;
GPUVEC_EMU_THREAD_LOCAL uint3* thread_idx_at = nullptr;  // &thread_idx, once a block began
}  // namespace gpuvec_emu
#define threadIdx (*gpuvec_emu::thread_idx_at)

namespace gpuvec_emu {

// The block this OS thread runs now.
GPUVEC_EMU_THREAD_LOCAL gpuvec_emulation_block* block = nullptr;
// Where a plain-loop block goes when a thread stops (a failed assert).
GPUVEC_EMU_THREAD_LOCAL jmp_buf* plain_exit = nullptr;

inline gpuvec_emulation_dim3 self() { return {threadIdx.x, threadIdx.y, threadIdx.z}; }

inline unsigned int linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// Ends the calling thread: a fiber is never resumed; a plain loop leaves its
// block. Frames in between are dropped without running destructors, as a GPU
// drops a thread that traps.
[[noreturn]] inline void stop_thread() {
  if (block->cooperative) {
    block->runtime->exit_thread(block);
    abort();  // exit_thread never returns
  }
  longjmp(*plain_exit, 1);
}

[[noreturn]] __attribute__((noinline, cold)) inline void fail(int failure, const char* message) {
  block->runtime->fail(block, failure, message, self());
  stop_thread();
}

inline void require_cooperative(const char* what) {
  if (__builtin_expect(!block->cooperative, 0))
    fail(GPUVEC_EMULATION_FAILURE_NOT_COOPERATIVE, what);
}

template <class I>
using if_index = std::enable_if_t<std::is_integral<I>::value || std::is_enum<I>::value, int>;
// U* is T* with as many qualifiers or more: what a T* converts to implicitly.
template <class U, class T>
using if_pointee =
    std::enable_if_t<std::is_same<std::remove_cv_t<U>, std::remove_cv_t<T>>::value &&
                         (std::is_const<U>::value || !std::is_const<T>::value),
                     int>;
template <class U, class T>
using if_not_pointee =
    std::enable_if_t<!(std::is_same<std::remove_cv_t<U>, std::remove_cv_t<T>>::value &&
                       (std::is_const<U>::value || !std::is_const<T>::value)),
                     int>;

// An index into a checked pointer or a checked __shared__ array, with the
// line that indexes: a default argument of __builtin_LINE() takes the line of
// the expression that converts the index (the user's line, under #line).
struct Index {
  int64_t value;
  uint32_t line;
  const char* file;
  template <class I, if_index<I> = 0>
  Index(I i, uint32_t at_line = __builtin_LINE(), const char* at_file = __builtin_FILE())
      : value(static_cast<int64_t>(i)), line(at_line), file(at_file) {}
  // An element of a checked array used as the index (p[idx[i]]).
  template <class R, std::enable_if_t<std::is_class<std::remove_reference_t<R>>::value &&
                                          std::is_convertible<R&&, int64_t>::value,
                                      int> = 0>
  Index(R&& r, uint32_t at_line = __builtin_LINE(), const char* at_file = __builtin_FILE())
      : value(static_cast<int64_t>(static_cast<R&&>(r))), line(at_line), file(at_file) {}
};

// The index of an element the source writes: in checked mode gpuvec's source
// rewrite wraps the index of each assignment's target in one, so that a
// checked pointer records a write (see gpuvec_checked):
// `p[gpuvec_emu::WriteIndex((i))] = v`, and `p[gpuvec_emu::UpdateIndex((i))]
// += v` (or ++, --) for a write that reads the element first. To an integer,
// for a raw pointer or array of the same name elsewhere in the source;
// explicit, so that an integer index is an Index only.
template <bool kReads>
struct MarkedIndex {
  Index index;
  template <class I, if_index<I> = 0>
  explicit MarkedIndex(I i, uint32_t at_line = __builtin_LINE(),
                       const char* at_file = __builtin_FILE())
      : index(i, at_line, at_file) {}
  template <class R, std::enable_if_t<std::is_class<std::remove_reference_t<R>>::value &&
                                          !std::is_same<std::decay_t<R>, MarkedIndex>::value &&
                                          std::is_convertible<R&&, int64_t>::value,
                                      int> = 0>
  explicit MarkedIndex(R&& r, uint32_t at_line = __builtin_LINE(),
                       const char* at_file = __builtin_FILE())
      : index(static_cast<R&&>(r), at_line, at_file) {}
  operator int64_t() const { return index.value; }
};
using WriteIndex = MarkedIndex<false>;
using UpdateIndex = MarkedIndex<true>;

// The kernel this OS thread runs, for messages: the entry's name expression.
GPUVEC_EMU_THREAD_LOCAL const char* kernel_name = "?";

// Fails the launch with a message formatted as printf does; the caller's
// thread stops.
[[noreturn]] __attribute__((noinline, cold, format(printf, 2, 3))) inline void fail_with(
    int failure, const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  fail(failure, message);
}

// Linear thread t of the block as threadIdx, and as "(x, y, z)".
inline gpuvec_emulation_dim3 thread_of(uint32_t t) {
  const gpuvec_emulation_dim3 d = block->block_dim;
  return {t % d.x, t / d.x % d.y, t / (d.x * d.y)};
}
struct ThreadText {
  char text[48];
};
inline ThreadText thread_text(uint32_t t) {
  ThreadText r;
  const gpuvec_emulation_dim3 i = thread_of(t);
  snprintf(r.text, sizeof r.text, "(%u, %u, %u)", i.x, i.y, i.z);
  return r;
}

}  // namespace gpuvec_emu

// --- Spinning --------------------------------------------------------------------------------
// A thread that waits for another thread to change memory reads it again and
// again. On a GPU (sm_70 and later) the other threads run meanwhile; here the
// threads of a block take turns, so one that spins must let the others run.
// The calls that can tell a spin are hooks: an atomic, a volatile read
// through a checked pointer, a repeated read of an element of a checked
// __shared__ array, a fence. After kSpinReads reads of what the thread read
// before, and at each __nanosleep, the thread yields: the runtime runs
// the block's other threads, and finds the spins that can never end. A yield
// is no barrier: checked mode's epoch stays. A volatile read through a raw
// pointer, or any volatile read in an unchecked kernel, is a plain load that
// nothing can hook: such a spin ends only with the launch's timeout=.

// Where a call is made: its default arguments take the caller's line and
// file, for the messages.
#define GPUVEC_EMU_SITE uint32_t line = __builtin_LINE(), const char *file = __builtin_FILE()

namespace gpuvec_emu {

constexpr uint32_t kSpinReads = 16;
// The last two hooked reads of this OS thread that saw something new (a spin
// may read two things in turn), and how many reads since the last yield saw
// one of them again; each fiber keeps its own across a yield (spin_wait).
GPUVEC_EMU_THREAD_LOCAL const volatile void* spin_address[2];
GPUVEC_EMU_THREAD_LOCAL uint64_t spin_value[2];
GPUVEC_EMU_THREAD_LOCAL uint32_t spin_reads = 0;
// How many hooked reads saw something new: the runtime's sign of progress.
GPUVEC_EMU_THREAD_LOCAL uint64_t spin_changes = 0;

// The calling thread spins: the block's other threads run, then it goes on.
// noinline, and every callee-saved register saved in its frame: the runtime
// hashes the thread's stack from the frame below this one up, to tell a
// thread that spins in the same state from one that gets somewhere.
__attribute__((noinline)) inline void spin_wait(uint32_t line, const char* file) {
  __builtin_unwind_init();
  spin_reads = 0;
  if (!block->cooperative) return;  // a plain loop has no other thread to let run
  const volatile void* const address[2] = {spin_address[0], spin_address[1]};
  const uint64_t value[2] = {spin_value[0], spin_value[1]};
  const uint3 me = threadIdx;
  __asm__ __volatile__("" ::: "memory");  // the others write memory meanwhile
  block->runtime->spin(block, spin_changes, kernel_name, file, line);
  __asm__ __volatile__("" ::: "memory");
  threadIdx = me;
  for (int k = 0; k < 2; ++k) {
    spin_address[k] = address[k];
    spin_value[k] = value[k];
  }
  spin_reads = 0;
}

// A hooked read of `value` (its bits) at `address`. Reads that saw nothing
// new count towards a yield, whatever else the thread does in between (a
// loop that also bumps a counter of its own still spins).
inline void spin_read(const volatile void* address, uint64_t value, uint32_t line,
                      const char* file) {
  if ((address == spin_address[0] && value == spin_value[0]) ||
      (address == spin_address[1] && value == spin_value[1])) {
    if (__builtin_expect(++spin_reads >= kSpinReads, 0)) spin_wait(line, file);
  } else {
    spin_address[1] = spin_address[0];
    spin_value[1] = spin_value[0];
    spin_address[0] = address;
    spin_value[0] = value;
    ++spin_changes;
  }
}

// A thread read an element of a checked __shared__ array again (the value is
// not known yet): out of line, which keeps checked mode's read inline.
__attribute__((noinline, cold)) inline void spin_reread(const volatile void* address,
                                                        uint32_t line, const char* file) {
  spin_read(address, 0, line, file);
}

// A fence in a loop may be a spin on memory that no hook sees: it counts as
// a read that saw nothing new.
inline void spin_fence(uint32_t line, const char* file) {
  if (__builtin_expect(++spin_reads >= kSpinReads, 0)) spin_wait(line, file);
}

template <class T>
inline uint64_t spin_bits(T value) {
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T) < sizeof bits ? sizeof(T) : sizeof bits);
  return bits;
}

// An atomic's old value, told to spin_read.
template <class T>
inline T spun(const T* p, T old, uint32_t line, const char* file) {
  spin_read(p, spin_bits(old), line, file);
  return old;
}

}  // namespace gpuvec_emu

// Sleeps on a GPU; here the thread yields (the block's other threads run).
inline void __nanosleep(unsigned int, GPUVEC_EMU_SITE) { gpuvec_emu::spin_wait(line, file); }

#if GPUVEC_EMULATION_CHECKED
// --- Checked mode: barrier, race, initialization and warp-mask checks -------------------------
//
// A kernel compiled checked (gpuvec's source rewrite defines
// GPUVEC_EMULATION_CHECKED and turns each fixed-size __shared__ array into
// gpuvec_shared<T[N]>, each extern __shared__ array into
// gpuvec_shared_dynamic<T>) records, for every element of shared memory,
// which thread last wrote it and which read it, in which epoch: the stretch
// of the block between two __syncthreads(). The emulation runs a block's
// threads in a fixed order, so a race cannot show in the results; the
// records find it anyway: a write and another thread's read or write of the
// same element in the same epoch is a hazard, whatever the order.
//
// Epoch and block numbers grow on this OS thread and never repeat, so a
// record of an earlier epoch or block never matches the present one: nothing
// is reset between blocks. A block's threads all run on one OS thread, so
// this state is the block's.
namespace gpuvec_emu {

GPUVEC_EMU_THREAD_LOCAL uint32_t epoch = 0;         // grows at each block start and barrier
GPUVEC_EMU_THREAD_LOCAL uint32_t block_serial = 0;  // grows at each block start (initcheck)
GPUVEC_EMU_THREAD_LOCAL uint16_t warp_syncs[32];    // __syncwarp meetings of each warp
// synccheck: the first thread at a barrier in this epoch and its site; the
// epoch in which a thread last returned, and which.
GPUVEC_EMU_THREAD_LOCAL uint32_t barrier_epoch = 0;
GPUVEC_EMU_THREAD_LOCAL uint32_t barrier_line = 0;
GPUVEC_EMU_THREAD_LOCAL uint32_t barrier_thread = 0;
GPUVEC_EMU_THREAD_LOCAL const char* barrier_file = "";
GPUVEC_EMU_THREAD_LOCAL uint32_t exit_epoch = 0;
GPUVEC_EMU_THREAD_LOCAL uint32_t exit_thread = 0;

// The lanes of each warp waiting at a warp intrinsic, the lanes their masks
// name (all of them, and each waiting lane's: tiles of a warp meet apart,
// each with a mask of its own), and where the last of them called: a lane
// that returns while named by a waiting lane can never take part.
GPUVEC_EMU_THREAD_LOCAL uint32_t warp_waiting[32];
GPUVEC_EMU_THREAD_LOCAL uint32_t warp_named[32];
GPUVEC_EMU_THREAD_LOCAL uint32_t lane_named[32 * 32];
GPUVEC_EMU_THREAD_LOCAL uint32_t warp_line[32];
GPUVEC_EMU_THREAD_LOCAL const char* warp_what[32];
GPUVEC_EMU_THREAD_LOCAL const char* warp_file[32];

// What checked mode knows of one element of shared memory.
struct Shadow {
  uint32_t init;     // block_serial of the block that last wrote it
  uint32_t w_epoch;  // the last write: its epoch, line, thread, and its warp's __syncwarp count
  uint32_t w_line;
  uint32_t r_epoch;  // up to two threads that read it in r_epoch
  uint32_t r_line[2];
  uint16_t w_thread;
  uint16_t w_sync;
  uint16_t r_thread[2];
  uint16_t r_sync[2];
};
constexpr uint16_t kNoThread = 0xffff;
constexpr uint16_t kAtomicWrite = 0x8000;  // or'ed into w_thread
constexpr uint16_t kThreadBits = 0x7fff;

// Where an access was: the array, the element, the line.
struct Site {
  const char* name;
  int64_t index;
  uint32_t line;
  const char* file;
};

// The first uninitialized read of the block, reported when its epoch ends
// unless a race on the same element explains it first (a read before another
// thread's write, with no barrier between, is a race, not a missing write).
struct PendingRead {
  uint32_t serial;  // == block_serial: waiting to be reported
  uint32_t thread;
  Site site;
};
GPUVEC_EMU_THREAD_LOCAL PendingRead uninitialized;

__attribute__((noinline, cold)) inline void note_uninitialized(const Site& site, uint32_t me) {
  if (uninitialized.serial == block_serial) return;  // the first one is told
  uninitialized = {block_serial, me, site};
}

// Reports the pending uninitialized read, if any; the caller runs on (the
// launch stops at the next barrier or at the block's end).
__attribute__((noinline, cold)) inline void report_uninitialized() {
  if (uninitialized.serial != block_serial) return;
  uninitialized.serial = 0;
  const Site& s = uninitialized.site;
  char message[1024];
  snprintf(message, sizeof message,
           "uninitialized shared memory read in kernel '%s': thread %s read %s[%lld] at %s:%u, "
           "which no thread of its block had written",
           kernel_name, thread_text(uninitialized.thread).text, s.name,
           static_cast<long long>(s.index), s.file, s.line);
  block->runtime->fail(block, GPUVEC_EMULATION_FAILURE_UNINITIALIZED, message,
                       thread_of(uninitialized.thread));
}
inline void check_uninitialized() {
  if (__builtin_expect(uninitialized.serial == block_serial, 0)) report_uninitialized();
}

[[noreturn]] __attribute__((noinline, cold)) inline void race(const char* hazard, const Site& site,
                                                              uint32_t me, const char* my_access,
                                                              uint32_t other, uint32_t other_line,
                                                              const char* other_access) {
  fail_with(GPUVEC_EMULATION_FAILURE_RACE,
            "shared memory race (%s hazard) in kernel '%s' on %s[%lld]: thread %s %s it at "
            "%s:%u, and thread %s %s it at %s:%u, with no __syncthreads() between them",
            hazard, kernel_name, site.name, static_cast<long long>(site.index),
            thread_text(me).text, my_access, site.file, site.line, thread_text(other).text,
            other_access, site.file, other_line);
}

// Whether thread `other`'s access, made when its warp had met `other_sync`
// times at __syncwarp, is ordered before the calling thread's: same warp,
// and a __syncwarp since.
inline bool warp_ordered(uint32_t other, uint16_t other_sync, uint32_t me) {
  return other / 32 == me / 32 && other_sync != warp_syncs[me / 32];
}

inline void on_read(Shadow& s, const Site& site) {
  const uint32_t me = linear_thread(), e = epoch;
  if (__builtin_expect(s.init != block_serial, 0)) note_uninitialized(site, me);
  if (s.w_epoch == e) {
    const uint32_t writer = s.w_thread & kThreadBits;
    if (__builtin_expect(writer != me && !warp_ordered(writer, s.w_sync, me), 0))
      race("read-after-write", site, me, "reads", writer, s.w_line,
           s.w_thread & kAtomicWrite ? "atomically wrote" : "wrote");
  }
  const uint16_t sync = warp_syncs[me / 32];
  if (s.r_epoch != e) {
    s.r_epoch = e;
    s.r_thread[0] = static_cast<uint16_t>(me);
    s.r_line[0] = site.line;
    s.r_sync[0] = sync;
    s.r_thread[1] = kNoThread;
  } else if (s.r_thread[0] == me) {
    s.r_line[0] = site.line;
    s.r_sync[0] = sync;
    spin_reread(&s, site.line, site.file);  // read again, in the same epoch: a spin?
  } else if (s.r_thread[1] == kNoThread || s.r_thread[1] == me) {
    s.r_thread[1] = static_cast<uint16_t>(me);
    s.r_line[1] = site.line;
    s.r_sync[1] = sync;
  }
}

// A write; an atomic one (atomic = true) reads the element too, and races
// only with plain accesses.
inline void on_write(Shadow& s, const Site& site, bool atomic) {
  const uint32_t me = linear_thread(), e = epoch;
  if (atomic && __builtin_expect(s.init != block_serial, 0)) note_uninitialized(site, me);
  if (s.w_epoch == e) {
    const uint32_t writer = s.w_thread & kThreadBits;
    const bool both_atomic = atomic && (s.w_thread & kAtomicWrite);
    if (__builtin_expect(writer != me && !both_atomic && !warp_ordered(writer, s.w_sync, me), 0))
      race("write-after-write", site, me, atomic ? "atomically writes" : "writes", writer,
           s.w_line, s.w_thread & kAtomicWrite ? "atomically wrote" : "wrote");
  }
  if (s.r_epoch == e) {
    for (int k = 0; k < 2; ++k) {
      const uint32_t reader = s.r_thread[k];
      if (__builtin_expect(
              reader != kNoThread && reader != me && !warp_ordered(reader, s.r_sync[k], me), 0))
        race("write-after-read", site, me, atomic ? "atomically writes" : "writes", reader,
             s.r_line[k], "read");
    }
  }
  s.init = block_serial;
  // A thread's plain write stays the record over its own later atomic in the
  // epoch: other threads' atomics then race with it.
  if (atomic && s.w_epoch == e && !(s.w_thread & kAtomicWrite) && s.w_thread == me) return;
  s.w_epoch = e;
  s.w_line = site.line;
  s.w_thread = static_cast<uint16_t>(me | (atomic ? kAtomicWrite : 0));
  s.w_sync = warp_syncs[me / 32];
}

// synccheck, at a thread's arrival at a barrier.
[[noreturn]] __attribute__((noinline, cold)) inline void divergent_barrier(uint32_t me,
                                                                           uint32_t line,
                                                                           const char* file) {
  if (exit_epoch == epoch) {
    fail_with(GPUVEC_EMULATION_FAILURE_BARRIER,
              "barrier divergence in kernel '%s': thread %s waits at __syncthreads() at %s:%u, "
              "but thread %s has returned from the kernel without reaching it; every thread "
              "of a block must reach the same __syncthreads()",
              kernel_name, thread_text(me).text, file, line, thread_text(exit_thread).text);
  }
  fail_with(GPUVEC_EMULATION_FAILURE_BARRIER,
            "barrier divergence in kernel '%s': thread %s is at __syncthreads() at %s:%u, "
            "while thread %s waits at __syncthreads() at %s:%u; every thread of a block must "
            "reach the same __syncthreads()",
            kernel_name, thread_text(me).text, file, line, thread_text(barrier_thread).text,
            barrier_file, barrier_line);
}

inline void arrive_at_barrier(uint32_t line, const char* file) {
  const uint32_t me = linear_thread(), e = epoch;
  if (__builtin_expect(exit_epoch == e, 0)) divergent_barrier(me, line, file);
  if (barrier_epoch != e) {
    barrier_epoch = e;
    barrier_line = line;
    barrier_thread = me;
    barrier_file = file;
  } else if (__builtin_expect(
                 barrier_line != line || (barrier_file != file && strcmp(barrier_file, file)),
                 0)) {
    divergent_barrier(me, line, file);
  }
}

// synccheck, when a thread returns from the kernel.
inline void thread_returned() {
  const uint32_t me = linear_thread(), e = epoch;
  if (__builtin_expect(barrier_epoch == e, 0)) {
    fail_with(GPUVEC_EMULATION_FAILURE_BARRIER,
              "barrier divergence in kernel '%s': thread %s returned from the kernel while "
              "thread %s waits at __syncthreads() at %s:%u; every thread of a block must "
              "reach the same __syncthreads()",
              kernel_name, thread_text(me).text, thread_text(barrier_thread).text, barrier_file,
              barrier_line);
  }
  exit_epoch = e;
  exit_thread = me;
  const uint32_t w = me / 32;
  if (__builtin_expect((warp_waiting[w] != 0) & (warp_named[w] >> (me % 32)), 0)) {
    uint32_t waiting_for_me = 0;
    for (uint32_t k = 0; k < 32; ++k)
      if ((warp_waiting[w] >> k & 1) && (lane_named[w * 32 + k] >> (me % 32) & 1))
        waiting_for_me |= 1u << k;
    fail_with(GPUVEC_EMULATION_FAILURE_WARP_MASK,
              "invalid warp mask in kernel '%s': thread %s (lane %u of warp %u) returned from "
              "the kernel while lanes 0x%08x of its warp wait for it at %s at %s:%u",
              kernel_name, thread_text(me).text, me % 32, w, waiting_for_me, warp_what[w],
              warp_file[w], warp_line[w]);
  }
}

// The mask of a warp intrinsic names the caller and no lane that has returned.
[[noreturn]] __attribute__((noinline, cold)) inline void bad_mask(const char* what, uint32_t mask,
                                                                  uint32_t lanes, bool self,
                                                                  uint32_t line,
                                                                  const char* file) {
  const uint32_t me = linear_thread();
  if (self) {
    fail_with(GPUVEC_EMULATION_FAILURE_WARP_MASK,
              "invalid warp mask in kernel '%s': thread %s (lane %u of warp %u) called %s at "
              "%s:%u with mask 0x%08x, which does not include its own lane",
              kernel_name, thread_text(me).text, me % 32, me / 32, what, file, line, mask);
  }
  fail_with(GPUVEC_EMULATION_FAILURE_WARP_MASK,
            "invalid warp mask in kernel '%s': thread %s (lane %u of warp %u) called %s at "
            "%s:%u with mask 0x%08x, which names lanes that have returned from the kernel "
            "(0x%08x): they can never take part",
            kernel_name, thread_text(me).text, me % 32, me / 32, what, file, line, mask, lanes);
}

inline void check_mask(const char* what, uint32_t mask, uint32_t line, const char* file) {
  const uint32_t me = linear_thread(), lane = me % 32, w = me / 32;
  if (__builtin_expect(!(mask >> lane & 1), 0)) bad_mask(what, mask, 0, true, line, file);
  const gpuvec_emulation_dim3 d = block->block_dim;
  const uint32_t in_warp = d.x * d.y * d.z - w * 32;
  const uint32_t exist = in_warp >= 32 ? 0xffffffffu : (1u << in_warp) - 1;
  const uint32_t gone = mask & exist & ~block->runtime->active_mask(block);
  if (__builtin_expect(gone != 0, 0)) bad_mask(what, mask, gone, false, line, file);
}

}  // namespace gpuvec_emu
#endif  // GPUVEC_EMULATION_CHECKED

// Dynamic shared memory (extern __shared__ T name[], rewritten by gpuvec into
// a call of this): the block's config.shared_mem bytes, 16-byte aligned,
// followed by a page that faults: an access past them (any access, with
// shared_mem=0) fails the launch with cudaErrorIllegalAddress.
inline void* gpuvec_dynamic_shared() { return gpuvec_emu::block->dynamic_shared; }

// --- Math ------------------------------------------------------------------------------------
// <math.h> has the float and double functions (sqrtf, expf, sqrt(float), ...).
// The GPU's fast intrinsics are computed exactly here; the _rn arithmetic is
// the plain operator (-ffp-contract=off keeps a*b+c two roundings, as NVRTC's
// --fmad=false does).

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float fdividef(float x, float y) { return x / y; }
inline float __fdividef(float x, float y) { return x / y; }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }  // NaN: 0
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dsub_rn(double x, double y) { return x - y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __ddiv_rn(double x, double y) { return x / y; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return sqrt(x); }
inline double __fma_rn(double x, double y, double z) { return fma(x, y, z); }

// Conversions: rint rounds to nearest even in the default rounding mode.
inline int __float2int_rn(float x) { return static_cast<int>(rintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return static_cast<unsigned int>(rintf(x)); }
inline unsigned int __float2uint_rz(float x) { return static_cast<unsigned int>(x); }
inline long long __float2ll_rn(float x) { return static_cast<long long>(rintf(x)); }
inline long long __float2ll_rz(float x) { return static_cast<long long>(x); }
inline int __double2int_rn(double x) { return static_cast<int>(rint(x)); }
inline int __double2int_rz(double x) { return static_cast<int>(x); }
inline long long __double2ll_rn(double x) { return static_cast<long long>(rint(x)); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline double __int2double_rn(int x) { return static_cast<double>(x); }
inline double __ll2double_rn(long long x) { return static_cast<double>(x); }

namespace gpuvec_emu {
template <class To, class From>
inline To bits(From x) {
  static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
  To to;
  memcpy(&to, &x, sizeof(To));
  return to;
}
}  // namespace gpuvec_emu
inline int __float_as_int(float x) { return gpuvec_emu::bits<int>(x); }
inline unsigned int __float_as_uint(float x) { return gpuvec_emu::bits<unsigned int>(x); }
inline float __int_as_float(int x) { return gpuvec_emu::bits<float>(x); }
inline float __uint_as_float(unsigned int x) { return gpuvec_emu::bits<float>(x); }
inline long long __double_as_longlong(double x) { return gpuvec_emu::bits<long long>(x); }
inline double __longlong_as_double(long long x) { return gpuvec_emu::bits<double>(x); }

// min and max as CUDA overloads them (std::min would take both types alike).
#define GPUVEC_EMU_MINMAX(R, A, B)                                                 \
  inline R min(A a, B b) { return static_cast<R>(b) < static_cast<R>(a) ? b : a; } \
  inline R max(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? b : a; }
GPUVEC_EMU_MINMAX(int, int, int)
GPUVEC_EMU_MINMAX(unsigned int, unsigned int, unsigned int)
GPUVEC_EMU_MINMAX(unsigned int, int, unsigned int)
GPUVEC_EMU_MINMAX(unsigned int, unsigned int, int)
GPUVEC_EMU_MINMAX(long, long, long)
GPUVEC_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
GPUVEC_EMU_MINMAX(unsigned long, long, unsigned long)
GPUVEC_EMU_MINMAX(unsigned long, unsigned long, long)
GPUVEC_EMU_MINMAX(long long, long long, long long)
GPUVEC_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
GPUVEC_EMU_MINMAX(unsigned long long, long long, unsigned long long)
GPUVEC_EMU_MINMAX(unsigned long long, unsigned long long, long long)
#undef GPUVEC_EMU_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(double a, float b) { return fmax(a, b); }

// Bits.
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) |
         __brev(static_cast<unsigned int>(x >> 32));
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= ((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
  return r;
}
inline int __mulhi(int x, int y) {
  return static_cast<int>((static_cast<long long>(x) * y) >> 32);
}
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) {
  return static_cast<long long>((static_cast<__int128>(x) * y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
inline int __mul24(int x, int y) {  // the low 24 bits of each, sign-extended; the low 32 of it
  const long long x24 = static_cast<int>(static_cast<unsigned int>(x) << 8) / 256;
  const long long y24 = static_cast<int>(static_cast<unsigned int>(y) << 8) / 256;
  return static_cast<int>(static_cast<unsigned int>(x24 * y24));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) {
  return (x & 0xffffffu) * (y & 0xffffffu);
}

// Loads through the read-only cache are plain loads.
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

// Nanoseconds of a monotonic clock.
inline long long clock64() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// --- Atomics ---------------------------------------------------------------------------------
// Blocks run on different OS threads, so these are real atomics. CUDA's
// atomics are relaxed; __threadfence orders.

namespace gpuvec_emu {
// Atomically replaces *p by update(*p); returns the old value.
template <class T, class Update>
inline T atomic_update(T* p, Update update) {
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  T desired = update(old);
  while (!__atomic_compare_exchange(p, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = update(old);
  return old;
}
}  // namespace gpuvec_emu

// Each tells its old value to spin_read (an atomic in a loop may be a spin).
#define GPUVEC_EMU_SPUN(p, old) gpuvec_emu::spun(p, old, line, file)
#define GPUVEC_EMU_ATOMIC_INT(T)                                                            \
  inline T atomicAdd(T* p, T v, GPUVEC_EMU_SITE) {                                          \
    return GPUVEC_EMU_SPUN(p, __atomic_fetch_add(p, v, __ATOMIC_RELAXED));                  \
  }                                                                                         \
  inline T atomicSub(T* p, T v, GPUVEC_EMU_SITE) {                                          \
    return GPUVEC_EMU_SPUN(p, __atomic_fetch_sub(p, v, __ATOMIC_RELAXED));                  \
  }                                                                                         \
  inline T atomicAnd(T* p, T v, GPUVEC_EMU_SITE) {                                          \
    return GPUVEC_EMU_SPUN(p, __atomic_fetch_and(p, v, __ATOMIC_RELAXED));                  \
  }                                                                                         \
  inline T atomicOr(T* p, T v, GPUVEC_EMU_SITE) {                                           \
    return GPUVEC_EMU_SPUN(p, __atomic_fetch_or(p, v, __ATOMIC_RELAXED));                   \
  }                                                                                         \
  inline T atomicXor(T* p, T v, GPUVEC_EMU_SITE) {                                          \
    return GPUVEC_EMU_SPUN(p, __atomic_fetch_xor(p, v, __ATOMIC_RELAXED));                  \
  }                                                                                         \
  inline T atomicExch(T* p, T v, GPUVEC_EMU_SITE) {                                         \
    return GPUVEC_EMU_SPUN(p, __atomic_exchange_n(p, v, __ATOMIC_RELAXED));                 \
  }                                                                                         \
  inline T atomicMin(T* p, T v, GPUVEC_EMU_SITE) {                                          \
    return GPUVEC_EMU_SPUN(                                                                 \
        p, gpuvec_emu::atomic_update(p, [v](T old) { return v < old ? v : old; }));         \
  }                                                                                         \
  inline T atomicMax(T* p, T v, GPUVEC_EMU_SITE) {                                          \
    return GPUVEC_EMU_SPUN(                                                                 \
        p, gpuvec_emu::atomic_update(p, [v](T old) { return old < v ? v : old; }));         \
  }                                                                                         \
  inline T atomicCAS(T* p, T compare, T v, GPUVEC_EMU_SITE) {                               \
    __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return GPUVEC_EMU_SPUN(p, compare);                                                     \
  }
GPUVEC_EMU_ATOMIC_INT(int)
GPUVEC_EMU_ATOMIC_INT(unsigned int)
GPUVEC_EMU_ATOMIC_INT(long long)
GPUVEC_EMU_ATOMIC_INT(unsigned long long)
#undef GPUVEC_EMU_ATOMIC_INT

#define GPUVEC_EMU_ATOMIC_FLOAT(T)                                                               \
  inline T atomicAdd(T* p, T v, GPUVEC_EMU_SITE) {                                               \
    return GPUVEC_EMU_SPUN(p, gpuvec_emu::atomic_update(p, [v](T old) { return old + v; }));     \
  }                                                                                              \
  inline T atomicSub(T* p, T v, GPUVEC_EMU_SITE) {                                               \
    return GPUVEC_EMU_SPUN(p, gpuvec_emu::atomic_update(p, [v](T old) { return old - v; }));     \
  }                                                                                              \
  inline T atomicMin(T* p, T v, GPUVEC_EMU_SITE) {                                               \
    return GPUVEC_EMU_SPUN(p, gpuvec_emu::atomic_update(p, [v](T old) { return min(old, v); })); \
  }                                                                                              \
  inline T atomicMax(T* p, T v, GPUVEC_EMU_SITE) {                                               \
    return GPUVEC_EMU_SPUN(p, gpuvec_emu::atomic_update(p, [v](T old) { return max(old, v); })); \
  }                                                                                              \
  inline T atomicExch(T* p, T v, GPUVEC_EMU_SITE) {                                              \
    T old;                                                                                       \
    __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);                                            \
    return GPUVEC_EMU_SPUN(p, old);                                                              \
  }                                                                                              \
  inline T atomicCAS(T* p, T compare, T v,                                                       \
                     GPUVEC_EMU_SITE) { /* compares the bits, as the GPU does */                 \
    __atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);       \
    return GPUVEC_EMU_SPUN(p, compare);                                                          \
  }
GPUVEC_EMU_ATOMIC_FLOAT(float)
GPUVEC_EMU_ATOMIC_FLOAT(double)
#undef GPUVEC_EMU_ATOMIC_FLOAT

// CUDA's wrapping increment and decrement.
inline unsigned int atomicInc(unsigned int* p, unsigned int limit, GPUVEC_EMU_SITE) {
  return GPUVEC_EMU_SPUN(p, gpuvec_emu::atomic_update(p, [limit](unsigned int old) {
                           return old >= limit ? 0 : old + 1;
                         }));
}
inline unsigned int atomicDec(unsigned int* p, unsigned int limit, GPUVEC_EMU_SITE) {
  return GPUVEC_EMU_SPUN(p, gpuvec_emu::atomic_update(p, [limit](unsigned int old) {
                           return old == 0 || old > limit ? limit : old - 1;
                         }));
}
#undef GPUVEC_EMU_SPUN

// A fence in a loop may be a spin (gpuvec_emu::spin_fence).
inline void __threadfence(GPUVEC_EMU_SITE) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  gpuvec_emu::spin_fence(line, file);
}
inline void __threadfence_system(GPUVEC_EMU_SITE) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  gpuvec_emu::spin_fence(line, file);
}
// A block's threads share one OS thread: keeping the compiler's order is enough.
inline void __threadfence_block(GPUVEC_EMU_SITE) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  gpuvec_emu::spin_fence(line, file);
}

// --- Barriers and warp intrinsics -------------------------------------------------------------

namespace gpuvec_emu {

// The calls that may switch fibers. threadIdx is per OS thread, so each
// fiber keeps its own copy on its stack across the switch.
//
// Other fibers run during the call and write shared memory. A __shared__
// array is a static whose address never leaves the kernel, so the compiler
// could think the runtime's call cannot touch it and keep its elements in
// registers across it: the "memory" clobber forbids that.
inline void memory_barrier() { __asm__ __volatile__("" ::: "memory"); }

inline unsigned int block_barrier(int predicate, uint32_t line, const char* file) {
  require_cooperative("__syncthreads");
#if GPUVEC_EMULATION_CHECKED
  arrive_at_barrier(line, file);
  const uint32_t e = epoch;  // every thread arrives in the same epoch...
#else
  (void)line;
  (void)file;
#endif
  const uint3 me = threadIdx;
  memory_barrier();
  const unsigned int count = block->runtime->sync_threads(block, predicate);
  memory_barrier();
  threadIdx = me;
#if GPUVEC_EMULATION_CHECKED
  epoch = e + 1;          // ...and leaves into the next one
  check_uninitialized();  // its epoch ended: no race can explain it any more
#endif
  return count;
}

inline unsigned int lane() { return linear_thread() % warpSize; }

inline uint64_t warp_exchange(int op, unsigned int mask, uint64_t value, unsigned int src,
                              const char* what, uint32_t line, const char* file) {
  require_cooperative("a warp intrinsic (__syncwarp, __shfl*_sync, __ballot_sync, ...)");
#if GPUVEC_EMULATION_CHECKED
  check_mask(what, mask, line, file);
  const uint32_t w = linear_thread() / 32, bit = 1u << linear_thread() % 32;
  const uint16_t syncs = warp_syncs[w];
  warp_waiting[w] |= bit;
  warp_named[w] |= mask;
  lane_named[linear_thread()] = mask;
  warp_line[w] = line;
  warp_what[w] = what;
  warp_file[w] = file;
#else
  (void)what;
  (void)line;
  (void)file;
#endif
  const uint3 me = threadIdx;
  memory_barrier();
  const uint64_t result = block->runtime->warp_exchange(block, op, mask, value, src);
  memory_barrier();
  threadIdx = me;
#if GPUVEC_EMULATION_CHECKED
  // __syncwarp orders the shared memory accesses of the lanes that meet.
  if (op == GPUVEC_EMULATION_WARP_SYNC) warp_syncs[w] = static_cast<uint16_t>(syncs + 1);
  // The meeting released: every lane the mask names has met (or returned).
  warp_waiting[w] &= ~(mask | bit);
  // What the lanes still waiting (another tile's meeting) name.
  uint32_t named = 0;
  for (uint32_t m = warp_waiting[w]; m != 0; m &= m - 1)
    named |= lane_named[w * 32 + static_cast<uint32_t>(__builtin_ctz(m))];
  warp_named[w] = named;
#endif
  return result;
}

// Lane `src` of the meeting's value of var (the caller's own if src is not in it).
template <class T>
inline T shuffle(unsigned int mask, T var, unsigned int src, const char* what, uint32_t line,
                 const char* file) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "__shfl*_sync takes a value of at most 8 bytes");
  uint64_t word = 0;
  memcpy(&word, &var, sizeof(T));
  word = warp_exchange(GPUVEC_EMULATION_WARP_READ, mask, word, src, what, line, file);
  memcpy(&var, &word, sizeof(T));
  return var;
}

}  // namespace gpuvec_emu

inline void __syncthreads(GPUVEC_EMU_SITE) { gpuvec_emu::block_barrier(0, line, file); }
inline int __syncthreads_count(int predicate, GPUVEC_EMU_SITE) {
  return static_cast<int>(gpuvec_emu::block_barrier(predicate != 0, line, file));
}
inline int __syncthreads_and(int predicate, GPUVEC_EMU_SITE) {
  return gpuvec_emu::block_barrier(predicate == 0, line, file) == 0;
}
inline int __syncthreads_or(int predicate, GPUVEC_EMU_SITE) {
  return gpuvec_emu::block_barrier(predicate != 0, line, file) != 0;
}

inline void __syncwarp(unsigned int mask = 0xffffffffu, GPUVEC_EMU_SITE) {
  gpuvec_emu::warp_exchange(GPUVEC_EMULATION_WARP_SYNC, mask, 0, 0, "__syncwarp", line, file);
}
inline unsigned int __ballot_sync(unsigned int mask, int predicate, GPUVEC_EMU_SITE) {
  return static_cast<unsigned int>(gpuvec_emu::warp_exchange(
      GPUVEC_EMULATION_WARP_BALLOT, mask, predicate != 0, 0, "__ballot_sync", line, file));
}
inline int __any_sync(unsigned int mask, int predicate, GPUVEC_EMU_SITE) {
  return __ballot_sync(mask, predicate, line, file) != 0;
}
inline int __all_sync(unsigned int mask, int predicate, GPUVEC_EMU_SITE) {
  return __ballot_sync(mask, !predicate, line, file) == 0;
}
inline unsigned int __activemask() {
  gpuvec_emu::require_cooperative("__activemask");
  return gpuvec_emu::block->runtime->active_mask(gpuvec_emu::block);
}

// The shuffles, with CUDA's segments of `width` lanes (a power of two).
template <class T>
inline T __shfl_sync(unsigned int mask, T var, int src_lane, int width = warpSize,
                     GPUVEC_EMU_SITE) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  return gpuvec_emu::shuffle(mask, var,
                             (lane & ~(w - 1)) + (static_cast<unsigned int>(src_lane) & (w - 1)),
                             "__shfl_sync", line, file);
}
template <class T>
inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize,
                        GPUVEC_EMU_SITE) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  return gpuvec_emu::shuffle(mask, var, (lane & (w - 1)) >= delta ? lane - delta : lane,
                             "__shfl_up_sync", line, file);
}
template <class T>
inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize,
                          GPUVEC_EMU_SITE) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  return gpuvec_emu::shuffle(mask, var, (lane & (w - 1)) + delta < w ? lane + delta : lane,
                             "__shfl_down_sync", line, file);
}
template <class T>
inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = warpSize,
                         GPUVEC_EMU_SITE) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  const unsigned int src = lane ^ static_cast<unsigned int>(lane_mask);
  // Lanes of earlier segments may be read, later ones not.
  return gpuvec_emu::shuffle(mask, var, src < (lane & ~(w - 1)) + w ? src : lane,
                             "__shfl_xor_sync", line, file);
}

// --- Failures --------------------------------------------------------------------------------

inline void __trap() { gpuvec_emu::fail(GPUVEC_EMULATION_FAILURE_TRAP, "__trap() was called"); }

#if defined(__GLIBC__)
namespace gpuvec_emu {
// The function an assert failed in, as the user wrote it. glibc's assert
// gives __PRETTY_FUNCTION__ of the source gpuvec compiled, in which checked
// mode's rewrite made each pointer a checked one: `void block_sums(
// gpuvec_checked<const float>, float*, int)` is the user's `void
// block_sums(const float*, float*, int)`. (__func__ would name the function
// alone, and glibc's assert, which a kernel may include again after this
// header, decides what it passes.)
struct SignatureText {
  char text[384];
};
inline SignatureText user_signature(const char* pretty) {
  static const char kChecked[] = "gpuvec_checked<";
  constexpr size_t kLength = sizeof kChecked - 1;
  SignatureText r;
  size_t n = 0;
  int depth = 0, opened = 0, open_at[16];  // the depth of each checked type open
  for (const char* c = pretty ? pretty : "?"; *c != '\0' && n + 2 < sizeof r.text; ++c) {
    if (opened < 16 && strncmp(c, kChecked, kLength) == 0) {
      open_at[opened++] = depth++;
      c += kLength - 1;
      continue;
    }
    if (*c == '<') ++depth;
    if (*c == '>' && --depth >= 0 && opened > 0 && open_at[opened - 1] == depth) {
      --opened;
      r.text[n++] = '*';  // its closing bracket: T*
      continue;
    }
    r.text[n++] = *c;
  }
  r.text[n] = '\0';
  return r;
}
}  // namespace gpuvec_emu

// assert() fails the launch instead of aborting the process: glibc's assert
// calls __assert_fail, and this library's own (hidden) definition wins.
extern "C" GPUVEC_EMU_HIDDEN inline void __assert_fail(const char* assertion, const char* file,
                                                       unsigned int line,
                                                       const char* function) noexcept {
  char message[1024];
  snprintf(message, sizeof message, "%s:%u: %s: Assertion `%s' failed.", file, line,
           gpuvec_emu::user_signature(function).text, assertion);
  gpuvec_emu::fail(GPUVEC_EMULATION_FAILURE_ASSERT, message);
}
#endif

// --- Checked pointers ------------------------------------------------------------------------

namespace gpuvec_emu {

// What an access out of bounds reads and writes instead: zeros, per OS thread.
GPUVEC_EMU_THREAD_LOCAL unsigned char dummy[256] __attribute__((aligned(64)));

template <class T>
__attribute__((noinline, cold)) std::add_lvalue_reference_t<T> index_fault(
    const char* name, int64_t index, int64_t length, uint32_t line, const char* file) {
  static_assert(sizeof(T) <= sizeof dummy, "checked pointers take elements of at most 256 bytes");
  if (line == 0) {  // no line known: *p, p->
    block->runtime->index_fault(block, name, index, length, self());
  } else {
    fail_with(GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS,
              "index %lld is out of bounds for parameter '%s' of length %lld, at %s:%u in "
              "kernel '%s'",
              static_cast<long long>(index), name ? name : "?", static_cast<long long>(length),
              file, line, kernel_name);
  }
  memset(dummy, 0, sizeof dummy);
  return *reinterpret_cast<T*>(dummy);
}

// The same where the line is known (p[i]): the thread stops. That it never
// returns lets the compiler keep blockIdx and the like in registers across
// the checks of a plain loop's threads.
[[noreturn]] __attribute__((noinline, cold)) inline void index_fault_at(
    const char* name, int64_t index, int64_t length, uint32_t line, const char* file) {
  fail_with(GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS,
            "index %lld is out of bounds for parameter '%s' of length %lld, at %s:%u in "
            "kernel '%s'",
            static_cast<long long>(index), name ? name : "?", static_cast<long long>(length), file,
            line, kernel_name);
}

}  // namespace gpuvec_emu

template <class T>
class gpuvec_checked;

#if GPUVEC_EMULATION_CHECKED
// Checked mode's records of global memory, to find races within a block.
//
// An argument's array may be far larger than what one block touches, and
// blocks run in parallel on several OS threads; races between blocks are
// not looked for. So each OS thread keeps one table of records for the
// block it runs, direct-mapped like a cache: the record of the element of
// type T at address p is at slot p / sizeof(T) (mod kGlobalSlots), tagged
// with p and the epoch (the stretch between two barriers, as for shared
// memory). A record of another address or of another epoch is stale (epoch
// numbers never repeat on an OS thread), so nothing is reset between blocks
// or barriers. A record another element's evicted is lost, which may miss a
// race, never report a false one; a block that touches at most kGlobalSlots
// consecutive elements of an array loses none. Only the elements of arrays
// that a parameter to non-const data points to are recorded (through that
// parameter or a pointer derived from it): reads of a `const T*` parameter,
// which no thread can write, cost nothing. Only the blocks that
// block_is_recorded() names record (see there).
namespace gpuvec_emu {

struct GlobalShadow {
  const void* address;  // the element's
  uint32_t epoch;
  uint32_t w_line;     // the epoch's last write: line, thread, its warp's __syncwarp count
  uint32_t r_line[2];  // up to two threads that read it in the epoch
  uint16_t w_thread;   // kNoThread: not written in the epoch
  uint16_t w_sync;
  uint16_t r_thread[2];
  uint16_t r_sync[2];
};
constexpr uint64_t kGlobalSlots = uint64_t{1} << 12;  // 160 KiB per OS thread

// This OS thread's table, and where the thread-local state a record needs
// is: a checked pointer keeps a pointer to it, so that an access finds it
// without a lookup of thread-local storage (a call, in a shared library).
struct GlobalContext {
  GlobalShadow* table;
  const uint32_t* epoch;
  const uint3* thread;
  const uint16_t* warp_syncs;
  uint32_t dim_x, dim_y;

  uint32_t me() const { return thread->x + dim_x * (thread->y + dim_y * thread->z); }
  // As warp_ordered.
  bool ordered(uint32_t other, uint16_t other_sync, uint32_t me) const {
    return other / 32 == me / 32 && other_sync != warp_syncs[me / 32];
  }
};
GPUVEC_EMU_THREAD_LOCAL GlobalContext global_context;

__attribute__((noinline, cold)) inline void make_global_shadow() {
  // Zeroed: epoch 0 is before every block's first epoch.
  global_context.table = static_cast<GlobalShadow*>(calloc(kGlobalSlots, sizeof(GlobalShadow)));
  if (global_context.table == nullptr) fail(GPUVEC_EMULATION_FAILURE_EXCEPTION, "std::bad_alloc");
}

// The context of the block this OS thread runs: when a kernel's checked
// pointer parameter is made, at the start of its block (or fiber).
inline GlobalContext* block_global_context() {
  GlobalContext& c = global_context;
  if (__builtin_expect(c.table == nullptr, 0)) make_global_shadow();
  c.epoch = &epoch;
  c.thread = thread_idx_at;
  c.warp_syncs = warp_syncs;
  c.dim_x = blockDim.x;
  c.dim_y = blockDim.y;
  return &c;
}

// The record of the element at p, numbered `slot`; a fresh one if stale.
inline GlobalShadow& global_record(const GlobalContext& c, const void* p, uint64_t slot) {
  GlobalShadow& s = c.table[slot & (kGlobalSlots - 1)];
  const uint32_t e = *c.epoch;
  if (s.address != p || s.epoch != e) {
    s.address = p;
    s.epoch = e;
    s.w_thread = kNoThread;
    s.r_thread[0] = kNoThread;
    s.r_thread[1] = kNoThread;
  }
  return s;
}

// "at cell.cu:7", or what is known of an access without a line (*p, p->).
struct WhereText {
  char text[300];
};
inline WhereText where_text(const char* file, uint32_t line) {
  WhereText r;
  if (line == 0) {
    snprintf(r.text, sizeof r.text, "through *p or p-> (no line known)");
  } else if (file[0] == '\0') {
    snprintf(r.text, sizeof r.text, "at line %u", line);
  } else {
    snprintf(r.text, sizeof r.text, "at %s:%u", file, line);
  }
  return r;
}

[[noreturn]] __attribute__((noinline, cold)) inline void global_race(
    const char* hazard, const Site& site, uint32_t me, const char* my_access, uint32_t other,
    uint32_t other_line, const char* other_access) {
  fail_with(GPUVEC_EMULATION_FAILURE_RACE,
            "global memory race (%s hazard) in kernel '%s' on %s[%lld]: thread %s %s it %s, "
            "and thread %s %s it %s, with no __syncthreads() between them",
            hazard, kernel_name, site.name, static_cast<long long>(site.index),
            thread_text(me).text, my_access, where_text(site.file, site.line).text,
            thread_text(other).text, other_access, where_text(site.file, other_line).text);
}

// The same rules as on_read and on_write for shared memory, less initcheck.
inline void on_global_read(const GlobalContext& c, const void* p, uint64_t slot,
                           const Site& site) {
  GlobalShadow& s = global_record(c, p, slot);
  const uint32_t me = c.me();
  if (s.w_thread != kNoThread) {
    const uint32_t writer = s.w_thread & kThreadBits;
    if (__builtin_expect(writer != me && !c.ordered(writer, s.w_sync, me), 0))
      global_race("read-after-write", site, me, "reads", writer, s.w_line,
                  s.w_thread & kAtomicWrite ? "atomically wrote" : "wrote");
  }
  const uint16_t sync = c.warp_syncs[me / 32];
  const int k = s.r_thread[0] == kNoThread || s.r_thread[0] == me   ? 0
                : s.r_thread[1] == kNoThread || s.r_thread[1] == me ? 1
                                                                    : 2;
  if (k < 2) {
    s.r_thread[k] = static_cast<uint16_t>(me);
    s.r_line[k] = site.line;
    s.r_sync[k] = sync;
  }
}

inline void on_global_write(const GlobalContext& c, const void* p, uint64_t slot, const Site& site,
                            bool atomic) {
  GlobalShadow& s = global_record(c, p, slot);
  const uint32_t me = c.me();
  if (s.w_thread != kNoThread) {
    const uint32_t writer = s.w_thread & kThreadBits;
    const bool both_atomic = atomic && (s.w_thread & kAtomicWrite);
    if (__builtin_expect(writer != me && !both_atomic && !c.ordered(writer, s.w_sync, me), 0))
      global_race("write-after-write", site, me, atomic ? "atomically writes" : "writes", writer,
                  s.w_line, s.w_thread & kAtomicWrite ? "atomically wrote" : "wrote");
  }
  for (int k = 0; k < 2; ++k) {
    const uint32_t reader = s.r_thread[k];
    if (__builtin_expect(
            reader != kNoThread && reader != me && !c.ordered(reader, s.r_sync[k], me), 0))
      global_race("write-after-read", site, me, atomic ? "atomically writes" : "writes", reader,
                  s.r_line[k], "read");
  }
  // A thread's plain write stays the record over its own later atomic.
  if (atomic && s.w_thread == me) return;
  s.w_line = site.line;
  s.w_thread = static_cast<uint16_t>(me | (atomic ? kAtomicWrite : 0));
  s.w_sync = c.warp_syncs[me / 32];
}

template <class T>
inline uint64_t slot_of(const T* p) {
  return reinterpret_cast<uintptr_t>(p) / sizeof(T);
}

}  // namespace gpuvec_emu
#endif  // GPUVEC_EMULATION_CHECKED

namespace gpuvec_emu {
#if GPUVEC_EMULATION_CHECKED
// The blocks whose global memory accesses are recorded: the first
// kRecordedBlocks of the grid and its last kRecordedBlocks (by linear block
// index; the last ones hold the partial tail, where bugs of the bounds
// guards show). Recording costs several times a plain access, and a race
// within a block is a property of the code, which the same code shows in
// every block, so a large grid is recorded in some blocks only: a vector
// addition of 2^24 elements then costs about what bounds checks cost. Every
// access of every block is bounds-checked all the same. The choice is by
// index, not by OS thread, so that a run finds what the previous one found.
constexpr uint64_t kRecordedBlocks = 512;
inline bool block_is_recorded() {
  const uint64_t x = gridDim.x, y = gridDim.y;
  const uint64_t b = blockIdx.x + x * (blockIdx.y + y * blockIdx.z);
  return b < kRecordedBlocks || b + kRecordedBlocks >= x * y * gridDim.z;
}
using GlobalContextPointer = GlobalContext*;
inline GlobalContext* context_of_parameter(bool written) {
  return written && block_is_recorded() ? block_global_context() : nullptr;
}
#else
using GlobalContextPointer = void*;
inline void* context_of_parameter(bool) { return nullptr; }
#endif

template <class P>
struct is_checked : std::false_type {};
template <class T>
struct is_checked<gpuvec_checked<T>> : std::true_type {};

// Whether checked mode records the accesses of p[i] for a gpuvec_checked<T>
// (with a context: its array is written in the launch): arithmetic T, not
// volatile. Structs and volatile data are bounds-checked only.
template <class T>
constexpr bool kRecordedElement =
#if GPUVEC_EMULATION_CHECKED
    std::is_arithmetic<T>::value && !std::is_volatile<T>::value;
#else
    false;
#endif

// U* is what a T* converts to implicitly: the same type as or more
// qualified, or void.
template <class U, class T>
constexpr bool kImplicitPointer = (std::is_same<std::remove_cv_t<U>, std::remove_cv_t<T>>::value ||
                                   std::is_void<U>::value) &&
                                  (std::is_const<U>::value || !std::is_const<T>::value) &&
                                  (std::is_volatile<U>::value || !std::is_volatile<T>::value);
}  // namespace gpuvec_emu

// A pointer compiled checked. gpuvec rewrites each pointer parameter of a
// kernel, `float* out`, into `gpuvec_checked<float> out`: a pointer into
// one argument's array that checks every access against the array's bounds.
// Out of bounds, the launch's first fault is recorded and the access goes to
// a dummy element, so nothing is corrupted and the kernel runs on.
//
// A pointer derived from it stays checked: p + i, &p[i], and (rewritten the
// same way) a local pointer declared in a function body (`const float* row =
// A + r * cols;`) and a pointer parameter of a __device__ function, of the
// types a kernel's parameter is rewritten for. Such a pointer can also hold
// a raw pointer (a __shared__ array's, a local array's, nullptr): it then
// checks nothing, as a raw pointer would. A raw pointer taken from a checked
// one (converting it to T*, or a cast to another pointer type) is not
// checked.
//
// In checked mode p[i] also records, per element, the threads that read and
// write it (see GlobalShadow), to find races within a block. p[i] is a
// plain T&, as with a raw pointer, so that every use of an element compiles
// as it does on a GPU (`float& r = p[i]`, `swap(p[i], p[j])`, `std::max(p[i],
// x)`, `f(p[i])` with `f(float&)`): a reference object that tells reads
// from writes would not bind to T& nor deduce as T. So p[i] records a read,
// and gpuvec's source rewrite marks what the source writes, the target of an
// assignment (`p[i] = v`, `p[i] += v`, `++p[i]`, `*p = v`), by its index:
// p[gpuvec_emu::WriteIndex(i)] records a write, p[gpuvec_emu::UpdateIndex(i)]
// a read and a write (see MarkedIndex). A write through a reference
// or a raw pointer taken from an element is recorded as the read it began
// with: a race it takes part in may be missed, none is invented.
template <class T>
class gpuvec_checked {
  static constexpr int64_t kUnbounded = INT64_MAX;

 public:
  using reference = std::add_lvalue_reference_t<T>;

  explicit gpuvec_checked(const gpuvec_emulation_pointer& arg)
      : base_(static_cast<T*>(arg.data)),
        offset_(0),
        length_(length_of(arg)),
        name_(arg.name),
        context_(gpuvec_emu::context_of_parameter(!std::is_const<T>::value)) {}
  // A raw pointer (nullptr, a __shared__ array, ...): passed through unchecked.
  gpuvec_checked() : gpuvec_checked(nullptr) {}
  gpuvec_checked(std::nullptr_t)
      : base_(nullptr), offset_(0), length_(kUnbounded), name_(nullptr), context_(nullptr) {}
  template <class S, std::enable_if_t<!gpuvec_emu::is_checked<std::decay_t<S>>::value &&
                                          std::is_convertible<S&&, T*>::value,
                                      int> = 0>
  gpuvec_checked(S&& raw) : gpuvec_checked(nullptr) {
    base_ = static_cast<T*>(static_cast<S&&>(raw));
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  gpuvec_checked(I) : gpuvec_checked(nullptr) {}  // 0 and NULL, as null pointer constants
  // A checked pointer to the same type, less qualified: the same checks.
  template <class U, std::enable_if_t<gpuvec_emu::kImplicitPointer<T, U> &&
                                          !std::is_same<T, U>::value && !std::is_void<T>::value,
                                      int> = 0>
  gpuvec_checked(const gpuvec_checked<U>& p)
      : base_(p.base_),
        offset_(p.offset_),
        length_(p.length_),
        name_(p.name_),
        context_(p.context_) {}

  reference operator[](gpuvec_emu::Index i) const { return element(i.value, i.line, i.file); }
  template <bool kReads>
  reference operator[](gpuvec_emu::MarkedIndex<kReads> i) const {
    return element(i.index.value, i.index.line, i.index.file, true, kReads);
  }
  reference operator*() const { return element(0, 0, ""); }
  T* operator->() const { return &at(0, 0, ""); }

  // To T* (or a more qualified pointer, or void*) implicitly, for a function
  // that takes a T*; to another pointer type only explicitly, as a cast.
  // Templates, so that p[i] finds no built-in subscript through a
  // conversion to T*, which would make operator[] ambiguous.
  template <class U, std::enable_if_t<gpuvec_emu::kImplicitPointer<U, T>, int> = 0>
  operator U*() const {
    return base_ + offset_;
  }
  template <class U, std::enable_if_t<!gpuvec_emu::kImplicitPointer<U, T>, int> = 0>
  explicit operator U*() const {
    return (U*)(base_ + offset_);
  }
  explicit operator bool() const { return base_ + offset_ != nullptr; }
  friend bool operator==(const gpuvec_checked& p, std::nullptr_t) { return !p; }
  friend bool operator!=(const gpuvec_checked& p, std::nullptr_t) { return !!p; }
  // Where it points (comparisons and differences, below).
  T* get() const { return base_ + offset_; }
  // Whether its accesses are recorded (checked mode, a recorded block).
  bool records_accesses() const { return context_ != nullptr; }
  void forget_records() { context_ = nullptr; }

  template <class I, gpuvec_emu::if_index<I> = 0>
  friend gpuvec_checked operator+(gpuvec_checked p, I i) {
    p.offset_ += static_cast<int64_t>(i);
    return p;
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  friend gpuvec_checked operator+(I i, gpuvec_checked p) {
    return p + i;
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  friend gpuvec_checked operator-(gpuvec_checked p, I i) {
    p.offset_ -= static_cast<int64_t>(i);
    return p;
  }
  gpuvec_checked& operator+=(int64_t i) {
    offset_ += i;
    return *this;
  }
  gpuvec_checked& operator-=(int64_t i) {
    offset_ -= i;
    return *this;
  }
  gpuvec_checked& operator++() { return *this += 1; }
  gpuvec_checked& operator--() { return *this -= 1; }
  gpuvec_checked operator++(int) {
    gpuvec_checked old = *this;
    ++offset_;
    return old;
  }
  gpuvec_checked operator--(int) {
    gpuvec_checked old = *this;
    --offset_;
    return old;
  }

  // The element i past where it points, bounds-checked; for the atomics.
  T* checked_address(int64_t i, uint32_t line, const char* file) const {
    return &at(i, line, file);
  }
#if GPUVEC_EMULATION_CHECKED
  // Records an atomic write of the element where it points.
  void record_atomic(uint32_t line, const char* file) const {
    T* const p = base_ + offset_;
    if (context_ && static_cast<uint64_t>(offset_) < static_cast<uint64_t>(length_))
      gpuvec_emu::on_global_write(*context_, p, gpuvec_emu::slot_of(p),
                                  {name_, offset_, line, file}, true);
  }
#endif

 private:
  template <class U>
  friend class gpuvec_checked;

  gpuvec_checked(T* base, int64_t offset, int64_t length, const char* name,
                 gpuvec_emu::GlobalContextPointer context)
      : base_(base), offset_(offset), length_(length), name_(name), context_(context) {}

  static int64_t length_of(const gpuvec_emulation_pointer& arg) {
    if constexpr (std::is_void<T>::value) {
      return arg.count;
    } else {  // in elements of T, should they differ from the array's
      return arg.itemsize > 0 ? arg.count * arg.itemsize / static_cast<int64_t>(sizeof(T))
                              : arg.count;
    }
  }

  reference at(int64_t i, uint32_t line, const char* file) const {
    const int64_t k =
        static_cast<int64_t>(static_cast<uint64_t>(offset_) + static_cast<uint64_t>(i));
    if (__builtin_expect(static_cast<uint64_t>(k) < static_cast<uint64_t>(length_), 1)) {
      if constexpr (std::is_volatile<T>::value && std::is_scalar<T>::value)  // a spin?
        gpuvec_emu::spin_read(base_ + k, gpuvec_emu::spin_bits<std::remove_cv_t<T>>(base_[k]),
                              line, file);
      return base_[k];
    }
    if (name_ == nullptr) return base_[k];  // a raw pointer: a negative index is its own
    if (line != 0) gpuvec_emu::index_fault_at(name_, k, length_, line, file);
    return gpuvec_emu::index_fault<T>(name_, k, length_, 0, file);
  }

  // Element i, recorded as a read, or as a write where the source writes it
  // (a read first where it updates it: `+=`, `++`). Inline, behind one test
  // of context_ (null in unrecorded blocks, and for const parameters): the
  // plain loop of an unrecorded block knows it null (see
  // gpuvec_emu::records_accesses) and keeps bounds checks only.
  reference element(int64_t i, uint32_t line, const char* file, bool write = false,
                    bool update = false) const {
    reference e = at(i, line, file);
#if GPUVEC_EMULATION_CHECKED
    if constexpr (gpuvec_emu::kRecordedElement<T>) {
      const int64_t k =
          static_cast<int64_t>(static_cast<uint64_t>(offset_) + static_cast<uint64_t>(i));
      // Outside: a fault's dummy (*p, p-> go on after one), never recorded.
      if (context_ != nullptr && static_cast<uint64_t>(k) < static_cast<uint64_t>(length_)) {
        const gpuvec_emu::Site site{name_, k, line, file};
        const uint64_t slot = gpuvec_emu::slot_of(&e);
        if (!write || update || std::is_const<T>::value)
          gpuvec_emu::on_global_read(*context_, &e, slot, site);
        if (write && !std::is_const<T>::value)
          gpuvec_emu::on_global_write(*context_, &e, slot, site, false);
      }
    }
#else
    (void)write;
    (void)update;
#endif
    return e;
  }

  T* base_;
  int64_t offset_;    // where the pointer points, from base_, in elements
  int64_t length_;    // kUnbounded: a raw pointer
  const char* name_;  // nullptr: a raw pointer
  // Where its elements' accesses are recorded (checked mode); nullptr: they are not.
  gpuvec_emu::GlobalContextPointer context_;
};

// reinterpret_cast<float4*>(p) of a checked pointer, or of &p[i] (which the
// rewrite makes p + i, a checked pointer): in checked mode gpuvec's source
// rewrite spells each reinterpret_cast this way, since the built-in one
// takes no class. A class (a checked pointer, a checked __shared__ array)
// becomes a pointer by its explicit conversion, as a C-style cast does; the
// pointer it gives is raw, unchecked. Anything else is reinterpret_cast's.
template <class To, class From>
inline To gpuvec_reinterpret_cast(From&& from) {
  if constexpr (std::is_class<std::remove_reference_t<From>>::value && std::is_pointer<To>::value)
    return (To)(from);
  else
    return reinterpret_cast<To>(static_cast<From&&>(from));
}

namespace gpuvec_emu {
// Whether a kernel's argument records its elements' accesses: a plain loop
// runs a block that records none in a copy of its loop in which the
// compiler knows so, and leaves the records out (see Kernel::loop).
template <class P>
inline bool records_accesses(const P&) {
  return false;
}
template <class T>
inline bool records_accesses(const gpuvec_checked<T>& p) {
  return p.records_accesses();
}
// Makes an argument that records nothing say so where the compiler sees it.
template <class P>
inline void forget_records(P&) {}
template <class T>
inline void forget_records(gpuvec_checked<T>& p) {
  p.forget_records();
}

// Comparisons and differences of checked pointers, with each other or with
// raw ones (templates: exact matches, before the built-in operators).
template <class T>
inline T* address(const gpuvec_checked<T>& p) {
  return p.get();
}
template <class T>
inline T* address(T* p) {
  return p;
}
template <class A, class B>
using if_checked_pair = std::enable_if_t<(is_checked<A>::value || is_checked<B>::value) &&
                                             (is_checked<A>::value || std::is_pointer<A>::value) &&
                                             (is_checked<B>::value || std::is_pointer<B>::value),
                                         int>;
}  // namespace gpuvec_emu

#define GPUVEC_EMU_POINTER_OPERATOR(op)                              \
  template <class A, class B, gpuvec_emu::if_checked_pair<A, B> = 0> \
  inline auto operator op(const A& a, const B& b)                    \
      ->decltype(gpuvec_emu::address(a) op gpuvec_emu::address(b)) { \
    return gpuvec_emu::address(a) op gpuvec_emu::address(b);         \
  }
GPUVEC_EMU_POINTER_OPERATOR(==)
GPUVEC_EMU_POINTER_OPERATOR(!=)
GPUVEC_EMU_POINTER_OPERATOR(<)
GPUVEC_EMU_POINTER_OPERATOR(>)
GPUVEC_EMU_POINTER_OPERATOR(<=)
GPUVEC_EMU_POINTER_OPERATOR(>=)
GPUVEC_EMU_POINTER_OPERATOR(-)
#undef GPUVEC_EMU_POINTER_OPERATOR

template <class T>
inline std::remove_const_t<T> __ldg(gpuvec_checked<T> p) {
  return *p;
}

// The atomics on a checked pointer check the element, and record an atomic
// access of it (atomics do not race with each other).
#if GPUVEC_EMULATION_CHECKED
#define GPUVEC_EMU_RECORD_ATOMIC p.record_atomic(line, file)
#else
#define GPUVEC_EMU_RECORD_ATOMIC (void)0
#endif
#define GPUVEC_EMU_CHECKED(name)                              \
  template <class T, class V>                                 \
  inline auto name(gpuvec_checked<T> p, V v, GPUVEC_EMU_SITE) \
      ->decltype(name(static_cast<T*>(nullptr), v)) {         \
    T* const at = p.checked_address(0, line, file);           \
    GPUVEC_EMU_RECORD_ATOMIC;                                 \
    return name(at, v, line, file);                           \
  }
GPUVEC_EMU_CHECKED(atomicAdd)
GPUVEC_EMU_CHECKED(atomicSub)
GPUVEC_EMU_CHECKED(atomicAnd)
GPUVEC_EMU_CHECKED(atomicOr)
GPUVEC_EMU_CHECKED(atomicXor)
GPUVEC_EMU_CHECKED(atomicExch)
GPUVEC_EMU_CHECKED(atomicMin)
GPUVEC_EMU_CHECKED(atomicMax)
GPUVEC_EMU_CHECKED(atomicInc)
GPUVEC_EMU_CHECKED(atomicDec)
#undef GPUVEC_EMU_CHECKED
template <class T, class C, class V>
inline auto atomicCAS(gpuvec_checked<T> p, C compare, V v, GPUVEC_EMU_SITE)
    -> decltype(atomicCAS(static_cast<T*>(nullptr), compare, v)) {
  T* const at = p.checked_address(0, line, file);
  GPUVEC_EMU_RECORD_ATOMIC;
  return atomicCAS(at, compare, v, line, file);
}
#undef GPUVEC_EMU_RECORD_ATOMIC

#if GPUVEC_EMULATION_CHECKED
// --- Checked shared memory -------------------------------------------------------------------
//
// In checked mode gpuvec rewrites `__shared__ float s[256];` into
// `__shared__ gpuvec_shared<float[256]> s{"s"};` and `extern __shared__
// float s[];` into `gpuvec_shared_dynamic<float> s{"s"};`. Indexing,
// s[i] or tile[y][x], reads as before, but gives a SharedRef: a reference
// that checks the index against the array's bounds and tells the shadow
// records (above) of each read and write, with the line of the index. Taking
// the address of an element (&s[i]) or converting the array to a pointer
// gives a raw pointer, whose accesses are not checked; an atomic on &s[i] is
// checked, as an atomic access. Arrays of structs are bounds-checked only.

namespace gpuvec_emu {

[[noreturn]] __attribute__((noinline, cold)) inline void shared_index_fault(
    const char* name, int64_t index, int64_t length, const Index& at, bool dynamic) {
  const long long i = static_cast<long long>(index), n = static_cast<long long>(length);
  const unsigned long long bytes = block->dynamic_shared_size;
  if (dynamic && bytes == 0) {
    fail_with(GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS,
              "index %lld is out of bounds for extern __shared__ array '%s', which the launch "
              "gave no memory (shared_mem=0), at %s:%u in kernel '%s'; pass "
              "shared_mem=<bytes per block> to the launch",
              i, name, at.file, at.line, kernel_name);
  }
  if (dynamic) {
    fail_with(GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS,
              "index %lld is out of bounds for extern __shared__ array '%s' of length %lld "
              "(shared_mem=%llu), at %s:%u in kernel '%s'",
              i, name, n, bytes, at.file, at.line, kernel_name);
  }
  fail_with(GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS,
            "index %lld is out of bounds for __shared__ array '%s' (a dimension of length "
            "%lld), at %s:%u in kernel '%s'",
            i, name, n, at.file, at.line, kernel_name);
}

template <class E>
class SharedRef;

// &s[i]: a pointer to the element, which an atomic takes as a checked access.
template <class E>
struct SharedAddress {
  E* pointer;
  Shadow* shadow;
  Site site;
  operator E*() const { return pointer; }
  template <class U>
  explicit operator U*() const {
    return (U*)pointer;
  }
  E& operator*() const { return *pointer; }
};

// One element of a checked shared array.
template <class E>
class SharedRef {
 public:
  SharedRef(E* pointer, Shadow* shadow, Site site)
      : pointer_(pointer), shadow_(shadow), site_(site) {}
  SharedRef(const SharedRef&) = default;

  operator E() const {
    on_read(*shadow_, site_);
    return *pointer_;
  }
  SharedRef& operator=(const E& value) {
    on_write(*shadow_, site_, false);
    *pointer_ = value;
    return *this;
  }
  SharedRef& operator=(const SharedRef& other) { return *this = static_cast<E>(other); }

#define GPUVEC_EMU_COMPOUND(op)            \
  template <class U>                       \
  SharedRef& operator op(const U& value) { \
    E x = static_cast<E>(*this);           \
    x op value;                            \
    return *this = x;                      \
  }
  GPUVEC_EMU_COMPOUND(+=)
  GPUVEC_EMU_COMPOUND(-=)
  GPUVEC_EMU_COMPOUND(*=)
  GPUVEC_EMU_COMPOUND(/=)
  GPUVEC_EMU_COMPOUND(%=)
  GPUVEC_EMU_COMPOUND(&=)
  GPUVEC_EMU_COMPOUND(|=)
  GPUVEC_EMU_COMPOUND(^=)
  GPUVEC_EMU_COMPOUND(<<=)
  GPUVEC_EMU_COMPOUND(>>=)
#undef GPUVEC_EMU_COMPOUND
  SharedRef& operator++() { return *this += 1; }
  SharedRef& operator--() { return *this -= 1; }
  E operator++(int) {
    const E old = static_cast<E>(*this);
    *this = static_cast<E>(old + 1);
    return old;
  }
  E operator--(int) {
    const E old = static_cast<E>(*this);
    *this = static_cast<E>(old - 1);
    return old;
  }
  SharedAddress<E> operator&() const { return {pointer_, shadow_, site_}; }

 private:
  E* pointer_;
  Shadow* shadow_;
  Site site_;
};

// A pointer's worth of a value for printf and the like: a SharedRef's element.
template <class T>
inline const T& plain(const T& value) {
  return value;
}
template <class E>
inline E plain(const SharedRef<E>& value) {
  return static_cast<E>(value);
}

// Indexing into the rows of a shared array of type A (T[N], T[N][M], ...),
// flattened: E elements at data with their records at shadow; the element at
// data has number `first` of the whole array.
template <class A>
struct SharedRows {
  using E = std::remove_cv_t<std::remove_all_extents_t<A>>;
  using Sub = std::remove_extent_t<A>;
  static constexpr int64_t kExtent = std::extent<A>::value;
  static constexpr int64_t kPer = sizeof(Sub) / sizeof(E);

  E* data;
  Shadow* shadow;
  const char* name;
  int64_t first;   // the number of the element at data, in the whole array
  int64_t length;  // kExtent, or the dynamic array's length
  bool dynamic;
  int64_t stride;  // shadow records per element

  decltype(auto) operator[](Index i) const {
    if (__builtin_expect(static_cast<uint64_t>(i.value) >= static_cast<uint64_t>(length), 0))
      shared_index_fault(name, i.value, length, i, dynamic);
    if constexpr (std::is_array<Sub>::value) {
      return SharedRows<Sub>{data + i.value * kPer,
                             shadow + i.value * kPer,
                             name,
                             first + i.value * kPer,
                             std::extent<Sub>::value,
                             false,
                             1};
    } else if constexpr (std::is_arithmetic<E>::value) {
      return SharedRef<E>(data + i.value, shadow + i.value * stride,
                          Site{name, first + i.value, i.line, i.file});
    } else {
      return (data[i.value]);  // a struct: bounds only
    }
  }
};

// The dynamic shared memory's records, this OS thread's, grown to the
// launch's shared_mem: one per element of 4 bytes or less, one per 4 bytes
// of larger ones (so a record is at the same place for the same element of
// two extern arrays of the same type).
GPUVEC_EMU_THREAD_LOCAL Shadow* dynamic_shadow = nullptr;
GPUVEC_EMU_THREAD_LOCAL uint64_t dynamic_shadow_size = 0;

__attribute__((noinline, cold)) inline Shadow* grow_dynamic_shadow(uint64_t size) {
  auto* grown = static_cast<Shadow*>(calloc(size, sizeof(Shadow)));
  if (grown == nullptr) fail(GPUVEC_EMULATION_FAILURE_EXCEPTION, "std::bad_alloc");
  free(dynamic_shadow);
  dynamic_shadow = grown;
  dynamic_shadow_size = size;
  return grown;
}

}  // namespace gpuvec_emu

// A fixed-size __shared__ array in checked mode (see above). Constant
// initialized, so a thread_local one costs no guard at each access.
template <class A>
class gpuvec_shared {
  using Rows = gpuvec_emu::SharedRows<A>;
  using E = typename Rows::E;
  static constexpr int64_t kTotal = sizeof(A) / sizeof(E);

 public:
  constexpr explicit gpuvec_shared(const char* name) : data_{}, shadow_{}, name_(name) {}
  gpuvec_shared(const gpuvec_shared&) = delete;

  decltype(auto) operator[](gpuvec_emu::Index i) {
    return Rows{data_, shadow_, name_, 0, Rows::kExtent, false, 1}[i];
  }
  // As the array decays: a pointer to its first element (row); templates, so
  // that s[i] finds no built-in subscript (see gpuvec_checked).
  template <class U, gpuvec_emu::if_pointee<U, typename Rows::Sub> = 0>
  operator U*() {
    return reinterpret_cast<typename Rows::Sub*>(data_);
  }
  template <class U, gpuvec_emu::if_not_pointee<U, typename Rows::Sub> = 0>
  explicit operator U*() {
    return (U*)data_;
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  friend typename Rows::Sub* operator+(gpuvec_shared& s, I i) {
    return reinterpret_cast<typename Rows::Sub*>(s.data_) + i;
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  friend typename Rows::Sub* operator+(I i, gpuvec_shared& s) {
    return s + i;
  }

 private:
  alignas(16) E data_[kTotal];  // as aligned as a float4 or double2 cast of it needs
  gpuvec_emu::Shadow shadow_[kTotal];
  const char* name_;
};

// An extern __shared__ array in checked mode: the launch's dynamic shared
// memory, bounds-checked against shared_mem.
template <class T>
class gpuvec_shared_dynamic {
  using Rows = gpuvec_emu::SharedRows<T[1]>;
  using E = typename Rows::E;
  static constexpr int64_t kStride = sizeof(E) > 4 ? sizeof(E) / 4 : 1;

 public:
  explicit gpuvec_shared_dynamic(const char* name)
      : data_(static_cast<E*>(gpuvec_dynamic_shared())),
        length_(static_cast<int64_t>(gpuvec_emu::block->dynamic_shared_size / sizeof(E))),
        name_(name) {
    const uint64_t records = static_cast<uint64_t>(length_ * kStride) + 1;
    shadow_ = gpuvec_emu::dynamic_shadow_size >= records
                  ? gpuvec_emu::dynamic_shadow
                  : gpuvec_emu::grow_dynamic_shadow(records + records / 2);
  }

  decltype(auto) operator[](gpuvec_emu::Index i) const {
    return Rows{data_, shadow_, name_, 0, length_, true, kStride}[i];
  }
  template <class U, gpuvec_emu::if_pointee<U, T> = 0>
  operator U*() const {
    return data_;
  }
  template <class U, gpuvec_emu::if_not_pointee<U, T> = 0>
  explicit operator U*() const {
    return (U*)data_;
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  friend T* operator+(const gpuvec_shared_dynamic& s, I i) {
    return s.data_ + i;
  }
  template <class I, gpuvec_emu::if_index<I> = 0>
  friend T* operator+(I i, const gpuvec_shared_dynamic& s) {
    return s.data_ + i;
  }

 private:
  E* data_;
  gpuvec_emu::Shadow* shadow_;
  int64_t length_;
  const char* name_;
};

// The atomics on an element of a checked shared array: checked as atomic
// accesses (they do not race with each other).
#define GPUVEC_EMU_SHARED_ATOMIC(name)                                                        \
  template <class E, class... V>                                                              \
  inline auto name(gpuvec_emu::SharedAddress<E> a, V... v)->decltype(name(a.pointer, v...)) { \
    gpuvec_emu::on_write(*a.shadow, a.site, true);                                            \
    return name(a.pointer, v..., a.site.line, a.site.file);                                   \
  }
GPUVEC_EMU_SHARED_ATOMIC(atomicAdd)
GPUVEC_EMU_SHARED_ATOMIC(atomicSub)
GPUVEC_EMU_SHARED_ATOMIC(atomicAnd)
GPUVEC_EMU_SHARED_ATOMIC(atomicOr)
GPUVEC_EMU_SHARED_ATOMIC(atomicXor)
GPUVEC_EMU_SHARED_ATOMIC(atomicExch)
GPUVEC_EMU_SHARED_ATOMIC(atomicMin)
GPUVEC_EMU_SHARED_ATOMIC(atomicMax)
GPUVEC_EMU_SHARED_ATOMIC(atomicCAS)
GPUVEC_EMU_SHARED_ATOMIC(atomicInc)
GPUVEC_EMU_SHARED_ATOMIC(atomicDec)
#undef GPUVEC_EMU_SHARED_ATOMIC

// The shuffles take a shared element's value (a template would deduce the
// reference type).
#define GPUVEC_EMU_SHARED_SHUFFLE(name, Arg)                                     \
  template <class E>                                                             \
  inline E name(unsigned int mask, const gpuvec_emu::SharedRef<E>& var, Arg arg, \
                int width = warpSize, GPUVEC_EMU_SITE) {                         \
    return name(mask, static_cast<E>(var), arg, width, line, file);              \
  }
GPUVEC_EMU_SHARED_SHUFFLE(__shfl_sync, int)
GPUVEC_EMU_SHARED_SHUFFLE(__shfl_up_sync, unsigned int)
GPUVEC_EMU_SHARED_SHUFFLE(__shfl_down_sync, unsigned int)
GPUVEC_EMU_SHARED_SHUFFLE(__shfl_xor_sync, int)
#undef GPUVEC_EMU_SHARED_SHUFFLE

// printf takes a shared element as its value (a class cannot pass through
// `...`).
namespace gpuvec_emu {
template <class... A>
inline int checked_printf(const char* format, const A&... args) {
  return (printf)(format, plain(args)...);
}
}  // namespace gpuvec_emu
#define printf(...) gpuvec_emu::checked_printf(__VA_ARGS__)
#endif  // GPUVEC_EMULATION_CHECKED

// --- Entries ---------------------------------------------------------------------------------

namespace gpuvec_emu {

// Argument k of a launch, as the kernel's parameter type P.
template <class P>
struct Param {
  static_assert(!std::is_reference<P>::value, "a kernel parameter cannot be a reference");
  static P get(void* arg) {
    if constexpr (std::is_pointer<P>::value) {
      return static_cast<P>(static_cast<gpuvec_emulation_pointer*>(arg)->data);
    } else {
      static_assert(std::is_trivially_copyable<P>::value && sizeof(P) <= 16,
                    "a kernel value parameter is a scalar of at most 16 bytes");
      P value;
      memcpy(&value, arg, sizeof(P));
      return value;
    }
  }
};
template <class T>
struct Param<gpuvec_checked<T>> {
  static gpuvec_checked<T> get(void* arg) {
    return gpuvec_checked<T>(*static_cast<gpuvec_emulation_pointer*>(arg));
  }
};

inline void begin_block(gpuvec_emulation_block* b) {
  block = b;
  thread_idx_at = &thread_idx;
  blockIdx = uint3{b->block_idx.x, b->block_idx.y, b->block_idx.z};
  blockDim = dim3(b->block_dim.x, b->block_dim.y, b->block_dim.z);
  gridDim = dim3(b->grid_dim.x, b->grid_dim.y, b->grid_dim.z);
}

// Runs body; a C++ exception that leaves it fails the launch. What it says
// is copied out of the handler first: a fiber or a plain loop must not leave
// a catch block by switching or jumping away.
template <class Body>
inline void run_caught(Body&& body) {
#if __cpp_exceptions
  char what[256];
  what[0] = '\0';  // only the first byte: this runs once per thread
  try {
    body();
  } catch (const std::exception& e) {
    snprintf(what, sizeof what, "%s", e.what()[0] ? e.what() : "a std::exception");
  } catch (...) {
    snprintf(what, sizeof what, "an exception that is not a std::exception");
  }
  if (what[0]) fail(GPUVEC_EMULATION_FAILURE_EXCEPTION, what);
#else
  body();
#endif
}

// A context without threads (gpuvec/emulation.h): an ElementwiseKernel's
// range, a ReductionKernel's item or the rest of its call. Runs body there:
// an assert, __trap or C++ exception in it is recorded as the call's failure
// and ends body. Returns 0, 1 after such a failure, or 2 when memory ran out
// (std::bad_alloc, which gpuvec reports as itself).
template <class Body>
inline int contained_call(Body& body) {
#if __cpp_exceptions
  char what[256];
  what[0] = '\0';
  try {
    body();
  } catch (const std::bad_alloc&) {
    return 2;
  } catch (const std::exception& e) {
    snprintf(what, sizeof what, "%s", e.what()[0] ? e.what() : "a std::exception");
  } catch (...) {
    snprintf(what, sizeof what, "an exception that is not a std::exception");
  }
  if (what[0]) fail(GPUVEC_EMULATION_FAILURE_EXCEPTION, what);
#else
  body();
#endif
  return 0;
}

// An exception that the user's code threw inside a loop that no exception
// may leave (an `omp simd` loop): what it said, until report_caught.
GPUVEC_EMU_THREAD_LOCAL char caught_what[256];

// Keeps what the exception being handled says (the first one). Only in a
// catch block.
__attribute__((noinline, cold)) inline void catch_current() noexcept {
#if __cpp_exceptions
  if (caught_what[0]) return;
  try {
    throw;
  } catch (const std::exception& e) {
    snprintf(caught_what, sizeof caught_what, "%s", e.what()[0] ? e.what() : "a std::exception");
  } catch (...) {
    snprintf(caught_what, sizeof caught_what, "an exception that is not a std::exception");
  }
#endif
}

// Functor F, whose exceptions are caught where they are thrown: the call
// then gives a value-initialized result. Where nothing F calls can throw, the
// compiler drops the handler, and the loop vectorizes as with F itself.
template <class F>
struct Caught {
  template <class... A>
  auto operator()(A... a) const -> decltype(F{}(a...)) {
#if __cpp_exceptions
    try {
      return F{}(a...);
    } catch (...) {
      catch_current();
      return decltype(F{}(a...))();
    }
#else
    return F{}(a...);
#endif
  }
};

// Fails the call if Caught caught an exception.
inline void report_caught() {
  if (__builtin_expect(caught_what[0] != '\0', 0)) {
    char what[sizeof caught_what];
    memcpy(what, caught_what, sizeof what);
    caught_what[0] = '\0';
    fail(GPUVEC_EMULATION_FAILURE_EXCEPTION, what);
  }
}

template <class Body>
inline int run_contained(gpuvec_emulation_block* context, Body&& body) {
  gpuvec_emulation_block* const outer_block = block;
  jmp_buf* const outer_exit = plain_exit;
  begin_block(context);
  jmp_buf stop;
  plain_exit = &stop;
  volatile int result = 1;  // what a failure, jumping back here, leaves
  if (setjmp(stop) == 0) result = contained_call(body);
  plain_exit = outer_exit;
  block = outer_block;
  return result;
}

template <class>
constexpr bool always_false = false;

// One kernel F, and the entry that runs one block of it.
template <auto F, class Signature = decltype(F)>
struct Kernel {
  static_assert(always_false<Signature>,
                "GPUVEC_EMULATION_KERNEL names a __global__ function, which returns void");
};

template <auto F, class... P>
struct Kernel<F, void (*)(P...)> {
  static void run_block(gpuvec_emulation_block* b, void* const* params, const char* name) {
    begin_block(b);
    kernel_name = name;
#if GPUVEC_EMULATION_CHECKED
    ++block_serial;
    ++epoch;
#endif
    if (b->cooperative) {
      b->runtime->run_threads(b, &fiber, const_cast<void**>(params));
    } else {
      plain(b, params, std::index_sequence_for<P...>{});
    }
#if GPUVEC_EMULATION_CHECKED
    check_uninitialized();
#endif
  }

 private:
  // Cooperative: the body of thread t's fiber.
  static void fiber(void* params, uint32_t t) {
    const dim3 d = blockDim;
    if (d.y == 1 && d.z == 1) {  // no divisions for the common 1-D block
      threadIdx = uint3{t, 0, 0};
    } else {
      threadIdx = uint3{t % d.x, t / d.x % d.y, t / (d.x * d.y)};
    }
    call(static_cast<void* const*>(params), std::index_sequence_for<P...>{});
#if GPUVEC_EMULATION_CHECKED
    thread_returned();
#endif
  }
  template <size_t... K>
  static void call(void* const* params, std::index_sequence<K...>) {
    run_caught([params] { F(Param<P>::get(params[K])...); });
  }

  // Plain: the threads one after another. setjmp is here, the loop in a
  // function of its own, so that setjmp does not hold back its optimization.
  template <size_t... K>
  static void plain(gpuvec_emulation_block* b, void* const* params, std::index_sequence<K...>) {
    jmp_buf stop;
    plain_exit = &stop;
    if (setjmp(stop) == 0) loop(b->block_dim, Param<P>::get(params[K])...);
    plain_exit = nullptr;
  }
  // In checked mode a block whose arguments record no accesses
  // (records_accesses) runs in a copy of the loop whose arguments forget
  // their contexts first: the compiler then knows them null, and leaves the
  // records' code out of it. Two functions, not two loops in one, so that a
  // thread's stack holds one frame of the kernel's locals, not two.
  static void loop(gpuvec_emulation_dim3 d, P... p) {
#if GPUVEC_EMULATION_CHECKED
    if (!(records_accesses(p) || ... || false)) return threads<false>(d, p...);
#endif
    threads<true>(d, p...);
  }
  // flatten: the kernel and what it calls are inlined into the loop.
  template <bool kRecords>
  __attribute__((noinline, flatten)) static void threads(gpuvec_emulation_dim3 d, P... p) {
    if constexpr (!kRecords) (forget_records(p), ...);
    run_caught([&] {
      uint3* const self = thread_idx_at;
      for (unsigned int z = 0; z < d.z; ++z) {
        for (unsigned int y = 0; y < d.y; ++y) {
          // A kernel cannot write threadIdx (CUDA forbids it), so y and z stay.
          self->y = y;
          self->z = z;
          for (unsigned int x = 0; x < d.x; ++x) {
            self->x = x;
            F(p...);
          }
        }
      }
    });
  }
};

template <auto F, class... P>
struct Kernel<F, void (*)(P...) noexcept> : Kernel<F, void (*)(P...)> {};

}  // namespace gpuvec_emu

#pragma GCC visibility pop

// The version of gpuvec/emulation.h this library was built against; gpuvec
// checks it when it loads the library.
extern "C" __attribute__((visibility("default"), weak)) const unsigned int gpuvec_emulation_abi =
    GPUVEC_EMULATION_VERSION;

// The entry `name` of one kernel: the arguments after it name one function (a
// template instance in parentheses, (scale<float, 4>), for the commas).
#define GPUVEC_EMULATION_KERNEL(name, ...)                                                   \
  extern "C" __attribute__((visibility("default"))) void name(gpuvec_emulation_block* block, \
                                                              void* const* params) {         \
    ::gpuvec_emu::Kernel<__VA_ARGS__>::run_block(block, params, #__VA_ARGS__);               \
  }

#endif  // GPUVEC_CUDA_EMULATION_H
