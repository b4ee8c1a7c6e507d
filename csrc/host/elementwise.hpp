// Every elementwise op on the host backend: the op's functor over the loop
// of map.hpp. Instantiated by compute dtype in files of their own
// (elementwise.cpp, elementwise_signed.cpp, elementwise_unsigned.cpp), so
// that the cores of a small machine share the build's largest compiles.
#ifndef GPUVEC_HOST_ELEMENTWISE_HPP
#define GPUVEC_HOST_ELEMENTWISE_HPP

#include <stdint.h>

#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "map.hpp"

namespace gpuvec::host {

template <class T, int Arity, class S>
void elementwise(gpuvec_op op, const Layout<Arity + 1>& L, void* out,
                 const Inputs<T, Arity, S>& in, const double* params, int, gpuvec_stream) {
  visit_op<T>(op, params, [&](auto f, auto arity, auto* result, FunctorName) {
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

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_ELEMENTWISE_HPP
