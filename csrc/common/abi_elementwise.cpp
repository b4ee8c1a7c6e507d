// gpuvec_elementwise: every elementwise op, on every kind of memory.
//
// Once per call the boundary checks the descriptors, decides where the call
// runs (arrays.hpp: Place), picks the dtype the inputs are read from (inputs
// that share another float dtype are converted by the kernels as they load
// them; the odd ones of mixed dtypes go into temporaries first), computes
// into a temporary when out overlaps an input other than as its very view,
// simplifies the layout and calls the backend.
// Scalars are never materialized: they reach the kernels as values.
#include <stdint.h>
#include <string.h>

#include <string>
#include <type_traits>
#include <vector>

#include "../kit/backends.hpp"
#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "../kit/view.hpp"
#include "arrays.hpp"
#include "checks.hpp"
#include "gpuvec/layout.hpp"
#include "map_call.hpp"
#include "op_table.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

// What one call computes: out = op(in[0], ..., in[n - 1]; params), in `compute`.
struct Call {
  gpuvec_op op;
  gpuvec_array out;
  gpuvec_array in[GPUVEC_MAX_INPUTS];
  int n;
  const double* params;
  gpuvec_dtype compute;
  int threads_per_block;
  gpuvec_stream stream;
};

// Where's condition, the one input that is not of the compute dtype.
bool is_condition(gpuvec_op op, int k) { return op == GPUVEC_WHERE && k == 0; }

// On the host or the device, over the joint layout of out and the inputs.
// The array inputs (where's condition aside) are stored as S.
template <class T, int Arity, class S>
void run_in_memory(const Call& c, Place place) {
  const Layout<Arity + 1> L = joint_layout<Arity + 1>(c.out, c.in);
  Inputs<T, Arity, S> in{};
  for (int k = 0; k < Arity; ++k) {
    if (is_condition(c.op, k)) {
      in.cond = operand<uint8_t>(c.in[k], L.offset[k + 1]);
    } else {
      in.in[k] = operand<T, S>(c.in[k], L.offset[k + 1]);
    }
  }
  void* out = element_at(c.out, L.offset[0]);
  if (place == Place::kDevice) {
    cuda::elementwise<T, Arity>(c.op, L, out, in, c.params, c.threads_per_block, c.stream);
  } else {
    host::elementwise<T, Arity>(c.op, L, out, in, c.params, c.threads_per_block, c.stream);
  }
}

// Calls body(T{}, S{}) with T the type of a compute dtype and S that of the
// dtype its inputs are stored in: T's own, or the other float type for a
// float T (GPUVEC_INPUT_TYPES); a complex T's own alone.
template <class Body>
void with_types(gpuvec_dtype compute, gpuvec_dtype stored, Body&& body) {
  if (is_float(compute)) {
    return with_float(compute, [&](auto t) { with_float(stored, [&](auto s) { body(t, s); }); });
  }
  if (is_complex(compute)) return with_complex(compute, [&](auto t) { body(t, t); });
  with_dtype(compute, [&](auto t) { body(t, t); });
}

// The dtype the call's array inputs are read from: their own where they
// share a float dtype, so that the kernels convert each element as they load
// it (`gv.add(a32, b32, dtype=np.float64)` is one pass, not three), else the
// compute dtype, into which the boundary converts the others first. The
// staging pipeline converts as it gathers, so staged inputs keep their own.
gpuvec_dtype stored_dtype(const Call& c) {
  gpuvec_dtype stored = c.compute;
  bool first = true;
  for (int k = 0; k < c.n; ++k) {
    if (is_scalar(c.in[k]) || is_condition(c.op, k)) continue;
    if (first) stored = c.in[k].dtype;
    if (c.in[k].dtype != stored) return c.compute;
    first = false;
  }
  return is_float(stored) && is_float(c.compute) ? stored : c.compute;
}

HostView host_view(const gpuvec_array& a, const Layout<1 + GPUVEC_MAX_INPUTS>& joint, int k) {
  if (is_scalar(a)) {
    HostView v{nullptr, a.dtype, {}, Layout<1>{}};
    v.integer = a.integer;  // the union's bytes, whichever member holds them
    return v;
  }
  char* data =
      static_cast<char*>(a.data) + joint.offset[k] * static_cast<int64_t>(itemsize(a.dtype));
  return {data, a.dtype, 0.0, operand_layout(joint, k)};
}

// Host arrays on the CUDA backend: the staging pipeline, which converts each
// input to the compute dtype as it gathers it.
void run_staged(const Call& c) {
  const int64_t* strides[1 + GPUVEC_MAX_INPUTS];
  for (int k = 0; k <= GPUVEC_MAX_INPUTS; ++k) {
    const bool own = k > 0 && k <= c.n && !is_scalar(c.in[k - 1]);
    strides[k] = own ? c.in[k - 1].strides : c.out.strides;
  }
  const auto joint = simplify_layout<1 + GPUVEC_MAX_INPUTS>(c.out.ndim, c.out.shape, strides);
  HostView in[GPUVEC_MAX_INPUTS];
  for (int k = 0; k < c.n; ++k) in[k] = host_view(c.in[k], joint, k + 1);
  cuda::staged_elementwise(c.op, c.params, c.compute, joint.size, host_view(c.out, joint, 0), in,
                           c.n, c.threads_per_block);
}

void run(Call c, Place place) {
  const gpuvec_memory memory = place == Place::kDevice ? GPUVEC_MEMORY_DEVICE : GPUVEC_MEMORY_HOST;
  Scratch scratch(c.stream);
  // Inputs of neither the compute dtype nor the one the others are stored
  // in, converted first (the staging pipeline converts as it gathers, and
  // only the converted copy crosses the bus).
  const gpuvec_dtype stored = stored_dtype(c);
  if (place != Place::kStaged) {
    for (int k = 0; k < c.n; ++k) {
      const gpuvec_array& a = c.in[k];
      if (!is_scalar(a) && !is_condition(c.op, k) && a.dtype != stored) {
        c.in[k] = converted(a, c.compute, scratch, c.stream);
      }
    }
  }
  const gpuvec_array out = c.out;
  c.out = writable_out(out, c.in, c.n, memory, scratch);

  if (place == Place::kStaged) {
    run_staged(c);
  } else {
    with_types(c.compute, stored, [&](auto t, auto s) {
      using T = decltype(t);
      using S = decltype(s);
      switch (c.n) {
        case 1:
          return run_in_memory<T, 1, S>(c, place);
        case 2:
          return run_in_memory<T, 2, S>(c, place);
        case 3:
          return run_in_memory<T, 3, S>(c, place);
      }
      throw Error(GPUVEC_ERROR_INTERNAL, "an elementwise op has 1 to 3 inputs");
    });
  }
  if (c.out.data != out.data) copy_array(out, c.out, memory, c.stream);
}

// Whether a row of the op table computes in `compute`: its kinds column
// (op_table.h) names the dtype's kind. A signed integer dtype of a `u` row
// computes as the unsigned one of its width (bits_dtype).
bool computes_in(const gpuvec_op_info& info, gpuvec_dtype compute) {
  const char kind = is_float(compute)            ? 'f'
                    : is_complex(compute)        ? 'c'
                    : compute == GPUVEC_BOOL     ? 'b'
                    : is_signed_integer(compute) ? 'i'
                                                 : 'u';
  if (strchr(info.kinds, kind) != nullptr) return true;
  return is_integer(compute) && strchr(info.kinds, kind == 'i' ? 'u' : 'i') != nullptr;
}

void check_compute(const gpuvec_op_info& info, gpuvec_dtype compute) {
  if (!computes_in(info, compute)) {
    throw_invalid_argument(std::string(info.name) + " cannot compute in " + dtype_name(compute));
  }
}

// The dtype a row computes in for `compute`: the unsigned dtype of a signed
// one's width for the rows whose integer bits do not depend on the sign (a
// `u` and no `i` in the kinds column), so one kernel serves both.
gpuvec_dtype bits_dtype(const gpuvec_op_info& info, gpuvec_dtype compute) {
  if (is_signed_integer(compute) && strchr(info.kinds, 'i') == nullptr) {
    return unsigned_dtype(compute);
  }
  return compute;
}

// The call relabelled to the dtype it computes in (bits_dtype): the arrays of
// the signed compute dtype, out included, read as the unsigned one of their
// width. Scalars keep their dtype: their values are converted to it.
void relabel(Call& c, gpuvec_dtype bits) {
  if (bits == c.compute) return;
  for (int k = 0; k < c.n; ++k) {
    if (!is_scalar(c.in[k]) && c.in[k].dtype == c.compute) c.in[k].dtype = bits;
  }
  if (c.out.dtype == c.compute) c.out.dtype = bits;
  c.compute = bits;
}

}  // namespace
}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_elementwise(gpuvec_op op, const gpuvec_array* out,
                                            const gpuvec_array* inputs, int n_inputs,
                                            const double* params, gpuvec_dtype compute,
                                            const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const gpuvec_op_info& info = elementwise_info(op);
    if (n_inputs != info.arity) {
      throw_invalid_argument(std::string(info.name) + " takes " + std::to_string(info.arity) +
                             " inputs, got " + std::to_string(n_inputs));
    }
    if (inputs == nullptr) throw_invalid_argument("inputs is a null pointer");
    if (info.params > 0 && params == nullptr) {
      throw_invalid_argument(std::string(info.name) + " takes " + std::to_string(info.params) +
                             " parameters, but params is a null pointer");
    }
    check_compute(info, compute);
    const Named o{out, "out"};
    check_array(o, false);
    check_dtype(
        o, info.result == GPUVEC_RESULT_SAME ? compute : static_cast<gpuvec_dtype>(info.result));
    Named arrays[1 + GPUVEC_MAX_INPUTS] = {o};
    for (int k = 0; k < n_inputs; ++k) {
      const Named a{&inputs[k], "input", k};
      check_array(a, true);
      check_same_shape(a, o);
      if (is_condition(op, k)) {
        check_dtype(a, GPUVEC_BOOL);
      } else {
        check_value_dtype(a);
      }
      arrays[k + 1] = a;
    }
    const Place place = place_of(launch->backend, arrays, 1 + n_inputs);
    if (element_count(*out) == 0) return;

    Call c{op, *out, {}, n_inputs, params, compute, launch->threads_per_block, launch->stream};
    for (int k = 0; k < n_inputs; ++k) c.in[k] = inputs[k];
    relabel(c, bits_dtype(info, compute));
    run(c, place);
  });
}
