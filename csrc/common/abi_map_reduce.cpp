// gpuvec_map_reduce: a user's ReductionKernel, compiled from gpuvec/reduce.hpp,
// on every kind of memory.
//
// The same work as gpuvec_reduce's: two layouts, `rows` over out and the
// start of each row of every input and `row` over the elements of a row,
// then the launch plan of gpuvec/reduce.hpp picks the compiled instance, as
// it picks gpuvec's own. A scalar input becomes one element read at stride 0
// (the kernels read memory); an out that overlaps an input is computed in a
// temporary. Host arrays on the CUDA backend are copied to the device whole,
// and the result back, as gpuvec_map does.
#include <stdint.h>

#include <string>

#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "arrays.hpp"
#include "checks.hpp"
#include "gpuvec/kernels.h"
#include "gpuvec/layout.hpp"
#include "gpuvec/reduce.hpp"
#include "kernel_handles.hpp"
#include "map_call.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

static_assert(GPUVEC_REDUCE_KERNELS == kReduceKernels,
              "one handle per kernel of the reduction's launch plan");

// A scalar input as memory: its value in one element of `memory`, which
// every element of `like`'s shape reads (stride 0).
gpuvec_array materialized(const gpuvec_array& scalar, gpuvec_memory memory, Scratch& scratch,
                          gpuvec_stream stream) {
  gpuvec_array one = scalar;
  one.ndim = 0;
  one.memory = memory;
  one.data = scratch.take(memory, itemsize(scalar.dtype));
  copy_array(one, scalar, memory, stream);
  gpuvec_array r = scalar;
  r.memory = memory;
  r.data = one.data;
  for (int d = 0; d < r.ndim; ++d) r.strides[d] = 0;
  return r;
}

// Over the R inputs in[k] and out, all in one memory.
template <int R>
void run_in_memory(const gpuvec_map_reduce_kernel& k, const gpuvec_array& out,
                   const gpuvec_array* in, Place place, const gpuvec_launch& launch) {
  const int kept = out.ndim;
  const int64_t* rows_strides[R + 1];
  const int64_t* row_strides[R];
  rows_strides[0] = out.strides;
  for (int j = 0; j < R; ++j) {
    rows_strides[j + 1] = in[j].strides;
    row_strides[j] = in[j].strides + kept;
  }
  const ReduceLayout<R> L{simplify_layout<R + 1>(kept, out.shape, rows_strides),
                          simplify_layout<R>(in[0].ndim - kept, in[0].shape + kept, row_strides)};
  void* out_data = element_at(out, L.rows.offset[0]);
  const void* data[R];
  size_t sizes[R];
  for (int j = 0; j < R; ++j) {
    data[j] = element_at(in[j], L.rows.offset[j + 1] + L.row.offset[j]);
    sizes[j] = itemsize(in[j].dtype);
  }
  if (place == Place::kHost) {
    host::run_map_reduce(k.kernels[0]->handle, &L, out_data, data);
    return;
  }
  const ReducePlan plan =
      plan_reduce(L, data, sizes, k.state_size, cuda::reduce_threads(launch.threads_per_block),
                  cuda::reduce_device());
  void* handles[kReduceKernels];
  for (int j = 0; j < kReduceKernels; ++j) handles[j] = k.kernels[j]->handle;
  cuda::launch_map_reduce(handles, plan, &L, L.row.size, nullptr, out_data, data, R,
                          launch.stream);
}

// The same for 1 to GPUVEC_MAX_MAP_INPUTS inputs.
template <int R = 1>
void run_in_memory_of(int n, const gpuvec_map_reduce_kernel& k, const gpuvec_array& out,
                      const gpuvec_array* in, Place place, const gpuvec_launch& launch) {
  if constexpr (R <= GPUVEC_MAX_MAP_INPUTS) {
    if (n == R) return run_in_memory<R>(k, out, in, place, launch);
    return run_in_memory_of<R + 1>(n, k, out, in, place, launch);
  }
  throw Error(GPUVEC_ERROR_INTERNAL, "a reduction kernel has more inputs than gpuvec takes");
}

void run(const gpuvec_map_reduce_kernel& k, const gpuvec_array& given_out,
         const gpuvec_array* given_in, int n, Place place, const gpuvec_launch& launch) {
  Scratch scratch(launch.stream);
  const gpuvec_memory memory = place == Place::kHost ? GPUVEC_MEMORY_HOST : GPUVEC_MEMORY_DEVICE;
  gpuvec_array in[GPUVEC_MAX_MAP_INPUTS];
  gpuvec_array out = given_out;
  bool via_temporary = place == Place::kStaged;
  for (int j = 0; j < n; ++j) {
    in[j] = given_in[j];
    if (is_scalar(in[j])) {
      in[j] = materialized(in[j], memory, scratch, launch.stream);
    } else if (place == Place::kStaged) {
      // A broadcast host array keeps its stride 0 and costs no more than its data.
      in[j] = temporary_like(given_in[j], given_in[j].dtype, memory, true, scratch);
      transfer(in[j], given_in[j], launch.stream);
    } else {
      // Rows are read while results are written.
      via_temporary = via_temporary || overlaps(given_out, in[j]) || same_view(given_out, in[j]);
    }
  }
  if (via_temporary) out = temporary_like(given_out, given_out.dtype, memory, false, scratch);
  run_in_memory_of(n, k, out, in, place == Place::kStaged ? Place::kDevice : place, launch);
  if (place == Place::kStaged) {
    transfer(given_out, out, launch.stream);
  } else if (via_temporary) {
    copy_array(given_out, out, memory, launch.stream);
  }
}

}  // namespace
}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_map_reduce(const gpuvec_map_reduce_kernel* kernel,
                                           const gpuvec_array* out, const gpuvec_array* inputs,
                                           int n_inputs, int reduced_ndim,
                                           const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, true);
    check_compiled(kernel, n_inputs, 1, GPUVEC_REDUCE_KERNELS, launch->backend);
    if (kernel->state_size <= 0 || kernel->state_size % 8 != 0) {
      throw_invalid_argument("state_size must be a positive multiple of 8, got " +
                             std::to_string(kernel->state_size));
    }
    if (inputs == nullptr) throw_invalid_argument("inputs is a null pointer");
    const Named o{out, "out"};
    check_array(o, false);
    check_dtype(o, kernel->out_dtype);
    Named arrays[1 + GPUVEC_MAX_MAP_INPUTS] = {o};
    const Named first{&inputs[0], "input", 0};
    for (int k = 0; k < n_inputs; ++k) {
      const Named a{&inputs[k], "input", k};
      check_array(a, true);
      check_same_shape(a, first);
      check_dtype(a, kernel->in_dtypes[k]);
      arrays[k + 1] = a;
    }
    const int ndim = inputs[0].ndim;
    if (reduced_ndim < 0 || reduced_ndim > ndim) {
      throw_invalid_argument("reduced_ndim must be between 0 and the inputs' ndim " +
                             std::to_string(ndim) + ", got " + std::to_string(reduced_ndim));
    }
    const int kept = ndim - reduced_ndim;
    bool same = out->ndim == kept;
    for (int d = 0; same && d < kept; ++d) same = out->shape[d] == inputs[0].shape[d];
    if (!same) {
      throw_invalid_argument("out must have the shape of the inputs' first " +
                             std::to_string(kept) + " dimensions");
    }
    const Place place = place_of(launch->backend, arrays, 1 + n_inputs);
    if (element_count(*out) == 0) return;
    int64_t row_size = 1;
    for (int d = kept; d < ndim; ++d) row_size *= inputs[0].shape[d];
    if (row_size == 0 && !kernel->has_identity) {
      throw_invalid_argument(
          "zero-size reduction: a reduction kernel without an identity has no value for no "
          "elements");
    }
    run(*kernel, *out, inputs, n_inputs, place, *launch);
  });
}
