// The fiber switch on AArch64 (AAPCS64).
//
// Callee-saved: x19-x28, the frame pointer x29, the link register x30, sp,
// and the low halves d8-d15 of v8-v15. A switch stores them in a 160-byte
// frame on the running stack, swaps stack pointers, loads the other fiber's
// frame and returns to its x30: into that fiber's own call of
// gpuvec_fiber_switch.
#include "fiber.hpp"

#if GPUVEC_FIBER_ASM && defined(__aarch64__)

#include <stdint.h>

extern "C" __attribute__((visibility("hidden"))) void gpuvec_fiber_start();

asm(R"(
  .text
  .globl gpuvec_fiber_switch
  .hidden gpuvec_fiber_switch
  .type gpuvec_fiber_switch, %function
  .p2align 4
gpuvec_fiber_switch:            // (void** save_sp = x0, void* load_sp = x1)
  sub sp, sp, #160
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mov x2, sp
  str x2, [x0]
  mov sp, x1
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #160
  ret
  .size gpuvec_fiber_switch, .-gpuvec_fiber_switch

  // A new fiber's first switch returns here, with the function in x19 and
  // its argument in x20 (see fiber_prepare). The function never returns.
  .globl gpuvec_fiber_start
  .hidden gpuvec_fiber_start
  .type gpuvec_fiber_start, %function
  .p2align 4
gpuvec_fiber_start:
  .cfi_startproc
  .cfi_undefined x30            // the outermost frame, for debuggers and unwinders
  mov x0, x20
  blr x19
  brk #0
  .cfi_endproc
  .size gpuvec_fiber_start, .-gpuvec_fiber_start
)");

namespace gpuvec::host::emulation {

void fiber_prepare(FiberContext& fiber, void* stack, size_t size, void (*fn)(void*), void* arg) {
  // The frame that gpuvec_fiber_switch loads (sp stays 16-byte aligned).
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + size) & ~uintptr_t{15};
  void** frame = reinterpret_cast<void**>(top - 160);
  for (int i = 0; i < 20; ++i) frame[i] = nullptr;
  frame[0] = reinterpret_cast<void*>(fn);                    // x19
  frame[1] = arg;                                            // x20
  frame[10] = nullptr;                                       // x29: ends the frame chain
  frame[11] = reinterpret_cast<void*>(&gpuvec_fiber_start);  // x30: ret goes here
  fiber.sp = frame;
  fiber_set_stack(fiber, stack, size);
}

}  // namespace gpuvec::host::emulation

#endif
