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

GPUVEC_EMU_VECTOR2(int2, int, 8)
GPUVEC_EMU_VECTOR3(int3, int)
GPUVEC_EMU_VECTOR4(int4, int, 16)
GPUVEC_EMU_VECTOR2(uint2, unsigned int, 8)
GPUVEC_EMU_VECTOR3(uint3, unsigned int)
GPUVEC_EMU_VECTOR4(uint4, unsigned int, 16)
GPUVEC_EMU_VECTOR2(float2, float, 8)
GPUVEC_EMU_VECTOR3(float3, float)
GPUVEC_EMU_VECTOR4(float4, float, 16)
GPUVEC_EMU_VECTOR2(double2, double, 16)
GPUVEC_EMU_VECTOR3(double3, double)
GPUVEC_EMU_VECTOR4(double4, double, 16)
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

}  // namespace gpuvec_emu

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

#define GPUVEC_EMU_ATOMIC_INT(T)                                                            \
  inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }      \
  inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }      \
  inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }      \
  inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }        \
  inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }      \
  inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }    \
  inline T atomicMin(T* p, T v) {                                                           \
    return gpuvec_emu::atomic_update(p, [v](T old) { return v < old ? v : old; });          \
  }                                                                                         \
  inline T atomicMax(T* p, T v) {                                                           \
    return gpuvec_emu::atomic_update(p, [v](T old) { return old < v ? v : old; });          \
  }                                                                                         \
  inline T atomicCAS(T* p, T compare, T v) {                                                \
    __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return compare;                                                                         \
  }
GPUVEC_EMU_ATOMIC_INT(int)
GPUVEC_EMU_ATOMIC_INT(unsigned int)
GPUVEC_EMU_ATOMIC_INT(long long)
GPUVEC_EMU_ATOMIC_INT(unsigned long long)
#undef GPUVEC_EMU_ATOMIC_INT

#define GPUVEC_EMU_ATOMIC_FLOAT(T)                                                         \
  inline T atomicAdd(T* p, T v) {                                                          \
    return gpuvec_emu::atomic_update(p, [v](T old) { return old + v; });                   \
  }                                                                                        \
  inline T atomicSub(T* p, T v) {                                                          \
    return gpuvec_emu::atomic_update(p, [v](T old) { return old - v; });                   \
  }                                                                                        \
  inline T atomicMin(T* p, T v) {                                                          \
    return gpuvec_emu::atomic_update(p, [v](T old) { return min(old, v); });               \
  }                                                                                        \
  inline T atomicMax(T* p, T v) {                                                          \
    return gpuvec_emu::atomic_update(p, [v](T old) { return max(old, v); });               \
  }                                                                                        \
  inline T atomicExch(T* p, T v) {                                                         \
    T old;                                                                                 \
    __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);                                      \
    return old;                                                                            \
  }                                                                                        \
  inline T atomicCAS(T* p, T compare, T v) { /* compares the bits, as the GPU does */      \
    __atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return compare;                                                                        \
  }
GPUVEC_EMU_ATOMIC_FLOAT(float)
GPUVEC_EMU_ATOMIC_FLOAT(double)
#undef GPUVEC_EMU_ATOMIC_FLOAT

// CUDA's wrapping increment and decrement.
inline unsigned int atomicInc(unsigned int* p, unsigned int limit) {
  return gpuvec_emu::atomic_update(
      p, [limit](unsigned int old) { return old >= limit ? 0 : old + 1; });
}
inline unsigned int atomicDec(unsigned int* p, unsigned int limit) {
  return gpuvec_emu::atomic_update(
      p, [limit](unsigned int old) { return old == 0 || old > limit ? limit : old - 1; });
}

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// A block's threads share one OS thread: keeping the compiler's order is enough.
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

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

inline unsigned int block_barrier(int predicate) {
  require_cooperative("__syncthreads");
  const uint3 me = threadIdx;
  memory_barrier();
  const unsigned int count = block->runtime->sync_threads(block, predicate);
  memory_barrier();
  threadIdx = me;
  return count;
}

inline unsigned int lane() { return linear_thread() % warpSize; }

inline uint64_t warp_exchange(int op, unsigned int mask, uint64_t value, unsigned int src) {
  require_cooperative("a warp intrinsic (__syncwarp, __shfl*_sync, __ballot_sync, ...)");
  const uint3 me = threadIdx;
  memory_barrier();
  const uint64_t result = block->runtime->warp_exchange(block, op, mask, value, src);
  memory_barrier();
  threadIdx = me;
  return result;
}

// Lane `src` of the meeting's value of var (the caller's own if src is not in it).
template <class T>
inline T shuffle(unsigned int mask, T var, unsigned int src) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "__shfl*_sync takes a value of at most 8 bytes");
  uint64_t word = 0;
  memcpy(&word, &var, sizeof(T));
  word = warp_exchange(GPUVEC_EMULATION_WARP_READ, mask, word, src);
  memcpy(&var, &word, sizeof(T));
  return var;
}

}  // namespace gpuvec_emu

inline void __syncthreads() { gpuvec_emu::block_barrier(0); }
inline int __syncthreads_count(int predicate) {
  return static_cast<int>(gpuvec_emu::block_barrier(predicate != 0));
}
inline int __syncthreads_and(int predicate) {
  return gpuvec_emu::block_barrier(predicate == 0) == 0;
}
inline int __syncthreads_or(int predicate) {
  return gpuvec_emu::block_barrier(predicate != 0) != 0;
}

inline void __syncwarp(unsigned int mask = 0xffffffffu) {
  gpuvec_emu::warp_exchange(GPUVEC_EMULATION_WARP_SYNC, mask, 0, 0);
}
inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
  return static_cast<unsigned int>(
      gpuvec_emu::warp_exchange(GPUVEC_EMULATION_WARP_BALLOT, mask, predicate != 0, 0));
}
inline int __any_sync(unsigned int mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
inline int __all_sync(unsigned int mask, int predicate) {
  return __ballot_sync(mask, !predicate) == 0;
}
inline unsigned int __activemask() {
  gpuvec_emu::require_cooperative("__activemask");
  return gpuvec_emu::block->runtime->active_mask(gpuvec_emu::block);
}

// The shuffles, with CUDA's segments of `width` lanes (a power of two).
template <class T>
inline T __shfl_sync(unsigned int mask, T var, int src_lane, int width = warpSize) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  return gpuvec_emu::shuffle(mask, var,
                             (lane & ~(w - 1)) + (static_cast<unsigned int>(src_lane) & (w - 1)));
}
template <class T>
inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  return gpuvec_emu::shuffle(mask, var, (lane & (w - 1)) >= delta ? lane - delta : lane);
}
template <class T>
inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  return gpuvec_emu::shuffle(mask, var, (lane & (w - 1)) + delta < w ? lane + delta : lane);
}
template <class T>
inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = warpSize) {
  const unsigned int lane = gpuvec_emu::lane(), w = static_cast<unsigned int>(width);
  const unsigned int src = lane ^ static_cast<unsigned int>(lane_mask);
  // Lanes of earlier segments may be read, later ones not.
  return gpuvec_emu::shuffle(mask, var, src < (lane & ~(w - 1)) + w ? src : lane);
}

// --- Failures --------------------------------------------------------------------------------

inline void __trap() { gpuvec_emu::fail(GPUVEC_EMULATION_FAILURE_TRAP, "__trap() was called"); }

#if defined(__GLIBC__)
// assert() fails the launch instead of aborting the process: glibc's assert
// calls __assert_fail, and this library's own (hidden) definition wins.
extern "C" GPUVEC_EMU_HIDDEN inline void __assert_fail(const char* assertion, const char* file,
                                                       unsigned int line,
                                                       const char* function) noexcept {
  char message[512];
  snprintf(message, sizeof message, "%s:%u: %s: Assertion `%s' failed.", file, line, function,
           assertion);
  gpuvec_emu::fail(GPUVEC_EMULATION_FAILURE_ASSERT, message);
}
#endif

// --- Checked pointers ------------------------------------------------------------------------

namespace gpuvec_emu {

// What an access out of bounds reads and writes instead: zeros, per OS thread.
GPUVEC_EMU_THREAD_LOCAL unsigned char dummy[256] __attribute__((aligned(64)));

template <class T>
__attribute__((noinline, cold)) std::add_lvalue_reference_t<T> index_fault(const char* name,
                                                                           int64_t index,
                                                                           int64_t length) {
  static_assert(sizeof(T) <= sizeof dummy, "checked pointers take elements of at most 256 bytes");
  block->runtime->index_fault(block, name, index, length, self());
  memset(dummy, 0, sizeof dummy);
  return *reinterpret_cast<T*>(dummy);
}

template <class I>
using if_index = std::enable_if_t<std::is_integral<I>::value || std::is_enum<I>::value, int>;

}  // namespace gpuvec_emu

// A pointer parameter of a kernel compiled checked (gpuvec rewrites
// `float* out` into `gpuvec_checked<float> out`): a pointer into one
// argument's array that checks every access against the array's bounds. Out
// of bounds, the launch's first fault is recorded and the access goes to a
// dummy element, so nothing is corrupted and the kernel runs on. Raw pointers
// taken from it (&p[i], or converting it to T*) are not checked.
template <class T>
class gpuvec_checked {
 public:
  using reference = std::add_lvalue_reference_t<T>;

  explicit gpuvec_checked(const gpuvec_emulation_pointer& arg)
      : base_(static_cast<T*>(arg.data)), offset_(0), length_(length_of(arg)), name_(arg.name) {}

  template <class I, gpuvec_emu::if_index<I> = 0>
  reference operator[](I i) const {
    return at(static_cast<int64_t>(i));
  }
  reference operator*() const { return at(0); }
  T* operator->() const { return &at(0); }

  // To T* implicitly, for a device function that takes a T*; to another
  // pointer type only explicitly, as a cast.
  operator T*() const { return base_ + offset_; }
  template <class U>
  explicit operator U*() const {
    return (U*)(base_ + offset_);
  }

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
  // p - q, p == q, p < q, p == nullptr: the built-in operators, through T*.

 private:
  static int64_t length_of(const gpuvec_emulation_pointer& arg) {
    if constexpr (std::is_void<T>::value) {
      return arg.count;
    } else {  // in elements of T, should they differ from the array's
      return arg.itemsize > 0 ? arg.count * arg.itemsize / static_cast<int64_t>(sizeof(T))
                              : arg.count;
    }
  }

  reference at(int64_t i) const {
    const int64_t k =
        static_cast<int64_t>(static_cast<uint64_t>(offset_) + static_cast<uint64_t>(i));
    if (__builtin_expect(static_cast<uint64_t>(k) < static_cast<uint64_t>(length_), 1))
      return base_[k];
    return gpuvec_emu::index_fault<T>(name_, k, length_);
  }

  T* base_;
  int64_t offset_;  // where the pointer points, from base_, in elements
  int64_t length_;
  const char* name_;
};

template <class T>
inline std::remove_const_t<T> __ldg(gpuvec_checked<T> p) {
  return *p;
}

// The atomics on a checked pointer check the element.
#define GPUVEC_EMU_CHECKED(name)                                             \
  template <class T, class... V>                                             \
  inline auto name(gpuvec_checked<T> p, V... v)->decltype(name(&*p, v...)) { \
    return name(&*p, v...);                                                  \
  }
GPUVEC_EMU_CHECKED(atomicAdd)
GPUVEC_EMU_CHECKED(atomicSub)
GPUVEC_EMU_CHECKED(atomicAnd)
GPUVEC_EMU_CHECKED(atomicOr)
GPUVEC_EMU_CHECKED(atomicXor)
GPUVEC_EMU_CHECKED(atomicExch)
GPUVEC_EMU_CHECKED(atomicMin)
GPUVEC_EMU_CHECKED(atomicMax)
GPUVEC_EMU_CHECKED(atomicCAS)
GPUVEC_EMU_CHECKED(atomicInc)
GPUVEC_EMU_CHECKED(atomicDec)
#undef GPUVEC_EMU_CHECKED

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
  static void run_block(gpuvec_emulation_block* b, void* const* params) {
    begin_block(b);
    if (b->cooperative) {
      b->runtime->run_threads(b, &fiber, const_cast<void**>(params));
    } else {
      plain(b, params, std::index_sequence_for<P...>{});
    }
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
  // flatten: the kernel and what it calls are inlined into the loop.
  __attribute__((noinline, flatten)) static void loop(gpuvec_emulation_dim3 d, P... p) {
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
    ::gpuvec_emu::Kernel<__VA_ARGS__>::run_block(block, params);                             \
  }

#endif  // GPUVEC_CUDA_EMULATION_H
