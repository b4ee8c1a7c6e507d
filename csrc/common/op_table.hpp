// The rows of the op table (gpuvec/op_table.h), looked up by op code.
#ifndef GPUVEC_COMMON_OP_TABLE_HPP
#define GPUVEC_COMMON_OP_TABLE_HPP

#include "gpuvec/gpuvec.h"

namespace gpuvec {

// The row of op; throws for a code outside the table.
const gpuvec_op_info& elementwise_info(gpuvec_op op);
const gpuvec_op_info& reduce_info(gpuvec_reduce_op op);

// Whether a reduction row's traits column has the word `word` ("no_empty", ...).
bool has_trait(const gpuvec_op_info& info, const char* word);

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_OP_TABLE_HPP
