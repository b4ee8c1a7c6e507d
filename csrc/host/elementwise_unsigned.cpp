// The host backend's elementwise ops computing in the unsigned integer dtypes
// (elementwise.hpp).
#include "elementwise.hpp"

namespace gpuvec::host {

GPUVEC_INPUT_TYPES_UNSIGNED(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)

}  // namespace gpuvec::host
