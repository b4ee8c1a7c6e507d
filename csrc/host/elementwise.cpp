// The host backend's elementwise ops computing in float, double, bool and complex
// (elementwise.hpp), and users' compiled ElementwiseKernels.
#include "elementwise.hpp"

#include "../kit/kernel_backends.hpp"

namespace gpuvec::host {

GPUVEC_INPUT_TYPES_FLOAT(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)
GPUVEC_INPUT_TYPES_DOUBLE(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)
GPUVEC_INPUT_TYPES_BOOL(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)
GPUVEC_INPUT_TYPES_COMPLEX(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)

// run_map, a user's ElementwiseKernel, is in emulation/entries.cpp: it runs
// the user's code inside the emulation's sandbox.

}  // namespace gpuvec::host
