// The elementwise ops of three inputs (clip and where) on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
GPUVEC_INSTANTIATE_ELEMENTWISE(float, 3)
GPUVEC_INSTANTIATE_ELEMENTWISE(double, 3)
}  // namespace gpuvec::cuda
