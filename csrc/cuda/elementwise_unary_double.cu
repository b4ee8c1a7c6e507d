// The elementwise ops of one input (unary ops and scale) computing in float64, on
// float64 inputs and on float32 ones, on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
#define GPUVEC_ARITY_1(T, S) GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 1)
GPUVEC_INPUT_TYPES_DOUBLE(GPUVEC_ARITY_1)
#undef GPUVEC_ARITY_1
}  // namespace gpuvec::cuda
