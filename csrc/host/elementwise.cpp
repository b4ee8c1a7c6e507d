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

void run_map(void* entry, const void* layout, int64_t size, void* out, const void* const* in) {
  const auto run = reinterpret_cast<MapEntry>(entry);
  parallel_ranges(size, [&](int64_t begin, int64_t end) { run(layout, out, in, begin, end); });
}

}  // namespace gpuvec::host
