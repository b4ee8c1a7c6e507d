// The launch of gpuvec's own elementwise ops and conversions on the CUDA
// backend: the map kernels and the plan that picks one are gpuvec/map.hpp's,
// shared with users' compiled ElementwiseKernels; each kernel is compiled at
// its first use (own_kernels.hpp) and launched as a compiled
// ElementwiseKernel is (launch_map).
#ifndef GPUVEC_CUDA_OWN_MAP_HPP
#define GPUVEC_CUDA_OWN_MAP_HPP

#include <stddef.h>

#include <string>

#include "../kit/kernel_backends.hpp"
#include "gpuvec/layout.hpp"
#include "gpuvec/map.hpp"
#include "gpuvec/operand.hpp"
#include "gpuvec/runtime.h"
#include "own_kernels.hpp"

namespace gpuvec::cuda {

// The name expression of map kernel `kernel` (gpuvec/map.hpp) over N
// operands in packs of V, writing `out` with `functor` from `operands`
// (their gpuvec::Operand types, comma-separated).
std::string map_expression(MapKernel kernel, int N, int V, const char* out,
                           const std::string& functor, const std::string& operands);

// out = f(in...) over layout L; functor_name() spells F in C++, called only
// when a kernel is first compiled.
template <int N, class T, class F, class Name, class... In, class... S>
void map(const Layout<N>& L, const F& f, Name&& functor_name, T* out, int threads_per_block,
         gpuvec_stream stream, const Operand<In, S>... in) {
  constexpr int V = kPackWidth<T, In..., S...>;
  const void* const data[N] = {out, in.p...};
  const size_t itemsize[N] = {sizeof(T), sizeof(S)...};
  const MapPlan plan = plan_map(L, V, data, itemsize);
  // One kernel per plan kernel, for this functor and these types.
  static OwnKernel kernels[kMapKernels];
  void* kernel = kernels[static_cast<int>(plan.kernel)].get(kMapSource, [&] {
    std::string operands;
    ((operands += ", " + operand_name<In, S>()), ...);
    return map_expression(plan.kernel, N, V, type_name<T>(), functor_name(), operands);
  });
  const void* const operands[] = {&in...};
  launch_map(kernel, plan, &L, L.size, &f, out, operands, N - 1, threads_per_block, stream);
}

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_OWN_MAP_HPP
