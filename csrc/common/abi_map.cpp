// gpuvec_map: a user's ElementwiseKernel, compiled from gpuvec/map.hpp, on
// every kind of memory.
//
// The same work as gpuvec_elementwise's (map_call.hpp): the joint layout of
// out and the inputs, each input as an Operand, a temporary for an out that
// overlaps an input; then the launch plan of gpuvec/map.hpp picks the
// compiled instance, as it picks gpuvec's own. Host arrays on the CUDA
// backend are copied to the device whole, and the result back.
#include <stdint.h>
#include <string.h>

#include <string>

#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "arrays.hpp"
#include "checks.hpp"
#include "gpuvec/kernels.h"
#include "gpuvec/layout.hpp"
#include "gpuvec/map.hpp"
#include "kernel_handles.hpp"
#include "map_call.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

static_assert(GPUVEC_MAP_KERNELS == kMapKernels, "one handle per kernel of the launch plan");

// An input as its kernel parameter: an Operand of the input's type (all of
// the same size, a pointer and a value).
union AnyOperand {
  Operand<float> f32;
  Operand<double> f64;
  Operand<int64_t> i64;
  Operand<bool> b;
};

AnyOperand any_operand(const gpuvec_array& a, int64_t offset) {
  AnyOperand r;
  with_dtype(a.dtype, [&](auto zero) {
    const auto op = operand<decltype(zero)>(a, offset);
    static_assert(sizeof(op) <= sizeof(r), "an Operand fits AnyOperand");
    memcpy(&r, &op, sizeof(op));
  });
  return r;
}

// Over the joint layout of out and the N - 1 inputs, all in one memory.
template <int N>
void run_in_memory(const gpuvec_map_kernel& k, const gpuvec_array& out, const gpuvec_array* in,
                   Place place, const gpuvec_launch& launch) {
  const Layout<N> L = joint_layout<N>(out, in);
  AnyOperand operands[N];  // N - 1 used; N > 0 always
  const void* in_params[N];
  const void* data[N];
  size_t sizes[N];
  void* out_data = element_at(out, L.offset[0]);
  data[0] = out_data;
  sizes[0] = itemsize(out.dtype);
  for (int j = 0; j + 1 < N; ++j) {
    operands[j] = any_operand(in[j], L.offset[j + 1]);
    in_params[j] = &operands[j];
    data[j + 1] = is_scalar(in[j]) ? nullptr : element_at(in[j], L.offset[j + 1]);
    sizes[j + 1] = itemsize(in[j].dtype);
  }
  if (place == Place::kHost) {
    host::run_map(k.kernels[0]->handle, &L, L.size, out_data, in_params);
    return;
  }
  size_t largest = 1;
  for (size_t s : sizes) largest = s > largest ? s : largest;
  const MapPlan plan = plan_map(L, pack_width(largest), data, sizes);
  cuda::launch_map(k.kernels[static_cast<int>(plan.kernel)]->handle, plan, &L, L.size, nullptr,
                   out_data, in_params, N - 1, launch.threads_per_block, launch.stream);
}

// The same for 0 to GPUVEC_MAX_MAP_INPUTS inputs.
template <int N = 1>
void run_in_memory_of(int n, const gpuvec_map_kernel& k, const gpuvec_array& out,
                      const gpuvec_array* in, Place place, const gpuvec_launch& launch) {
  if constexpr (N <= 1 + GPUVEC_MAX_MAP_INPUTS) {
    if (n + 1 == N) return run_in_memory<N>(k, out, in, place, launch);
    return run_in_memory_of<N + 1>(n, k, out, in, place, launch);
  }
  throw Error(GPUVEC_ERROR_INTERNAL, "a map kernel has more inputs than gpuvec takes");
}

void run(const gpuvec_map_kernel& k, const gpuvec_array& given_out, const gpuvec_array* given_in,
         int n, Place place, const gpuvec_launch& launch) {
  Scratch scratch(launch.stream);
  gpuvec_array in[GPUVEC_MAX_MAP_INPUTS];
  for (int j = 0; j < n; ++j) in[j] = given_in[j];
  gpuvec_array out = given_out;
  if (place == Place::kStaged) {
    // Each host array to a device temporary (a broadcast one keeps its
    // stride 0 and costs no more than its data), the result into one.
    for (int j = 0; j < n; ++j) {
      if (is_scalar(in[j])) continue;
      in[j] = temporary_like(given_in[j], given_in[j].dtype, GPUVEC_MEMORY_DEVICE, true, scratch);
      transfer(in[j], given_in[j], launch.stream);
    }
    out = temporary_like(given_out, given_out.dtype, GPUVEC_MEMORY_DEVICE, false, scratch);
    run_in_memory_of(n, k, out, in, Place::kDevice, launch);
    transfer(given_out, out, launch.stream);
    return;
  }
  const gpuvec_memory memory = place == Place::kDevice ? GPUVEC_MEMORY_DEVICE : GPUVEC_MEMORY_HOST;
  out = writable_out(given_out, in, n, memory, scratch);
  run_in_memory_of(n, k, out, in, place, launch);
  if (out.data != given_out.data) copy_array(given_out, out, memory, launch.stream);
}

}  // namespace
}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_map(const gpuvec_map_kernel* kernel, const gpuvec_array* out,
                                    const gpuvec_array* inputs, int n_inputs,
                                    const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    check_compiled(kernel, n_inputs, 0, GPUVEC_MAP_KERNELS, launch->backend);
    if (n_inputs > 0 && inputs == nullptr) throw_invalid_argument("inputs is a null pointer");
    const Named o{out, "out"};
    check_array(o, false);
    check_dtype(o, kernel->out_dtype);
    Named arrays[1 + GPUVEC_MAX_MAP_INPUTS] = {o};
    for (int k = 0; k < n_inputs; ++k) {
      const Named a{&inputs[k], "input", k};
      check_array(a, true);
      check_same_shape(a, o);
      check_dtype(a, kernel->in_dtypes[k]);
      arrays[k + 1] = a;
    }
    const Place place = place_of(launch->backend, arrays, 1 + n_inputs);
    if (element_count(*out) == 0) return;
    run(*kernel, *out, inputs, n_inputs, place, *launch);
  });
}
