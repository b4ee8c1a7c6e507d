// The elementwise ops of two inputs on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
#define GPUVEC_ARITY_2(T, S) GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 2)
GPUVEC_INPUT_TYPES(GPUVEC_ARITY_2)  // bool: the truth-value ops on bool arrays
#undef GPUVEC_ARITY_2
}  // namespace gpuvec::cuda
