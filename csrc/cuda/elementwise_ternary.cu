// The elementwise ops of three inputs (clip and where) on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
#define GPUVEC_ARITY_3(T, S) GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 3)
GPUVEC_INPUT_TYPES(GPUVEC_ARITY_3)  // bool: the truth-value ops on bool arrays
#undef GPUVEC_ARITY_3
}  // namespace gpuvec::cuda
