// The fiber switch on x86-64 (System V ABI).
//
// Callee-saved: rbx, rbp, r12-r15 and rsp (and the x87 and SSE control
// words, which all fibers share; see fiber.hpp). A switch pushes the six
// registers on the running stack, swaps stack pointers and pops the other
// fiber's six; its `ret` then returns into that fiber's own call of
// gpuvec_fiber_switch.
#include "fiber.hpp"

#if GPUVEC_FIBER_ASM && defined(__x86_64__)

#include <stdint.h>

extern "C" __attribute__((visibility("hidden"))) void gpuvec_fiber_start();

asm(R"(
  .text
  .globl gpuvec_fiber_switch
  .hidden gpuvec_fiber_switch
  .type gpuvec_fiber_switch, @function
  .p2align 4
gpuvec_fiber_switch:            # (void** save_sp = rdi, void* load_sp = rsi)
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size gpuvec_fiber_switch, .-gpuvec_fiber_switch

  # A new fiber's first switch "returns" here, with the function in r12 and
  # its argument in r13 (see fiber_prepare). The function never returns.
  .globl gpuvec_fiber_start
  .hidden gpuvec_fiber_start
  .type gpuvec_fiber_start, @function
  .p2align 4
gpuvec_fiber_start:
  .cfi_startproc
  .cfi_undefined rip            # the outermost frame, for debuggers and unwinders
  movq %r13, %rdi
  callq *%r12
  ud2
  .cfi_endproc
  .size gpuvec_fiber_start, .-gpuvec_fiber_start
)");

namespace gpuvec::host::emulation {

void fiber_prepare(FiberContext& fiber, void* stack, size_t size, void (*fn)(void*), void* arg) {
  // The frame that gpuvec_fiber_switch pops: r15, r14, r13, r12, rbx, rbp,
  // then the return address. After the pops and the ret, rsp must be 16-byte
  // aligned, so that the call in gpuvec_fiber_start enters fn as the ABI says.
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + size) & ~uintptr_t{15};
  void** frame = reinterpret_cast<void**>(top - 9 * sizeof(void*));  // top - 72: 8 mod 16
  frame[0] = nullptr;                                                // r15
  frame[1] = nullptr;                                                // r14
  frame[2] = arg;                                                    // r13
  frame[3] = reinterpret_cast<void*>(fn);                            // r12
  frame[4] = nullptr;                                                // rbx
  frame[5] = nullptr;                                                // rbp: ends the frame chain
  frame[6] = reinterpret_cast<void*>(&gpuvec_fiber_start);           // ret goes here
  frame[7] = nullptr;
  frame[8] = nullptr;
  fiber.sp = frame;
  fiber_set_stack(fiber, stack, size);
}

}  // namespace gpuvec::host::emulation

#endif
