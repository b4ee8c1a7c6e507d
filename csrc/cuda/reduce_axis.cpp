// gpuvec's reductions on the CUDA backend: gpuvec_reduce's rows, a sum of
// every element as one row, dot as one row of two inputs, and the staging
// pipeline's chunk totals. The kernels and the choice among them are
// gpuvec/reduce.hpp's, shared with users' compiled ReductionKernels; the
// policies are gpuvec/reduce_ops.hpp's. Each kernel is compiled at its first
// use, for the policy and dtypes of the call (own_kernels.hpp).
#include <stdint.h>

#include <string>
#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "gpuvec/reduce.hpp"
#include "gpuvec/reduce_ops.hpp"
#include "launch.cuh"
#include "own_kernels.hpp"
#include "scratch.hpp"
#include "staging.hpp"

namespace gpuvec::cuda {
namespace {

static_assert(kMaxReductionBlocks * sizeof(double) == kReductionScratchBytes,
              "the stream's scratch holds a double state per block");

// The name expression of reduction kernel `kernel` (gpuvec/reduce.hpp) with
// the policy `policy`, writing `out` from inputs of types `inputs`
// (comma-separated) read in packs of V.
std::string reduce_expression(ReduceKernel kernel, const std::string& policy, const char* out,
                              const std::string& inputs, int V) {
  const std::string types = policy + ", " + out + ", " + inputs;
  switch (kernel) {
    case ReduceKernel::kContiguousPacks:
      return "gpuvec::reduce_contiguous<" + std::to_string(V) + ", " + types + ">";
    case ReduceKernel::kContiguous:
      return "gpuvec::reduce_contiguous<1, " + types + ">";
    case ReduceKernel::kGroups:
      return "gpuvec::reduce_groups<" + types + ">";
    case ReduceKernel::kTiles:
      return "gpuvec::reduce_tiles<" + types + ">";
    case ReduceKernel::kColumns:
      return "gpuvec::reduce_columns<" + types + ">";
    case ReduceKernel::kBlocks:
      return "gpuvec::reduce_blocks<" + types + ">";
    case ReduceKernel::kPartials:
      return "gpuvec::reduce_partials<" + types + ">";
  }
  throw Error(GPUVEC_ERROR_INTERNAL, "unknown reduction kernel");
}

// Reduces the rows of the inputs x... into out (operand 0 of L.rows) with op,
// a policy that `policy` names in C++. The plan's kernels are compiled at
// first use (own_kernels.hpp) and launched as a compiled ReductionKernel's are.
template <class Op, class Out, class... In>
void run(const ReduceLayout<sizeof...(In)>& L, const Op& op, const char* policy, Out* out,
         int threads_per_block, gpuvec_stream stream, const In*... x) {
  using A = typename Op::Acc;
  constexpr int R = sizeof...(In);
  constexpr int V = kPackWidth<In...>;
  const int threads = block_size(threads_per_block);
  const void* const data[R] = {x...};
  const size_t itemsize[R] = {sizeof(In)...};
  const ReducePlan plan = plan_reduce(L, data, itemsize, sizeof(A), threads, reduce_device());
  // One kernel per plan kernel, for this policy and these types.
  static OwnKernel kernels[kReduceKernels];
  const auto compiled = [&](ReduceKernel kernel) {
    return kernels[static_cast<int>(kernel)].get(kReduceSource, [&] {
      std::string inputs;
      ((inputs += std::string(inputs.empty() ? "" : ", ") + type_name<In>()), ...);
      return reduce_expression(kernel, policy, type_name<Out>(), inputs, V);
    });
  };
  void* handles[kReduceKernels] = {};
  handles[static_cast<int>(plan.kernel)] = compiled(plan.kernel);
  if (plan.second_blocks > 0) {
    handles[static_cast<int>(ReduceKernel::kPartials)] = compiled(ReduceKernel::kPartials);
  }
  launch_map_reduce(handles, plan, &L, L.row.size, &op, out, data, R, stream);
}

// One row of every element: `rows` (of out, with no dimensions) has one.
ReduceLayout<1> one_row(const Layout<1>& layout) { return {Layout<2>{}, layout}; }
ReduceLayout<2> one_row(const Layout<2>& layout) { return {Layout<3>{}, layout}; }

}  // namespace

template <class T>
void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,
            void* out, double ddof, int64_t plane, int threads_per_block, gpuvec_stream stream) {
  const ReduceLayout<1> L{rows, row};
  visit_reduce_op<T>(op, ddof, plane, [&](auto f, auto out_type, const std::string& policy) {
    using Out = decltype(out_type);
    // Deviations' one-pass form: Welford's running variance.
    if constexpr (std::is_same_v<decltype(f), ops::reduce::Deviations>) {
      run(L, f.variance(), "gpuvec::ops::reduce::Variance", static_cast<Out*>(out),
          threads_per_block, stream, x);
    } else {
      run(L, f, policy.c_str(), static_cast<Out*>(out), threads_per_block, stream, x);
    }
  });
}

template <class T>
void dot(const Layout<2>& layout, const T* x, const T* y, T* result, int threads_per_block,
         gpuvec_stream stream) {
  run(one_row(layout), ops::reduce::Dot{}, "gpuvec::ops::reduce::Dot", result, threads_per_block,
      stream, x, y);
}

template <class T>
void sum_into_double(const Layout<1>& layout, const T* x, double* result, int threads_per_block,
                     gpuvec_stream stream) {
  run(one_row(layout), ops::reduce::Sum{}, "gpuvec::ops::reduce::Sum", result, threads_per_block,
      stream, x);
}

template <class T>
void dot_into_double(const Layout<2>& layout, const T* x, const T* y, double* result,
                     int threads_per_block, gpuvec_stream stream) {
  run(one_row(layout), ops::reduce::Dot{}, "gpuvec::ops::reduce::Dot", result, threads_per_block,
      stream, x, y);
}

GPUVEC_REDUCE_TYPES(GPUVEC_INSTANTIATE_REDUCE)
template void dot<float>(const Layout<2>&, const float*, const float*, float*, int, gpuvec_stream);
template void dot<double>(const Layout<2>&, const double*, const double*, double*, int,
                          gpuvec_stream);
template void sum_into_double<float>(const Layout<1>&, const float*, double*, int, gpuvec_stream);
template void sum_into_double<double>(const Layout<1>&, const double*, double*, int,
                                      gpuvec_stream);
template void dot_into_double<float>(const Layout<2>&, const float*, const float*, double*, int,
                                     gpuvec_stream);
template void dot_into_double<double>(const Layout<2>&, const double*, const double*, double*, int,
                                      gpuvec_stream);

}  // namespace gpuvec::cuda
