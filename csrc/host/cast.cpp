// Conversions, strided copies and fills on the host backend.
#include "../kit/backends.hpp"
#include "gpuvec/ops.hpp"
#include "map.hpp"

namespace gpuvec::host {

// The identity over an Operand that converts as it reads (convert<To>).
template <class To, class From>
void cast(const Layout<2>& L, To* out, Operand<From> x, gpuvec_stream) {
  const Operand<To, From> converting{x.p, convert<To>(x.value)};
  map(L, ops::Identity{}, out, converting);
}

#define GPUVEC_INSTANTIATE(To, From) \
  template void cast<To, From>(const Layout<2>&, To*, Operand<From>, gpuvec_stream);
GPUVEC_CAST_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::host
