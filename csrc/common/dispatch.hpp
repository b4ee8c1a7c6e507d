// Maps the ABI's op enum to the functor that implements it.
#ifndef GPUVEC_COMMON_DISPATCH_HPP
#define GPUVEC_COMMON_DISPATCH_HPP

#include <stdint.h>

#include <string>

#include "error.hpp"
#include "gpuvec/ops.h"
#include "gpuvec/ops.hpp"
#include "gpuvec/reduce.h"
#include "gpuvec/reduce_ops.hpp"
#include "gpuvec/unary.h"

namespace gpuvec {

// Calls visit(functor) with the functor of op.
template <class Visitor>
void visit_binary_op(gpuvec_binary_op op, Visitor&& visit) {
  switch (op) {
    case GPUVEC_ADD:
      return visit(ops::Add{});
    case GPUVEC_SUBTRACT:
      return visit(ops::Subtract{});
    case GPUVEC_MULTIPLY:
      return visit(ops::Multiply{});
    case GPUVEC_DIVIDE:
      return visit(ops::Divide{});
    case GPUVEC_POWER:
      return visit(ops::Power{});
    case GPUVEC_MAXIMUM:
      return visit(ops::Maximum{});
    case GPUVEC_MINIMUM:
      return visit(ops::Minimum{});
    case GPUVEC_HYPOT:
      return visit(ops::Hypot{});
    case GPUVEC_ATAN2:
      return visit(ops::Atan2{});
  }
  throw_invalid_argument("unknown binary op " + std::to_string(static_cast<int>(op)));
}

template <class Visitor>
void visit_unary_op(gpuvec_unary_op op, Visitor&& visit) {
  switch (op) {
    case GPUVEC_NEGATIVE:
      return visit(ops::Negative{});
    case GPUVEC_ABS:
      return visit(ops::Abs{});
    case GPUVEC_SQRT:
      return visit(ops::Sqrt{});
    case GPUVEC_EXP:
      return visit(ops::Exp{});
    case GPUVEC_LOG:
      return visit(ops::Log{});
    case GPUVEC_LOG1P:
      return visit(ops::Log1p{});
    case GPUVEC_EXPM1:
      return visit(ops::Expm1{});
    case GPUVEC_SIN:
      return visit(ops::Sin{});
    case GPUVEC_COS:
      return visit(ops::Cos{});
    case GPUVEC_TANH:
      return visit(ops::Tanh{});
    case GPUVEC_SIGMOID:
      return visit(ops::Sigmoid{});
  }
  throw_invalid_argument("unknown unary op " + std::to_string(static_cast<int>(op)));
}

// Calls visit(op, Out{}) with the row reduction of op and the type of its
// output: T, or int64_t for the indices of ArgMin and ArgMax.
template <class T, class Visitor>
void visit_reduce_op(gpuvec_reduce_op op, double ddof, Visitor&& visit) {
  namespace r = ops::reduce;
  switch (op) {
    case GPUVEC_REDUCE_SUM:
      return visit(r::Sum{}, T{});
    case GPUVEC_REDUCE_MEAN:
      return visit(r::Mean{}, T{});
    case GPUVEC_REDUCE_MIN:
      return visit(r::Min{}, T{});
    case GPUVEC_REDUCE_MAX:
      return visit(r::Max{}, T{});
    case GPUVEC_REDUCE_ARGMIN:
      return visit(r::ArgMin{}, int64_t{});
    case GPUVEC_REDUCE_ARGMAX:
      return visit(r::ArgMax{}, int64_t{});
    case GPUVEC_REDUCE_PROD:
      return visit(r::Prod{}, T{});
    case GPUVEC_REDUCE_VAR:
      return visit(r::Deviations{nullptr, ddof, false}, T{});
    case GPUVEC_REDUCE_STD:
      return visit(r::Deviations{nullptr, ddof, true}, T{});
    case GPUVEC_REDUCE_NANSUM:
      return visit(r::NanSum{}, T{});
    case GPUVEC_REDUCE_NANMEAN:
      return visit(r::NanMean{}, T{});
    case GPUVEC_REDUCE_ASUM:
      return visit(r::AbsSum{}, T{});
    case GPUVEC_REDUCE_NRM2:
      return visit(r::Nrm2{}, T{});
  }
  throw_invalid_argument("unknown reduce op " + std::to_string(static_cast<int>(op)));
}

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_DISPATCH_HPP
