// gpuvec's reductions on the CUDA backend: gpuvec_reduce's rows, a sum of
// every element as one row, dot as one row of two inputs, and the staging
// pipeline's chunk totals. The kernels and the choice among them are
// gpuvec/reduce.hpp's, shared with users' compiled ReductionKernels; the
// policies are gpuvec/reduce_ops.hpp's.
#include <stdint.h>

#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "check.cuh"
#include "gpuvec/reduce.hpp"
#include "gpuvec/reduce_ops.hpp"
#include "launch.cuh"
#include "reduce_plan.hpp"
#include "staging.hpp"

namespace gpuvec::cuda {
namespace {

static_assert(kMaxReductionBlocks * sizeof(double) == kReductionScratchBytes,
              "the stream's scratch holds a double state per block");

// Reduces the rows of the inputs x... into out (operand 0 of L.rows) with op.
template <class Op, class Out, class... In>
void run(const ReduceLayout<sizeof...(In)>& L, const Op& op, Out* out, int threads_per_block,
         gpuvec_stream stream, const In*... x) {
  using A = typename Op::Acc;
  constexpr int R = sizeof...(In);
  const int threads = block_size(threads_per_block);
  const cudaStream_t s = as_cuda_stream(stream);
  const void* const data[R] = {x...};
  const size_t itemsize[R] = {sizeof(In)...};
  const ReducePlan plan = plan_reduce(L, data, itemsize, sizeof(A), threads, reduce_device());
  run_plan(plan, s, [&](ReduceKernel kernel, dim3 grid, void* p, unsigned int* ticket, int extra) {
    A* const partial = static_cast<A*>(p);
    switch (kernel) {
      case ReduceKernel::kContiguousPacks:
        reduce_contiguous<kPackWidth<In...>>
            <<<grid, threads, 0, s>>>(L.row.size, op, out, partial, ticket, x...);
        break;
      case ReduceKernel::kContiguous:
        reduce_contiguous<1><<<grid, threads, 0, s>>>(L.row.size, op, out, partial, ticket, x...);
        break;
      case ReduceKernel::kGroups:
        reduce_groups<<<grid, threads, 0, s>>>(L, op, out, partial, ticket, extra, x...);
        break;
      case ReduceKernel::kTiles:
        reduce_tiles<<<grid, threads, 0, s>>>(L, op, out, partial, ticket, extra, x...);
        break;
      case ReduceKernel::kColumns:
        reduce_columns<<<grid, threads, 0, s>>>(L, op, out, partial, ticket, extra, x...);
        break;
      case ReduceKernel::kBlocks:
        reduce_blocks<<<grid, threads, 0, s>>>(L, op, out, partial, ticket, extra, x...);
        break;
      case ReduceKernel::kPartials:
        reduce_partials<Op, Out, In...>
            <<<grid, threads, 0, s>>>(L, op, out, partial, ticket, extra);
        break;
    }
  });
}

// One row of every element: `rows` (of out, with no dimensions) has one.
ReduceLayout<1> one_row(const Layout<1>& layout) { return {Layout<2>{}, layout}; }
ReduceLayout<2> one_row(const Layout<2>& layout) { return {Layout<3>{}, layout}; }

}  // namespace

template <class T>
void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,
            void* out, double ddof, int64_t plane, int threads_per_block, gpuvec_stream stream) {
  const ReduceLayout<1> L{rows, row};
  visit_reduce_op<T>(op, ddof, plane, [&](auto f, auto out_type) {
    using Out = decltype(out_type);
    if constexpr (std::is_same_v<decltype(f), ops::reduce::Deviations>) {
      run(L, f.variance(), static_cast<Out*>(out), threads_per_block, stream, x);
    } else {
      run(L, f, static_cast<Out*>(out), threads_per_block, stream, x);
    }
  });
}

template <class T>
void dot(const Layout<2>& layout, const T* x, const T* y, T* result, int threads_per_block,
         gpuvec_stream stream) {
  run(one_row(layout), ops::reduce::Dot{}, result, threads_per_block, stream, x, y);
}

template <class T>
void sum_into_double(const Layout<1>& layout, const T* x, double* result, int threads_per_block,
                     gpuvec_stream stream) {
  run(one_row(layout), ops::reduce::Sum{}, result, threads_per_block, stream, x);
}

template <class T>
void dot_into_double(const Layout<2>& layout, const T* x, const T* y, double* result,
                     int threads_per_block, gpuvec_stream stream) {
  run(one_row(layout), ops::reduce::Dot{}, result, threads_per_block, stream, x, y);
}

template void reduce<float>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const float*,
                            void*, double, int64_t, int, gpuvec_stream);
template void reduce<double>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const double*,
                             void*, double, int64_t, int, gpuvec_stream);
// Bool x: any, all and count_nonzero alone (visit_reduce_op).
template void reduce<bool>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const bool*,
                           void*, double, int64_t, int, gpuvec_stream);
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
