// The portable fiber switch: ucontext, where fiber_<architecture>.cpp has
// none (see fiber.hpp).
#include "fiber.hpp"

#if !GPUVEC_FIBER_ASM

#include <stdint.h>

#include "../../kit/error.hpp"

namespace gpuvec::host::emulation {
namespace {

// makecontext passes only int arguments: the function and its argument
// travel as halves of 64-bit words.
void start(unsigned int fn_high, unsigned int fn_low, unsigned int arg_high,
           unsigned int arg_low) {
  const auto join = [](unsigned int high, unsigned int low) {
    return static_cast<uintptr_t>((static_cast<uint64_t>(high) << 32) | low);
  };
  auto fn = reinterpret_cast<void (*)(void*)>(join(fn_high, fn_low));
  fn(reinterpret_cast<void*>(join(arg_high, arg_low)));
}

}  // namespace

void fiber_prepare(FiberContext& fiber, void* stack, size_t size, void (*fn)(void*), void* arg) {
  if (getcontext(&fiber.context) != 0)
    throw Error(GPUVEC_ERROR_INTERNAL, "getcontext failed for a fiber of the emulation");
  fiber.context.uc_stack.ss_sp = stack;
  fiber.context.uc_stack.ss_size = size;
  fiber.context.uc_link = nullptr;  // fn never returns
  const uint64_t f = reinterpret_cast<uintptr_t>(fn), a = reinterpret_cast<uintptr_t>(arg);
  makecontext(&fiber.context, reinterpret_cast<void (*)()>(&start), 4,
              static_cast<unsigned int>(f >> 32), static_cast<unsigned int>(f),
              static_cast<unsigned int>(a >> 32), static_cast<unsigned int>(a));
  fiber_set_stack(fiber, stack, size);
}

void fiber_swap(FiberContext& from, FiberContext& to) { swapcontext(&from.context, &to.context); }

}  // namespace gpuvec::host::emulation

#endif
