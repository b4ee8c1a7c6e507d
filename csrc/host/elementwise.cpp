// Every elementwise op on the host backend (the loop is in map.hpp), and
// users' compiled ElementwiseKernels.
#include <stdint.h>

#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
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

GPUVEC_INPUT_TYPES(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)

// run_map, a user's ElementwiseKernel, is in emulation/entries.cpp: it runs
// the user's code inside the emulation's sandbox.

}  // namespace gpuvec::host
