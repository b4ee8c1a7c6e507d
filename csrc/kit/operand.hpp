// An elementwise op's input as the kernels read it: an array, or one value
// that stands for every element (a Python scalar), which needs no memory.
#ifndef GPUVEC_KIT_OPERAND_HPP
#define GPUVEC_KIT_OPERAND_HPP

#include <stdint.h>

#include <type_traits>

#include "gpuvec/ops.hpp"

namespace gpuvec {

// V consecutive elements, moved by one aligned load or store (16 bytes when
// V * sizeof(T) == 16).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// Passed by value, as a kernel parameter. p is null for a scalar: the test is
// the same for every element of a launch, so no warp diverges on it and the
// host compiler can hoist it out of (unswitch) a contiguous loop. A scalar
// thus runs the kernels' contiguous path like an array, without a buffer
// being filled with copies of it first.
template <class T>
struct Operand {
  const T* p;  // element (0, ..., 0), or null: every element is `value`
  T value;

  GPUVEC_HD T at(int64_t offset) const { return p ? p[offset] : value; }

  // Pack i of a contiguous array whose p is aligned to a pack, or `value` in
  // every lane.
  template <int V>
  GPUVEC_HD Pack<T, V> pack(int64_t i) const {
    if (p) return reinterpret_cast<const Pack<T, V>*>(p)[i];
    Pack<T, V> r;
    for (int j = 0; j < V; ++j) r.v[j] = value;
    return r;
  }
};

// The inputs of an elementwise op that computes in T. Every input is a T,
// except where's condition (its input 0), which is bytes: `cond`, with in[0]
// unused.
template <class T, int Arity>
struct Inputs {
  Operand<T> in[Arity];
  Operand<uint8_t> cond;
};

// Calls body(operands...) with the inputs in the order and types functor F
// takes them.
template <class F, class T, int Arity, class Body>
void with_operands(const Inputs<T, Arity>& in, Body&& body) {
  if constexpr (std::is_same_v<F, ops::Where>) {
    static_assert(Arity == 3, "where takes a condition and two values");
    body(in.cond, in.in[1], in.in[2]);
  } else if constexpr (Arity == 1) {
    body(in.in[0]);
  } else if constexpr (Arity == 2) {
    body(in.in[0], in.in[1]);
  } else {
    body(in.in[0], in.in[1], in.in[2]);
  }
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_OPERAND_HPP
