// Hot loops over float32 data compiled a second time for AVX2, where the
// build's baseline (SSE2 on x86-64) lacks it, and picked at run time by the
// CPU: converting float32 to double, which bounds them, AVX2 takes 4
// elements per instruction and SSE2 only 2. The same source without FMA: the
// same operations in the same order, so both copies give the same bits.
#ifndef GPUVEC_HOST_ISA_HPP
#define GPUVEC_HOST_ISA_HPP

#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__AVX2__)
#define GPUVEC_AVX2_CLONES 1
#else
#define GPUVEC_AVX2_CLONES 0
#endif

// Marks the lambda given to with_avx2, whose body must be compiled into
// each copy (written after its parameter list: `[&]() GPUVEC_INLINE {...}`).
#define GPUVEC_INLINE __attribute__((always_inline))

namespace gpuvec::host {

#if GPUVEC_AVX2_CLONES
// Whether this CPU, and its operating system, run AVX2 instructions.
inline bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

template <class F>
__attribute__((target("avx2"))) auto call_avx2(const F& f) {
  return f();
}
#endif

// f(), from the copy of f's body compiled for AVX2 where the elements it
// reads, T, are float32 and the CPU has AVX2. (Loops over float64 elements
// are bound by memory: a whole sum ran 5% slower with AVX2.) The loops that
// f's body inlines are vectorized for each copy.
template <class T, class F>
auto with_avx2(const F& f) {
#if GPUVEC_AVX2_CLONES
  if constexpr (std::is_same_v<T, float>) {
    if (has_avx2()) return call_avx2(f);
  }
#endif
  return f();
}

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_ISA_HPP
