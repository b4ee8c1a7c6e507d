// The elementwise ops of one input (unary ops and scale) on the CUDA backend (see
// elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
GPUVEC_INSTANTIATE_ELEMENTWISE(float, 1)
GPUVEC_INSTANTIATE_ELEMENTWISE(double, 1)
GPUVEC_INSTANTIATE_ELEMENTWISE(bool, 1)  // the truth-value ops on bool arrays
}  // namespace gpuvec::cuda
