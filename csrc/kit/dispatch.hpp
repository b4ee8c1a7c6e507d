// From an op code to the functor that implements it, generated from the op
// table (gpuvec/op_table.h): one switch case per row, so a new row needs no
// edit here.
#ifndef GPUVEC_KIT_DISPATCH_HPP
#define GPUVEC_KIT_DISPATCH_HPP

#include <stdint.h>

#include <string>
#include <type_traits>

#include "error.hpp"
#include "gpuvec/gpuvec.h"
#include "gpuvec/ops.hpp"
#include "gpuvec/reduce_ops.hpp"

namespace gpuvec {

// The functor of Op computing in T: Op::Of<T> for an op with parameters (see
// ops.hpp), else Op itself.
template <class Op, class T, class = void>
struct Typed {
  using type = Op;
};
template <class Op, class T>
struct Typed<Op, T, std::void_t<typename Op::template Of<T>>> {
  using type = typename Op::template Of<T>;
};

// The functor of an op of `Params` parameters, rounded to T once here.
template <class Op, class T, int Params>
typename Typed<Op, T>::type make_op(const double* params) {
  using F = typename Typed<Op, T>::type;
  if constexpr (Params == 0) {
    (void)params;
    return F{};
  } else if constexpr (Params == 1) {
    return F{static_cast<T>(params[0])};
  } else {
    static_assert(Params == 2, "an op has at most two parameters");
    return F{static_cast<T>(params[0]), static_cast<T>(params[1])};
  }
}

template <int N>
using Arity = std::integral_constant<int, N>;

// The C++ type of an op's result when it computes in T: T itself, bool for
// the rows whose result is a truth value, uint8_t for a count of bits.
template <class T, int Result>
using ResultOf = std::conditional_t<Result == GPUVEC_BOOL, bool,
                                    std::conditional_t<Result == GPUVEC_UINT8, uint8_t, T>>;

// The letter of the op table's kinds column that stands for computing in T:
// f a float, b bool, i a signed integer, c a complex; an unsigned one is
// under i or u.
template <class T>
constexpr bool kinds_include(const char* kinds) {
  for (; *kinds != '\0'; ++kinds) {
    const char k = *kinds;
    if (is_complex_v<T> && k == 'c') return true;
    if (std::is_floating_point_v<T> && k == 'f') return true;
    if (std::is_same_v<T, bool> && k == 'b') return true;
    if (std::is_integral_v<T> && !std::is_same_v<T, bool> && k == 'i') return true;
    if (std::is_unsigned_v<T> && !std::is_same_v<T, bool> && k == 'u') return true;
  }
  return false;
}

// How a row's functor type is spelled in C++ source: ops::Functor, or
// ops::Functor::Of<T> for a row whose functor holds its parameters in the
// compute type T. The CUDA backend names the kernels it compiles at first
// use with it; the host backend, whose kernels are compiled in, ignores it.
struct FunctorName {
  const char* op;        // "gpuvec::ops::Functor"
  bool of_compute_type;  // the type is op::Of<T>
};

// Calls visit(functor, Arity<n>{}, static_cast<Out*>(nullptr), FunctorName)
// with op's functor computing in T, its number of inputs, the type of its
// result and the functor's name. A backend compiles its kernels for the ops
// of one arity at a time, discarding the others with `if constexpr`.
template <class T, class Visitor>
void visit_op(gpuvec_op op, const double* params, Visitor&& visit) {
  switch (op) {
#define GPUVEC_VISIT_ROW(code, NAME, name, numpy, arity, n_params, result, kinds, Functor,        \
                         rounding, host_ulps, cuda_ulps, summary)                                 \
  case GPUVEC_##NAME:                                                                             \
    if constexpr (kinds_include<T>(kinds)) {                                                      \
      using Out = ResultOf<T, GPUVEC_RESULT_##result>;                                            \
      return visit(                                                                               \
          make_op<ops::Functor, T, n_params>(params), Arity<arity>{}, static_cast<Out*>(nullptr), \
          FunctorName{"gpuvec::ops::" #Functor,                                                   \
                      !std::is_same_v<typename Typed<ops::Functor, T>::type, ops::Functor>});     \
    }                                                                                             \
    break;
    GPUVEC_ELEMENTWISE_OPS(GPUVEC_VISIT_ROW)
#undef GPUVEC_VISIT_ROW
  }
  throw_invalid_argument("elementwise op " + std::to_string(static_cast<int>(op)) +
                         " does not compute in this dtype");
}

// The row policy of a reduction row: var and std are Deviations, whose first
// pass (the means) the backend runs; mean_var and mean_std MeanDeviations,
// which write each row's deviation `plane` elements past its mean.
template <class Policy>
auto make_policy(double ddof, int64_t plane) {
  namespace r = ops::reduce;
  if constexpr (std::is_same_v<Policy, r::Var>) {
    return r::Deviations{nullptr, ddof, false};
  } else if constexpr (std::is_same_v<Policy, r::Std>) {
    return r::Deviations{nullptr, ddof, true};
  } else if constexpr (std::is_same_v<Policy, r::MeanVar>) {
    return r::MeanDeviation{r::Variance{ddof, false}, plane};
  } else if constexpr (std::is_same_v<Policy, r::MeanStd>) {
    return r::MeanDeviation{r::Variance{ddof, true}, plane};
  } else {
    (void)ddof;
    (void)plane;
    return Policy{};
  }
}

// The C++ name of the policy make_policy<Policy> returns: `row`, the row's
// own, except for the four rows whose policy is made from their tag.
template <class Policy>
constexpr const char* policy_name(const char* row) {
  namespace r = ops::reduce;
  if constexpr (std::is_same_v<Policy, r::Var> || std::is_same_v<Policy, r::Std>) {
    return "gpuvec::ops::reduce::Deviations";
  } else if constexpr (std::is_same_v<Policy, r::MeanVar> || std::is_same_v<Policy, r::MeanStd>) {
    return "gpuvec::ops::reduce::MeanDeviation";
  } else {
    return row;
  }
}

// Whether the space-separated words of `words` (a traits column) include `word`.
constexpr bool has_word(const char* words, const char* word) {
  for (int i = 0;; ++i) {
    if (i == 0 || words[i - 1] == ' ') {
      int k = 0;
      while (word[k] != '\0' && words[i + k] == word[k]) ++k;
      if (word[k] == '\0' && (words[i + k] == '\0' || words[i + k] == ' ')) return true;
    }
    if (words[i] == '\0') return false;
  }
}

// A row policy's integer form, Policy::Whole<I> (reduce_ops.hpp), named
// through a template so that it is looked up only for the rows that have one.
template <class Policy, class I>
struct WholeOf {
  using type = typename Policy::template Whole<I>;
};

// The C++ type names of the integer types, for the policies' names.
template <class T>
constexpr const char* integer_name() {
  if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
  if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
  return "uint64_t";
}

template <class T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Calls visit(policy, Out{}, name) with the row reduction of op, the type of
// its output and the policy's C++ name (policy_name), by the row's result column: T (SAME),
// int64_t (INT64: argmin, argmax, count_nonzero) or bool (BOOL: any, all). Ops of two inputs (dot)
// are no row reduction: the boundary sends them to the backends' dot, and
// they throw here. For T = bool only the rows that read x in its own dtype
// (the own_dtype trait: any, all, count_nonzero, which ask only whether an
// element is nonzero) are compiled (the boundary converts bool x to a float
// dtype for the others); the rest throw. For an integer T, the rows with the
// integers trait run their policy's Whole<T>, the own_dtype rows their own
// policy, and the rest throw (the caller computes them in float64).
template <class T, class Visitor>
void visit_reduce_op(gpuvec_reduce_op op, double ddof, int64_t plane, Visitor&& visit) {
  switch (op) {
#define GPUVEC_VISIT_ROW(code, NAME, name, numpy, ufunc, inputs, result, Policy, traits, warning, \
                         summary)                                                                 \
  case GPUVEC_REDUCE_##NAME:                                                                      \
    if constexpr (inputs != 1) {                                                                  \
      throw Error(GPUVEC_ERROR_INTERNAL, #name " of two inputs is no row reduction");             \
    } else if constexpr (std::is_same_v<T, bool> && !has_word(traits, "own_dtype")) {             \
      throw Error(GPUVEC_ERROR_INTERNAL, #name " takes bool x converted to a float dtype");       \
    } else {                                                                                      \
      using Out =                                                                                 \
          std::conditional_t<GPUVEC_RESULT_##result == GPUVEC_INT64, int64_t,                     \
                             std::conditional_t<GPUVEC_RESULT_##result == GPUVEC_BOOL, bool, T>>; \
      if constexpr (kIsInteger<T> && has_word(traits, "integers")) {                              \
        return visit(                                                                             \
            typename WholeOf<ops::reduce::Policy, T>::type{}, Out{},                              \
            std::string("gpuvec::ops::reduce::" #Policy "::Whole<") + integer_name<T>() + ">");   \
      } else if constexpr (kIsInteger<T> && !has_word(traits, "own_dtype")) {                     \
        throw Error(GPUVEC_ERROR_INTERNAL, #name " takes integer x converted to float64");        \
      } else {                                                                                    \
        return visit(                                                                             \
            make_policy<ops::reduce::Policy>(ddof, plane), Out{},                                 \
            std::string(policy_name<ops::reduce::Policy>("gpuvec::ops::reduce::" #Policy)));      \
      }                                                                                           \
    }
    GPUVEC_REDUCE_OPS(GPUVEC_VISIT_ROW)
#undef GPUVEC_VISIT_ROW
  }
  throw_invalid_argument("unknown reduce op " + std::to_string(static_cast<int>(op)));
}

}  // namespace gpuvec

#endif  // GPUVEC_KIT_DISPATCH_HPP
