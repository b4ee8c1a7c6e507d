// Conversions, strided copies and fills on the host backend.
#include "../kit/backends.hpp"
#include "map.hpp"

namespace gpuvec::host {
namespace {

template <class To>
struct Convert {
  template <class From>
  To operator()(From x) const {
    return static_cast<To>(x);
  }
};

}  // namespace

template <class To, class From>
void cast(const Layout<2>& L, To* out, Operand<From> x, gpuvec_stream) {
  map(L, Convert<To>{}, out, x);
}

#define GPUVEC_INSTANTIATE(To, From) \
  template void cast<To, From>(const Layout<2>&, To*, Operand<From>, gpuvec_stream);
GPUVEC_CAST_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::host
