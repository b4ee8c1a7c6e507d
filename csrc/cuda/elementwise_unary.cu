// The elementwise ops of one input (unary ops and scale) on the CUDA backend (see
// elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
#define GPUVEC_ARITY_1(T, S) GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 1)
GPUVEC_INPUT_TYPES(GPUVEC_ARITY_1)  // bool: the truth-value ops on bool arrays
#undef GPUVEC_ARITY_1
}  // namespace gpuvec::cuda
