// The op table as data, for bindings (gpuvec_elementwise_ops,
// gpuvec_reduce_ops) and for the boundary's checks: one row per line of
// gpuvec/op_table.h.
#include "op_table.hpp"

#include <string>

#include "../kit/error.hpp"

namespace {

// gpuvec_op_info.reads_truth of each value of the result column.
#define GPUVEC_READS_TRUTH_SAME 0
#define GPUVEC_READS_TRUTH_BOOL 0
#define GPUVEC_READS_TRUTH_INT64 0
#define GPUVEC_READS_TRUTH_TRUTH 1

#define GPUVEC_INFO_ROW(NAME, name, arity, params, result, Functor, summary) \
  {GPUVEC_##NAME,                                                            \
   #name,                                                                    \
   arity,                                                                    \
   params,                                                                   \
   summary,                                                                  \
   GPUVEC_RESULT_##result,                                                   \
   GPUVEC_READS_TRUTH_##result},
const gpuvec_op_info kElementwiseOps[] = {GPUVEC_ELEMENTWISE_OPS(GPUVEC_INFO_ROW)};
#undef GPUVEC_INFO_ROW

// A reduction has no parameters; its result column is gpuvec_op_info.result.
#define GPUVEC_INFO_ROW(NAME, name, inputs, result, Policy, summary) \
  {GPUVEC_REDUCE_##NAME, #name, inputs, 0, summary, GPUVEC_RESULT_##result, 0},
const gpuvec_op_info kReduceOps[] = {GPUVEC_REDUCE_OPS(GPUVEC_INFO_ROW)};
#undef GPUVEC_INFO_ROW

constexpr int kElementwiseCount = sizeof(kElementwiseOps) / sizeof(kElementwiseOps[0]);
constexpr int kReduceCount = sizeof(kReduceOps) / sizeof(kReduceOps[0]);
static_assert(kElementwiseCount == GPUVEC_OP_COUNT, "one row per elementwise op code");
static_assert(kReduceCount == GPUVEC_REDUCE_OP_COUNT, "one row per reduce op code");

}  // namespace

namespace gpuvec {

const gpuvec_op_info& elementwise_info(gpuvec_op op) {
  const int code = static_cast<int>(op);
  if (code < 0 || code >= kElementwiseCount) {
    throw_invalid_argument("unknown elementwise op code " + std::to_string(code));
  }
  return kElementwiseOps[code];
}

const gpuvec_op_info& reduce_info(gpuvec_reduce_op op) {
  const int code = static_cast<int>(op);
  if (code < 0 || code >= kReduceCount) {
    throw_invalid_argument("unknown reduce op code " + std::to_string(code));
  }
  return kReduceOps[code];
}

}  // namespace gpuvec

extern "C" {

const gpuvec_op_info* gpuvec_elementwise_ops(int* count) {
  if (count != nullptr) *count = kElementwiseCount;
  return kElementwiseOps;
}

const gpuvec_op_info* gpuvec_reduce_ops(int* count) {
  if (count != nullptr) *count = kReduceCount;
  return kReduceOps;
}

}  // extern "C"
