// gpuvec_reduce: the reductions of x (and y) over its last dimensions.
//
// The boundary checks the descriptors, converts x to the compute dtype where
// it is in memory of another dtype (bool x to a float for sum, mean and the
// rest: NumPy's sum of bools counts them; any, all and count_nonzero may
// read it as it is), and builds two layouts: `rows` over out and the start
// of each row of x, `row` over the elements of one row, and calls the
// backend's reduce; dot (of every element) goes to its dot. A sum of every
// element is one row of the whole array on the host, and the CUDA backend's
// single-pass sum on the device. Host arrays on the CUDA backend are staged:
// sum and dot chunk by chunk, the others through a device copy of x.
#include <stdint.h>

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
#include "op_table.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

struct Call {
  gpuvec_reduce_op op;
  gpuvec_array out;
  gpuvec_array x;
  gpuvec_array y;  // dot's second input
  int kept;        // x's leading dimensions, which out has
  double ddof;
  int threads_per_block;
  gpuvec_stream stream;
};

// x and y: of any dtype, which is converted to the compute dtype where it
// differs (bool stays bool for the rows that count nonzero elements).
void check_input_dtype(const Named& a) { check_value_dtype(a); }

// What the boundary does by op, from the traits column of its row
// (gpuvec/op_table.h): ops without a value for an empty row (no_empty); the
// ops that write two results per row, out[0] and out[1] (paired); those
// that report positions, so visit a row in its own order (position); and
// those that ask only whether each element is nonzero, which may compute in
// bool (own_dtype).
bool needs_elements(gpuvec_reduce_op op) { return has_trait(reduce_info(op), "no_empty"); }
bool is_paired(gpuvec_reduce_op op) { return has_trait(reduce_info(op), "paired"); }
bool keeps_order(gpuvec_reduce_op op) { return has_trait(reduce_info(op), "position"); }
bool counts_nonzero(gpuvec_reduce_op op) { return has_trait(reduce_info(op), "own_dtype"); }
bool reduces_integers(gpuvec_reduce_op op) { return has_trait(reduce_info(op), "integers"); }

// Float sums and dot products of every element, which the staging pipeline
// takes chunk by chunk (in double: an integer sum goes the general way).
bool is_total(const Call& c, gpuvec_dtype compute) {
  return (c.op == GPUVEC_REDUCE_SUM || c.op == GPUVEC_REDUCE_DOT) && c.kept == 0 &&
         is_float(compute);
}

// The two layouts of a row reduction, as the backends take them.
// A paired op's out is seen as its first plane, out[0], the other plane
// `plane` elements away.
template <class T>
void row_reduction(const Call& c, Place place) {
  const int red = c.x.ndim - c.kept;
  const bool paired = is_paired(c.op);
  const int64_t plane = paired ? c.out.strides[0] : 0;
  const int64_t* const out_shape = c.out.shape + (paired ? 1 : 0);
  const int64_t* const out_strides = c.out.strides + (paired ? 1 : 0);
  const Layout<2> rows = simplify_layout<2>(c.kept, out_shape, {out_strides, c.x.strides});
  // The other ops may visit a row in any order, so simplify_layout may flip,
  // reorder and merge its dimensions to walk x's memory forwards.
  const Layout<1> row = keeps_order(c.op)
                            ? ordered_layout(red, c.x.shape + c.kept, c.x.strides + c.kept)
                            : simplify_layout<1>(red, c.x.shape + c.kept, {c.x.strides + c.kept});
  const T* x = static_cast<const T*>(c.x.data) + rows.offset[1] + row.offset[0];
  void* out = static_cast<char*>(c.out.data) +
              rows.offset[0] * static_cast<int64_t>(itemsize(c.out.dtype));
  if (place == Place::kDevice) {
    cuda::reduce<T>(c.op, rows, row, x, out, c.ddof, plane, c.threads_per_block, c.stream);
  } else {
    host::reduce<T>(c.op, rows, row, x, out, c.ddof, plane, c.threads_per_block, c.stream);
  }
}

template <class T>
void dot(const Call& c, Place place) {
  T* result = static_cast<T*>(c.out.data);
  const Layout<2> L = simplify_layout<2>(c.x.ndim, c.x.shape, {c.x.strides, c.y.strides});
  const T* x = static_cast<const T*>(c.x.data) + L.offset[0];
  const T* y = static_cast<const T*>(c.y.data) + L.offset[1];
  if (place == Place::kDevice) {
    cuda::dot<T>(L, x, y, result, c.threads_per_block, c.stream);
  } else {
    host::dot<T>(L, x, y, result, c.threads_per_block, c.stream);
  }
}

// On the host or the device, out and x in the same memory.
template <class T>
void run_in_memory(Call c, Place place) {
  const gpuvec_memory memory = place == Place::kDevice ? GPUVEC_MEMORY_DEVICE : GPUVEC_MEMORY_HOST;
  Scratch scratch(c.stream);
  const gpuvec_dtype compute = dtype_of<T>();
  if (c.x.dtype != compute) c.x = converted(c.x, compute, scratch, c.stream);
  if (c.op == GPUVEC_REDUCE_DOT && c.y.dtype != compute) {
    c.y = converted(c.y, compute, scratch, c.stream);
  }
  // Rows are read while results are written: an out in x's memory is
  // computed into a temporary first.
  const gpuvec_array out = c.out;
  const bool via_temporary =
      overlaps(out, c.x) || (c.op == GPUVEC_REDUCE_DOT && overlaps(out, c.y));
  if (via_temporary) c.out = temporary_like(out, out.dtype, memory, false, scratch);
  if (c.op == GPUVEC_REDUCE_DOT) {
    // Dots compute in a float dtype (bool is the counting rows' alone).
    if constexpr (std::is_floating_point_v<T>) dot<T>(c, place);
  } else {
    row_reduction<T>(c, place);
  }
  if (via_temporary) copy_array(out, c.out, memory, c.stream);
}

HostView host_view(const gpuvec_array& a, const Layout<1>& walk, int64_t offset) {
  char* data = static_cast<char*>(a.data) + offset * static_cast<int64_t>(itemsize(a.dtype));
  return {data, a.dtype, 0.0, walk};
}

// C-ordered (dense) strides of a's shape.
void c_strides(const gpuvec_array& a, int64_t* strides) {
  int64_t stride = 1;
  for (int d = a.ndim - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= a.shape[d];
  }
}

// Host arrays on the CUDA backend.
template <class T>
void run_staged(const Call& c) {
  const gpuvec_dtype compute = dtype_of<T>();
  if (is_total(c, compute)) {
    // Chunk by chunk, each chunk's total in double.
    double result = 0;
    if (c.op == GPUVEC_REDUCE_SUM) {
      const Layout<1> L = simplify_layout<1>(c.x.ndim, c.x.shape, {c.x.strides});
      result =
          cuda::staged_sum(compute, L.size, host_view(c.x, L, L.offset[0]), c.threads_per_block);
    } else {
      const Layout<2> L = simplify_layout<2>(c.x.ndim, c.x.shape, {c.x.strides, c.y.strides});
      result =
          cuda::staged_dot(compute, L.size, host_view(c.x, operand_layout(L, 0), L.offset[0]),
                           host_view(c.y, operand_layout(L, 1), L.offset[1]), c.threads_per_block);
    }
    *static_cast<T*>(c.out.data) = static_cast<T>(result);
    return;
  }
  // The others need all of x at once: upload it (converted on the way), in
  // C order, reduce on the device, and bring the results back.
  Scratch scratch(c.stream);
  Call d = c;
  d.x.memory = d.out.memory = GPUVEC_MEMORY_DEVICE;
  d.x.dtype = compute;
  c_strides(d.x, d.x.strides);
  c_strides(d.out, d.out.strides);
  const int64_t n = element_count(c.x), m = element_count(c.out);
  d.x.data = scratch.take(GPUVEC_MEMORY_DEVICE, static_cast<size_t>(n) * sizeof(T));
  d.out.data = scratch.take(GPUVEC_MEMORY_DEVICE, static_cast<size_t>(m) * itemsize(c.out.dtype));
  cuda::upload(host_view(c.x, ordered_layout(c.x.ndim, c.x.shape, c.x.strides), 0), n, compute,
               d.x.data, c.stream);
  row_reduction<T>(d, Place::kDevice);
  cuda::download(d.out.data, c.out.dtype, m,
                 host_view(c.out, ordered_layout(c.out.ndim, c.out.shape, c.out.strides), 0),
                 c.stream);
}

}  // namespace
}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_reduce(gpuvec_reduce_op op, const gpuvec_array* out,
                                       const gpuvec_array* x, const gpuvec_array* y,
                                       int reduced_ndim, gpuvec_dtype compute, double ddof,
                                       const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, true);
    const gpuvec_op_info& info = reduce_info(op);
    // Floats for every row; bool for the rows that count nonzero elements;
    // integers for those and the rows with the integers trait.
    const bool own = counts_nonzero(op);
    const bool whole_ok = own || reduces_integers(op);
    if (!is_float(compute) && !(compute == GPUVEC_BOOL && own) &&
        !(is_integer(compute) && whole_ok)) {
      throw_invalid_argument(std::string("compute must be float32 or float64") +
                             (whole_ok ? ", an integer dtype" : "") + (own ? " or bool" : "") +
                             " for " + info.name + ", got " + dtype_name(compute));
    }
    const Named xn{x, "x"}, yn{y, "y"}, on{out, "out"};
    check_array(xn, false);
    check_input_dtype(xn);
    const Named arrays[] = {on, xn, yn};
    if (info.arity == 2) {
      check_array(yn, false);
      check_same_shape(yn, xn);
      check_input_dtype(yn);
    } else if (y != nullptr) {
      throw_invalid_argument(std::string(info.name) + " takes one input, but y is given");
    }
    if (reduced_ndim < 0 || reduced_ndim > x->ndim) {
      throw_invalid_argument("reduced_ndim must be between 0 and x's ndim " +
                             std::to_string(x->ndim) + ", got " + std::to_string(reduced_ndim));
    }
    if (info.arity == 2 && reduced_ndim != x->ndim) {
      throw_invalid_argument(std::string(info.name) + " reduces every dimension of x");
    }
    check_array(on, false);
    check_dtype(on, info.result == GPUVEC_RESULT_SAME ? static_cast<int>(compute) : info.result);
    const int kept = x->ndim - reduced_ndim;
    const int lead = is_paired(op) ? 1 : 0;  // out's leading dimension of 2
    bool same = out->ndim == kept + lead && (lead == 0 || out->shape[0] == 2);
    for (int d = 0; same && d < kept; ++d) same = out->shape[d + lead] == x->shape[d];
    if (!same) {
      throw_invalid_argument(std::string("out must have the shape of ") +
                             (lead ? "2 followed by " : "") + "x's first " + std::to_string(kept) +
                             " dimensions");
    }
    const Place place = place_of(launch->backend, arrays, info.arity == 2 ? 3 : 2);
    if (element_count(*out) == 0) return;
    int64_t row_size = 1;
    for (int d = kept; d < x->ndim; ++d) row_size *= x->shape[d];
    if (row_size == 0 && needs_elements(op)) {
      throw_invalid_argument(std::string("zero-size reduction: ") + info.name +
                             " of no elements has no value");
    }

    Call c{op,
           *out,
           *x,
           y != nullptr ? *y : gpuvec_array{},
           kept,
           ddof,
           launch->threads_per_block,
           launch->stream};
    auto run = [&](auto zero) {
      using T = decltype(zero);
      if (place == Place::kStaged) {
        run_staged<T>(c);
      } else {
        run_in_memory<T>(c, place);
      }
    };
    with_dtype(compute, run);
  });
}
