// Every elementwise op on the CUDA backend: the op's functor over the map
// kernels (own_map.hpp), compiled at first use for the op and its types.
#include <stdint.h>

#include <string>
#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "own_map.hpp"

namespace gpuvec::cuda {

std::string map_expression(MapKernel kernel, int N, int V, const char* out,
                           const std::string& functor, const std::string& operands) {
  const std::string types = std::string(out) + ", " + functor + operands;
  const std::string n = std::to_string(N);
  switch (kernel) {
    case MapKernel::kContiguousPacks:
    case MapKernel::kContiguous: {
      // One element at a time where an operand is not aligned to a pack.
      const int width = kernel == MapKernel::kContiguousPacks ? V : 1;
      return "gpuvec::map_contiguous<" + std::string(out) + ", " + std::to_string(width) + ", " +
             functor + operands + ">";
    }
    case MapKernel::kRows:
      return "gpuvec::map_rows<" + std::to_string(V) + ", " + n + ", " + types + ">";
    case MapKernel::kStrided:
      return "gpuvec::map_strided<" + n + ", " + types + ">";
  }
  throw Error(GPUVEC_ERROR_INTERNAL, "unknown map kernel");
}

// The C++ name of a row's functor computing in T.
template <class T>
std::string spelled(const FunctorName& name) {
  std::string s = name.op;
  if (name.of_compute_type) s += std::string("::Of<") + type_name<T>() + ">";
  return s;
}

template <class T, int Arity, class S>
void elementwise(gpuvec_op op, const Layout<Arity + 1>& L, void* out,
                 const Inputs<T, Arity, S>& in, const double* params, int threads_per_block,
                 gpuvec_stream stream) {
  visit_op<T>(op, params, [&](auto f, auto arity, auto* result, FunctorName name) {
    using F = decltype(f);
    using Out = std::remove_pointer_t<decltype(result)>;
    if constexpr (decltype(arity)::value == Arity) {
      with_operands<F>(in, [&](auto... operands) {
        map(
            L, f, [&] { return spelled<T>(name); }, static_cast<Out*>(out), threads_per_block,
            stream, operands...);
      });
    } else {
      throw Error(GPUVEC_ERROR_INTERNAL, "elementwise op called with the wrong number of inputs");
    }
  });
}

GPUVEC_INPUT_TYPES(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)

}  // namespace gpuvec::cuda
