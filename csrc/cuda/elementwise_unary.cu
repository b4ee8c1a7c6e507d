// The elementwise ops of one input (unary ops and scale) on the CUDA backend (see
// elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
GPUVEC_INSTANTIATE_ELEMENTWISE(float, 1)
GPUVEC_INSTANTIATE_ELEMENTWISE(double, 1)
}  // namespace gpuvec::cuda
