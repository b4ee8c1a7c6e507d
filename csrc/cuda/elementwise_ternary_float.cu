// The elementwise ops of three inputs (clip and where) computing in float32, on
// float32 inputs and on float64 ones, on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
#define GPUVEC_ARITY_3(T, S) GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 3)
GPUVEC_INPUT_TYPES_FLOAT(GPUVEC_ARITY_3)
#undef GPUVEC_ARITY_3
}  // namespace gpuvec::cuda
