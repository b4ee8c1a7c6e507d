// Maps the ABI's op enum to the functor that implements it.
#ifndef GPUVEC_COMMON_DISPATCH_HPP
#define GPUVEC_COMMON_DISPATCH_HPP

#include <string>

#include "error.hpp"
#include "gpuvec/ops.h"
#include "gpuvec/ops.hpp"

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
  }
  throw_invalid_argument("unknown binary op " + std::to_string(static_cast<int>(op)));
}

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_DISPATCH_HPP
