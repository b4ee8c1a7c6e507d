// The op table as data, for bindings (gpuvec_elementwise_ops,
// gpuvec_reduce_ops) and for the boundary's checks: one row per row of
// gpuvec/op_table.h, found by its code.
#include "op_table.hpp"

#include <string.h>

#include <string>

#include "../kit/error.hpp"

namespace {

// gpuvec_op_info.reads_truth of each value of the result column.
#define GPUVEC_READS_TRUTH_SAME 0
#define GPUVEC_READS_TRUTH_BOOL 0
#define GPUVEC_READS_TRUTH_INT64 0
#define GPUVEC_READS_TRUTH_UINT8 0
#define GPUVEC_READS_TRUTH_TRUTH 1

#define GPUVEC_INFO_ROW(code, NAME, name, numpy, arity, params, result, kinds, Functor, rounding, \
                        host_ulps, cuda_ulps, summary)                                            \
  {GPUVEC_##NAME,                                                                                 \
   #name,                                                                                         \
   arity,                                                                                         \
   params,                                                                                        \
   summary,                                                                                       \
   GPUVEC_RESULT_##result,                                                                        \
   GPUVEC_READS_TRUTH_##result,                                                                   \
   numpy,                                                                                         \
   #Functor,                                                                                      \
   GPUVEC_ROUNDING_##rounding,                                                                    \
   host_ulps,                                                                                     \
   cuda_ulps,                                                                                     \
   "",                                                                                            \
   "",                                                                                            \
   "",                                                                                            \
   kinds},
const gpuvec_op_info kElementwiseOps[] = {GPUVEC_ELEMENTWISE_OPS(GPUVEC_INFO_ROW)};
#undef GPUVEC_INFO_ROW

// A reduction has no parameters and no ulp budget of its own; its result
// column is gpuvec_op_info.result.
#define GPUVEC_INFO_ROW(code, NAME, name, numpy, ufunc, inputs, result, Policy, traits, warning, \
                        summary)                                                                 \
  {GPUVEC_REDUCE_##NAME,                                                                         \
   #name,                                                                                        \
   inputs,                                                                                       \
   0,                                                                                            \
   summary,                                                                                      \
   GPUVEC_RESULT_##result,                                                                       \
   0,                                                                                            \
   numpy,                                                                                        \
   #Policy,                                                                                      \
   0,                                                                                            \
   0,                                                                                            \
   0,                                                                                            \
   ufunc,                                                                                        \
   traits,                                                                                       \
   warning,                                                                                      \
   ""},
const gpuvec_op_info kReduceOps[] = {GPUVEC_REDUCE_OPS(GPUVEC_INFO_ROW)};
#undef GPUVEC_INFO_ROW

constexpr int kElementwiseCount = sizeof(kElementwiseOps) / sizeof(kElementwiseOps[0]);
constexpr int kReduceCount = sizeof(kReduceOps) / sizeof(kReduceOps[0]);

// Row index by op code (-1: no row), so that codes may be in any order and
// have gaps. The table is checked as it is built: a code out of range or
// given to two rows stops the compilation.
struct Index {
  int row[GPUVEC_OP_CODE_LIMIT];
};

template <int N>
constexpr Index index_of(const int (&codes)[N]) {
  Index index{};
  for (int c = 0; c < GPUVEC_OP_CODE_LIMIT; ++c) index.row[c] = -1;
  for (int i = 0; i < N; ++i) {
    const int code = codes[i];
    if (code <= 0 || code >= GPUVEC_OP_CODE_LIMIT) throw "an op code is out of range";
    if (index.row[code] != -1) throw "two rows of the op table share a code";
    index.row[code] = i;
  }
  return index;
}

#define GPUVEC_CODE_ROW(code, ...) code,
constexpr int kElementwiseCodes[] = {GPUVEC_ELEMENTWISE_OPS(GPUVEC_CODE_ROW)};
constexpr int kReduceCodes[] = {GPUVEC_REDUCE_OPS(GPUVEC_CODE_ROW)};
#undef GPUVEC_CODE_ROW
constexpr Index kElementwiseIndex = index_of(kElementwiseCodes);
constexpr Index kReduceIndex = index_of(kReduceCodes);
static_assert(sizeof(kElementwiseCodes) / sizeof(int) == kElementwiseCount, "one code per row");
static_assert(sizeof(kReduceCodes) / sizeof(int) == kReduceCount, "one code per row");

const gpuvec_op_info* find(const gpuvec_op_info* rows, const Index& index, int code) {
  if (code <= 0 || code >= GPUVEC_OP_CODE_LIMIT || index.row[code] < 0) return nullptr;
  return &rows[index.row[code]];
}

}  // namespace

namespace gpuvec {

const gpuvec_op_info& elementwise_info(gpuvec_op op) {
  const int code = static_cast<int>(op);
  const gpuvec_op_info* row = find(kElementwiseOps, kElementwiseIndex, code);
  if (row == nullptr)
    throw_invalid_argument("unknown elementwise op code " + std::to_string(code));
  return *row;
}

const gpuvec_op_info& reduce_info(gpuvec_reduce_op op) {
  const int code = static_cast<int>(op);
  const gpuvec_op_info* row = find(kReduceOps, kReduceIndex, code);
  if (row == nullptr) throw_invalid_argument("unknown reduce op code " + std::to_string(code));
  return *row;
}

bool has_trait(const gpuvec_op_info& info, const char* word) {
  const size_t n = strlen(word);
  for (const char* p = info.traits; (p = strstr(p, word)) != nullptr; p += n) {
    const bool starts = p == info.traits || p[-1] == ' ';
    if (starts && (p[n] == '\0' || p[n] == ' ')) return true;
  }
  return false;
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
