// Fibers: user-space threads that switch only when told to, each on a stack
// of its own. The threads of a cooperative block run as fibers of one OS
// thread, and the scheduler switches between them at barriers.
//
// A switch saves the registers that the calling convention says survive a
// call (the callee-saved ones) on the running fiber's stack, keeps its stack
// pointer, then loads the other fiber's. In our own assembly that is a few
// nanoseconds (one file per CPU architecture: fiber_x86_64.cpp,
// fiber_aarch64.cpp). Elsewhere, or with GPUVEC_FIBER_UCONTEXT defined,
// ucontext's swapcontext does it (fiber_ucontext.cpp): portable, but it makes
// a system call (for the signal mask) at every switch.
//
// All fibers of a block share the OS thread's floating-point environment
// (rounding mode, exception flags): CUDA's threads have no such state to keep.
#ifndef GPUVEC_HOST_EMULATION_FIBER_HPP
#define GPUVEC_HOST_EMULATION_FIBER_HPP

#include <stddef.h>

#if !defined(GPUVEC_FIBER_UCONTEXT) && defined(__ELF__) && \
    (defined(__x86_64__) || defined(__aarch64__))
#define GPUVEC_FIBER_ASM 1
#else
#define GPUVEC_FIBER_ASM 0
#include <ucontext.h>
#endif

// AddressSanitizer must be told of each switch, or it takes the new stack for
// an overflow of the old one.
#if defined(__SANITIZE_ADDRESS__)
#define GPUVEC_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUVEC_FIBER_ASAN 1
#endif
#endif
#ifndef GPUVEC_FIBER_ASAN
#define GPUVEC_FIBER_ASAN 0
#endif
#if GPUVEC_FIBER_ASAN
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if GPUVEC_FIBER_ASM
// In fiber_<architecture>.cpp: saves the callee-saved registers on the
// running stack, stores the stack pointer at *save_sp, switches to load_sp and
// restores the registers saved there.
extern "C" __attribute__((visibility("hidden"))) void gpuvec_fiber_switch(void** save_sp,
                                                                          void* load_sp);
#endif

namespace gpuvec::host::emulation {

// Where a suspended fiber resumes.
struct FiberContext {
#if GPUVEC_FIBER_ASM
  void* sp = nullptr;  // its registers are saved on its stack, at sp
#else
  ucontext_t context;
#endif
#if GPUVEC_FIBER_ASAN
  const void* stack = nullptr;
  size_t stack_size = 0;
  void* fake_stack = nullptr;
#endif
};

// Makes `fiber` start fn(arg) on [stack, stack + size) when first switched
// to. fn must never return: it ends by switching away for good.
void fiber_prepare(FiberContext& fiber, void* stack, size_t size, void (*fn)(void*), void* arg);

// fiber_prepare's bookkeeping for AddressSanitizer: the stack, and a clean
// slate on it (a fiber that was given up, e.g. after a failed assert, left its
// frames' redzones poisoned).
inline void fiber_set_stack(FiberContext& fiber, void* stack, size_t size) {
#if GPUVEC_FIBER_ASAN
  __asan_unpoison_memory_region(stack, size);
  fiber.stack = stack;
  fiber.stack_size = size;
#else
  (void)fiber, (void)stack, (void)size;
#endif
}

#if !GPUVEC_FIBER_ASM
void fiber_swap(FiberContext& from, FiberContext& to);  // fiber_ucontext.cpp
#endif

// Saves the running fiber in `from` and resumes `to`; returns when something
// switches back to `from`. A fiber that ends (is never resumed) says so, for
// AddressSanitizer's bookkeeping.
inline void fiber_switch(FiberContext& from, FiberContext& to, bool from_ends = false) {
#if GPUVEC_FIBER_ASAN
  __sanitizer_start_switch_fiber(from_ends ? nullptr : &from.fake_stack, to.stack, to.stack_size);
#else
  (void)from_ends;
#endif
#if GPUVEC_FIBER_ASM
  gpuvec_fiber_switch(&from.sp, to.sp);
#else
  fiber_swap(from, to);
#endif
#if GPUVEC_FIBER_ASAN
  __sanitizer_finish_switch_fiber(from.fake_stack, nullptr, nullptr);
#endif
}

// The first thing a new fiber does.
inline void fiber_started() {
#if GPUVEC_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

// For the context of the OS thread itself (AddressSanitizer wants its stack).
inline void fiber_describe_thread(FiberContext& fiber) {
#if GPUVEC_FIBER_ASAN
  pthread_attr_t attr;
  void* stack = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &stack, &size);
    pthread_attr_destroy(&attr);
  }
  fiber.stack = stack;
  fiber.stack_size = size;
#else
  (void)fiber;
#endif
}

}  // namespace gpuvec::host::emulation

#endif  // GPUVEC_HOST_EMULATION_FIBER_HPP
