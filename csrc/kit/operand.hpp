// The inputs of gpuvec's own elementwise ops, as Operands
// (gpuvec/operand.hpp), and the order in which each functor takes them.
#ifndef GPUVEC_KIT_OPERAND_HPP
#define GPUVEC_KIT_OPERAND_HPP

#include <stdint.h>

#include <type_traits>

#include "gpuvec/operand.hpp"
#include "gpuvec/ops.hpp"

namespace gpuvec {

// The inputs of an elementwise op that computes in T, stored as S (see
// Operand). Every input is one of these, except where's condition (its input
// 0), which is bytes: `cond`, with in[0] unused.
template <class T, int Arity, class S = T>
struct Inputs {
  Operand<T, S> in[Arity];
  Operand<uint8_t> cond;
};

// Calls body(operands...) with the inputs in the order and types functor F
// takes them.
template <class F, class T, int Arity, class S, class Body>
void with_operands(const Inputs<T, Arity, S>& in, Body&& body) {
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
