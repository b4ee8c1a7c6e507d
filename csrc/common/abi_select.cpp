// gpuvec_count_true, gpuvec_compress and gpuvec_expand: boolean masks,
// NumPy's x[mask] and x[mask] = values.
//
// The boundary checks a call, then gives the backends (kit/select_backends.hpp)
// every array dense and in C order: the k-th selected element is then the
// k-th whose mask byte is true, with no layout to walk. An array in another
// layout (Fortran order, reversed, a broadcast mask) is copied into a dense
// temporary first, and so is an array that overlaps one the call writes, so
// that nothing is read after it was overwritten.
#include <stdint.h>

#include <string>

#include "../kit/backends.hpp"
#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "../kit/select_backends.hpp"
#include "arrays.hpp"
#include "checks.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

// Host arrays are worked on by the host backend's loops, also on the CUDA
// backend: a selection only moves elements, and sending them to the device
// and back would cost more than moving them where they are.
gpuvec_memory work_memory(Place place) {
  return place == Place::kDevice ? GPUVEC_MEMORY_DEVICE : GPUVEC_MEMORY_HOST;
}

bool dense_c_order(const gpuvec_array& a) {
  int64_t stride = 1;
  for (int d = a.ndim - 1; d >= 0; --d) {
    if (a.shape[d] != 1 && a.strides[d] != stride) return false;
    stride *= a.shape[d];
  }
  return true;
}

// A new dense C-order array of a's shape (one value for a scalar) and
// `dtype`, in `memory`.
gpuvec_array dense_temporary(const gpuvec_array& a, gpuvec_dtype dtype, gpuvec_memory memory,
                             Scratch& scratch) {
  gpuvec_array t = a;
  if (is_scalar(a)) t.ndim = 0;
  t.dtype = dtype;
  t.memory = memory;
  int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    t.strides[d] = stride;
    stride *= t.shape[d];
  }
  t.data = scratch.take(memory, static_cast<size_t>(stride) * itemsize(dtype));
  return t;
}

// a as the backends read it: a itself when it is dense, in C order and of
// `dtype`, else a dense copy converted to `dtype`. With `snapshot`, a copy
// whatever a's layout: a is an array that the call overwrites.
gpuvec_array dense(const gpuvec_array& a, gpuvec_dtype dtype, gpuvec_memory memory, bool snapshot,
                   Scratch& scratch, gpuvec_stream stream) {
  if (!snapshot && !is_scalar(a) && a.dtype == dtype && dense_c_order(a)) return a;
  const gpuvec_array t = dense_temporary(a, dtype, memory, scratch);
  copy_array(t, a, memory, stream);
  return t;
}

const uint8_t* bytes_of(const gpuvec_array& mask) {
  return static_cast<const uint8_t*>(mask.data);
}

// The number of true elements of a dense mask, counted where it is.
int64_t count_true_in(const gpuvec_array& mask, gpuvec_memory memory, gpuvec_stream stream) {
  const int64_t n = element_count(mask);
  return memory == GPUVEC_MEMORY_DEVICE ? cuda::count_true(n, bytes_of(mask), stream)
                                        : host::count_true(n, bytes_of(mask), stream);
}

// x and a mask of its shape and dtype bool.
void check_x_and_mask(const Named& x, const Named& mask) {
  check_array(x, false);
  check_array(mask, false);
  check_same_shape(mask, x);
  check_dtype(mask, GPUVEC_BOOL);
  with_stored_dtype(x.array->dtype, [](auto) {});  // a known dtype: selections move bits
}

void compress(const gpuvec_array& out, const gpuvec_array& x, const gpuvec_array& mask,
              gpuvec_memory memory, const gpuvec_launch& launch) {
  const gpuvec_stream stream = launch.stream;
  Scratch scratch(stream);
  const gpuvec_array m = dense(mask, GPUVEC_BOOL, memory, false, scratch, stream);
  const int64_t count = count_true_in(m, memory, stream);
  if (element_count(out) != count) {
    throw_invalid_argument("out has " + std::to_string(element_count(out)) +
                           " elements, but mask has " + std::to_string(count) + " true elements");
  }
  if (count == 0) return;
  const gpuvec_array xs = dense(x, x.dtype, memory, false, scratch, stream);
  // Written straight into out when it is dense and overlaps neither input,
  // else into a temporary that is then copied into out.
  const bool direct = dense_c_order(out) && !overlaps(out, x) && !overlaps(out, mask);
  const gpuvec_array o = direct ? out : dense_temporary(out, out.dtype, memory, scratch);
  const int64_t n = element_count(x);
  with_bits(itemsize(x.dtype), [&](auto zero) {
    using Bits = decltype(zero);
    const Bits* from = static_cast<const Bits*>(xs.data);
    Bits* to = static_cast<Bits*>(o.data);
    if (memory == GPUVEC_MEMORY_DEVICE) {
      cuda::compress(n, from, bytes_of(m), to, launch.threads_per_block, stream);
    } else {
      host::compress(n, from, bytes_of(m), to, launch.threads_per_block, stream);
    }
  });
  if (o.data != out.data) copy_array(out, o, memory, stream);
}

void expand(const gpuvec_array& x, const gpuvec_array& mask, const gpuvec_array& values,
            gpuvec_memory memory, const gpuvec_launch& launch) {
  const gpuvec_stream stream = launch.stream;
  Scratch scratch(stream);
  // Snapshots first of what x overlaps (b[b] = False), before x is written.
  const gpuvec_array m = dense(mask, GPUVEC_BOOL, memory, overlaps(mask, x), scratch, stream);
  const bool broadcast = is_scalar(values) || element_count(values) == 1;
  if (!broadcast) {
    const int64_t count = count_true_in(m, memory, stream);
    if (element_count(values) != count) {
      throw_invalid_argument("values has " + std::to_string(element_count(values)) +
                             " elements, but mask has " + std::to_string(count) +
                             " true elements: give one value, or one for each");
    }
  }
  const int64_t n = element_count(x);
  if (n == 0) return;
  const gpuvec_array v = dense(values, x.dtype, memory, overlaps(values, x), scratch, stream);
  // x in place when it is dense; else a dense copy, written back afterwards.
  const gpuvec_array xs = dense(x, x.dtype, memory, false, scratch, stream);
  with_bits(itemsize(x.dtype), [&](auto zero) {
    using Bits = decltype(zero);
    Bits* to = static_cast<Bits*>(xs.data);
    const Bits* from = static_cast<const Bits*>(v.data);
    if (memory == GPUVEC_MEMORY_DEVICE) {
      cuda::expand(n, to, bytes_of(m), from, broadcast, launch.threads_per_block, stream);
    } else {
      host::expand(n, to, bytes_of(m), from, broadcast, launch.threads_per_block, stream);
    }
  });
  if (xs.data != x.data) copy_array(x, xs, memory, stream);
}

}  // namespace
}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_count_true(const gpuvec_array* mask, int64_t* count,
                                           const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    if (count == nullptr) throw_invalid_argument("count is a null pointer");
    *count = 0;
    check_launch(launch, false);
    const Named m{mask, "mask"};
    check_array(m, false);
    check_dtype(m, GPUVEC_BOOL);
    const gpuvec_memory memory = work_memory(place_of(launch->backend, &m, 1));
    if (element_count(*mask) == 0) return;
    Scratch scratch(launch->stream);
    const gpuvec_array dense_mask =
        dense(*mask, GPUVEC_BOOL, memory, false, scratch, launch->stream);
    *count = count_true_in(dense_mask, memory, launch->stream);
  });
}

extern "C" gpuvec_status gpuvec_compress(const gpuvec_array* out, const gpuvec_array* x,
                                         const gpuvec_array* mask, const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const Named o{out, "out"}, a{x, "x"}, m{mask, "mask"};
    check_x_and_mask(a, m);
    check_array(o, false);
    check_dtype(o, x->dtype);
    const Named all[] = {o, a, m};
    compress(*out, *x, *mask, work_memory(place_of(launch->backend, all, 3)), *launch);
  });
}

extern "C" gpuvec_status gpuvec_expand(const gpuvec_array* x, const gpuvec_array* mask,
                                       const gpuvec_array* values, const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const Named a{x, "x"}, m{mask, "mask"}, v{values, "values"};
    check_x_and_mask(a, m);
    check_array(v, true);
    with_stored_dtype(values->dtype, [](auto) {});
    if (!is_scalar(*values) && !convertible(x->dtype, values->dtype)) {
      throw_invalid_argument(std::string("cannot assign ") + dtype_name(values->dtype) +
                             " values to an array of " + dtype_name(x->dtype));
    }
    const Named all[] = {a, m, v};
    expand(*x, *mask, *values, work_memory(place_of(launch->backend, all, 3)), *launch);
  });
}
