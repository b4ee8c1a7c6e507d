// The host backend's elementwise ops computing in the signed integer dtypes
// (elementwise.hpp).
#include "elementwise.hpp"

namespace gpuvec::host {

GPUVEC_INPUT_TYPES_SIGNED(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)

}  // namespace gpuvec::host
