// The elementwise ops of two inputs on the CUDA backend (see elementwise.cuh).
#include "elementwise.cuh"

namespace gpuvec::cuda {
GPUVEC_INSTANTIATE_ELEMENTWISE(float, 2)
GPUVEC_INSTANTIATE_ELEMENTWISE(double, 2)
GPUVEC_INSTANTIATE_ELEMENTWISE(bool, 2)  // the truth-value ops on bool arrays
}  // namespace gpuvec::cuda
