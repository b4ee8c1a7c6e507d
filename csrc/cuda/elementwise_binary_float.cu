// The elementwise ops of two inputs computing in float32, on
// float32 inputs and on float64 ones, on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
#define GPUVEC_ARITY_2(T, S) GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 2)
GPUVEC_INPUT_TYPES_FLOAT(GPUVEC_ARITY_2)
#undef GPUVEC_ARITY_2
}  // namespace gpuvec::cuda
