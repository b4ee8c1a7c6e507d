// Every elementwise op on the host backend (the loop is in map.hpp).
#include <stdint.h>

#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "map.hpp"

namespace gpuvec::host {

template <class T, int Arity>
void elementwise(gpuvec_op op, const Layout<Arity + 1>& L, void* out, const Inputs<T, Arity>& in,
                 const double* params, int, gpuvec_stream) {
  visit_op<T>(op, params, [&](auto f, auto arity, auto* result) {
    using F = decltype(f);
    using Out = std::remove_pointer_t<decltype(result)>;
    if constexpr (decltype(arity)::value == Arity) {
      with_operands<F>(in,
                       [&](auto... operands) { map(L, f, static_cast<Out*>(out), operands...); });
    } else {
      throw Error(GPUVEC_ERROR_INTERNAL, "elementwise op called with the wrong number of inputs");
    }
  });
}

#define GPUVEC_INSTANTIATE(T, Arity)                                               \
  template void elementwise<T, Arity>(gpuvec_op, const Layout<Arity + 1>&, void*,  \
                                      const Inputs<T, Arity>&, const double*, int, \
                                      gpuvec_stream);
GPUVEC_INSTANTIATE(float, 1)
GPUVEC_INSTANTIATE(float, 2)
GPUVEC_INSTANTIATE(float, 3)
GPUVEC_INSTANTIATE(double, 1)
GPUVEC_INSTANTIATE(double, 2)
GPUVEC_INSTANTIATE(double, 3)
GPUVEC_INSTANTIATE(bool, 1)  // the truth-value ops on bool arrays
GPUVEC_INSTANTIATE(bool, 2)
GPUVEC_INSTANTIATE(bool, 3)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::host
