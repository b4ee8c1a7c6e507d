// The elementwise ops that compute in bool (every input a bool array: the
// truth-value ops, and where), of every arity, on the CUDA backend (see
// elementwise.cuh). Few ops compute in bool, so one file holds them all.
#include "elementwise.cuh"

namespace gpuvec::cuda {
GPUVEC_INPUT_TYPES_BOOL(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)
}  // namespace gpuvec::cuda
