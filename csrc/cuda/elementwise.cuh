// Every elementwise op on the CUDA backend (the kernels are in map.cuh). The
// ops of one arity and compute dtype are compiled in a file of their own
// (elementwise_*.cu), so that the files build in parallel.
#ifndef GPUVEC_CUDA_ELEMENTWISE_CUH
#define GPUVEC_CUDA_ELEMENTWISE_CUH

#include <stdint.h>

#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "map.cuh"

namespace gpuvec::cuda {

template <class T, int Arity, class S>
void elementwise(gpuvec_op op, const Layout<Arity + 1>& L, void* out,
                 const Inputs<T, Arity, S>& in, const double* params, int threads_per_block,
                 gpuvec_stream stream) {
  visit_op<T>(op, params, [&](auto f, auto arity, auto* result) {
    using F = decltype(f);
    using Out = std::remove_pointer_t<decltype(result)>;
    if constexpr (decltype(arity)::value == Arity) {
      with_operands<F>(in, [&](auto... operands) {
        map(L, f, static_cast<Out*>(out), threads_per_block, stream, operands...);
      });
    } else {
      throw Error(GPUVEC_ERROR_INTERNAL, "elementwise op called with the wrong number of inputs");
    }
  });
}

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_ELEMENTWISE_CUH
