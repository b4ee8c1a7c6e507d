// The elementwise ops of three inputs (clip and where) on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
GPUVEC_INSTANTIATE_ELEMENTWISE(float, 3)
GPUVEC_INSTANTIATE_ELEMENTWISE(double, 3)
GPUVEC_INSTANTIATE_ELEMENTWISE(bool, 3)  // the truth-value ops on bool arrays
}  // namespace gpuvec::cuda
