// Conversions, strided copies and fills on the CUDA backend: the identity
// functor over the map kernels (own_map.hpp), reading x through an Operand
// that converts each element from From to To as it loads it, so that a
// conversion gets the same contiguous packs, rows and strided walks as the ops.
#include <string>

#include "../kit/backends.hpp"
#include "gpuvec/ops.hpp"
#include "own_map.hpp"

namespace gpuvec::cuda {

template <class To, class From>
void cast(const Layout<2>& L, To* out, Operand<From> x, gpuvec_stream stream) {
  const Operand<To, From> converting{x.p, convert<To>(x.value)};
  map(
      L, ops::Identity{}, [] { return std::string("gpuvec::ops::Identity"); }, out, 0, stream,
      converting);
}

#define GPUVEC_INSTANTIATE(To, From) \
  template void cast<To, From>(const Layout<2>&, To*, Operand<From>, gpuvec_stream);
GPUVEC_CAST_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::cuda
