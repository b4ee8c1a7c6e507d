// gpuvec_scan, gpuvec_sort, gpuvec_histogram, gpuvec_searchsorted and
// gpuvec_sorted_runs: scans, sorts and counts (gpuvec/scan.h).
//
// The boundary checks a call, then gives the backends (kit/scan_backends.hpp)
// dense C-order arrays of the dtype each reads: an input in another layout
// or dtype is copied (converted) into a dense temporary first, and so is an
// input that overlaps an output (other than a scan's out being x itself,
// which the scans allow). An output that is not dense is computed in a
// temporary, then copied into place.
#include <stdint.h>

#include <string>

#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "../kit/scan_backends.hpp"
#include "arrays.hpp"
#include "checks.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

// Host arrays are worked on by the host backend's loops, also on the CUDA
// backend (gpuvec/scan.h says why).
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

// A new dense C-order array of a's shape and `dtype`, in `memory`.
gpuvec_array dense_temporary(const gpuvec_array& a, gpuvec_dtype dtype, gpuvec_memory memory,
                             Scratch& scratch) {
  gpuvec_array t = a;
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

// a as a backend reads it: a itself when it is dense, in C order and of
// `dtype`, unless `snapshot` (it overlaps an output); else a dense copy.
gpuvec_array dense_input(const gpuvec_array& a, gpuvec_dtype dtype, gpuvec_memory memory,
                         bool snapshot, Scratch& scratch, gpuvec_stream stream) {
  if (!snapshot && a.dtype == dtype && dense_c_order(a)) return a;
  const gpuvec_array t = dense_temporary(a, dtype, memory, scratch);
  copy_array(t, a, memory, stream);
  return t;
}

// Where an output is computed: itself when dense, else a temporary that
// finish() copies into it.
struct Output {
  const gpuvec_array* target;
  gpuvec_array work;

  Output(const gpuvec_array* out, gpuvec_memory memory, Scratch& scratch)
      : target(out), work(out == nullptr ? gpuvec_array{} : *out) {
    if (out != nullptr && !dense_c_order(*out)) {
      work = dense_temporary(*out, out->dtype, memory, scratch);
    }
  }
  template <class T>
  T* data() const {
    return target == nullptr ? nullptr : static_cast<T*>(work.data);
  }
  void finish(gpuvec_memory memory, gpuvec_stream stream) const {
    if (target != nullptr && work.data != target->data) copy_array(*target, work, memory, stream);
  }
};

bool on_device(gpuvec_memory memory) { return memory == GPUVEC_MEMORY_DEVICE; }

void check_rows(const Named& a) {
  if (a.array->ndim < 1) {
    throw_invalid_argument(a.name() + " must have at least one dimension, got a 0-d array");
  }
}

void check_1d(const Named& a) {
  if (a.array->ndim != 1) {
    throw_invalid_argument(a.name() + " must be 1-D, got " + std::to_string(a.array->ndim) +
                           " dimensions");
  }
}

void check_known_dtype(const Named& a) {
  with_dtype(a.array->dtype, [](auto) {});
}

void scan(gpuvec_scan_op op, const gpuvec_array& out, const gpuvec_array& x, gpuvec_memory memory,
          gpuvec_stream stream) {
  const int64_t count = element_count(out);
  if (count == 0) return;
  Scratch scratch(stream);
  // out may be x's very view: each element is read before it is written.
  const bool snapshot = overlaps(x, out) && !same_view(x, out);
  const gpuvec_array xs = dense_input(x, out.dtype, memory, snapshot, scratch, stream);
  const Output o(&out, memory, scratch);
  const int64_t n = out.shape[out.ndim - 1];
  with_dtype(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* from = static_cast<const T*>(xs.data);
    if (on_device(memory)) {
      cuda::scan<T>(op, count / n, n, from, o.data<T>(), stream);
    } else {
      host::scan<T>(op, count / n, n, from, o.data<T>(), stream);
    }
  });
  o.finish(memory, stream);
}

void sort(const gpuvec_array* values, const gpuvec_array* indices, const gpuvec_array& x,
          gpuvec_memory memory, gpuvec_stream stream) {
  const int64_t count = element_count(x);
  if (count == 0) return;
  Scratch scratch(stream);
  const bool snapshot =
      (values != nullptr && overlaps(*values, x)) || (indices != nullptr && overlaps(*indices, x));
  const gpuvec_array xs = dense_input(x, x.dtype, memory, snapshot, scratch, stream);
  const Output v(values, memory, scratch);
  const Output i(indices, memory, scratch);
  const int64_t n = x.shape[x.ndim - 1];
  with_dtype(x.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* from = static_cast<const T*>(xs.data);
    if (on_device(memory)) {
      cuda::sort<T>(count / n, n, from, v.data<T>(), i.data<int64_t>(), stream);
    } else {
      host::sort<T>(count / n, n, from, v.data<T>(), i.data<int64_t>(), stream);
    }
  });
  v.finish(memory, stream);
  i.finish(memory, stream);
}

void histogram(const gpuvec_array& counts, const gpuvec_array& x, const gpuvec_array* weights,
               const gpuvec_array* edges, gpuvec_memory memory, gpuvec_stream stream) {
  Scratch scratch(stream);
  const Output c(&counts, memory, scratch);
  const int64_t bins = counts.shape[0];
  const int64_t n = element_count(x);
  const gpuvec_dtype x_dtype = edges == nullptr ? GPUVEC_INT64 : GPUVEC_FLOAT64;
  // Inputs overlapping counts are read from copies: counts is cleared first.
  const gpuvec_array xs = dense_input(x, x_dtype, memory, overlaps(x, counts), scratch, stream);
  const double* w = nullptr;
  if (weights != nullptr) {
    w = static_cast<const double*>(
        dense_input(*weights, GPUVEC_FLOAT64, memory, overlaps(*weights, counts), scratch, stream)
            .data);
  }
  const double* e = nullptr;
  if (edges != nullptr) {
    e = static_cast<const double*>(
        dense_input(*edges, GPUVEC_FLOAT64, memory, overlaps(*edges, counts), scratch, stream)
            .data);
  }
  const int64_t* bin_of = edges == nullptr ? static_cast<const int64_t*>(xs.data) : nullptr;
  const double* values = edges == nullptr ? nullptr : static_cast<const double*>(xs.data);
  if (on_device(memory)) {
    cuda::histogram(n, bin_of, values, e, w, bins, c.data<void>(), stream);
  } else {
    host::histogram(n, bin_of, values, e, w, bins, c.data<void>(), stream);
  }
  c.finish(memory, stream);
}

void searchsorted(const gpuvec_array& out, const gpuvec_array& sorted, const gpuvec_array& v,
                  bool right, gpuvec_memory memory, gpuvec_stream stream) {
  const int64_t m = element_count(v);
  if (m == 0) return;
  Scratch scratch(stream);
  const gpuvec_array s =
      dense_input(sorted, sorted.dtype, memory, overlaps(sorted, out), scratch, stream);
  const gpuvec_array vs = dense_input(v, v.dtype, memory, overlaps(v, out), scratch, stream);
  const Output o(&out, memory, scratch);
  const int64_t n = element_count(sorted);
  with_dtype(v.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* a = static_cast<const T*>(s.data);
    const T* values = static_cast<const T*>(vs.data);
    if (on_device(memory)) {
      cuda::searchsorted<T>(n, a, m, values, right, o.data<int64_t>(), stream);
    } else {
      host::searchsorted<T>(n, a, m, values, right, o.data<int64_t>(), stream);
    }
  });
  o.finish(memory, stream);
}

void sorted_runs(const gpuvec_array& starts, const gpuvec_array& sorted, gpuvec_memory memory,
                 gpuvec_stream stream) {
  const int64_t n = element_count(sorted);
  if (n == 0) return;
  Scratch scratch(stream);
  const gpuvec_array s =
      dense_input(sorted, sorted.dtype, memory, overlaps(sorted, starts), scratch, stream);
  const Output o(&starts, memory, scratch);
  with_dtype(sorted.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* a = static_cast<const T*>(s.data);
    if (on_device(memory)) {
      cuda::sorted_runs<T>(n, a, o.data<uint8_t>(), stream);
    } else {
      host::sorted_runs<T>(n, a, o.data<uint8_t>(), stream);
    }
  });
  o.finish(memory, stream);
}

}  // namespace
}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_scan(gpuvec_scan_op op, const gpuvec_array* out,
                                     const gpuvec_array* x, const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    if (op != GPUVEC_SCAN_SUM && op != GPUVEC_SCAN_PROD) {
      throw_invalid_argument("unknown scan op " + std::to_string(static_cast<int>(op)));
    }
    const Named o{out, "out"}, a{x, "x"};
    check_array(o, false);
    check_array(a, false);
    check_rows(a);
    check_same_shape(o, a);
    check_known_dtype(o);
    check_known_dtype(a);
    const Named all[] = {o, a};
    scan(op, *out, *x, work_memory(place_of(launch->backend, all, 2)), launch->stream);
  });
}

extern "C" gpuvec_status gpuvec_sort(const gpuvec_array* values, const gpuvec_array* indices,
                                     const gpuvec_array* x, const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    if (values == nullptr && indices == nullptr) {
      throw_invalid_argument("values and indices are both null pointers: ask for one or both");
    }
    const Named a{x, "x"}, v{values, "values"}, i{indices, "indices"};
    check_array(a, false);
    check_rows(a);
    check_known_dtype(a);
    Named all[3] = {a};
    int count = 1;
    if (values != nullptr) {
      check_array(v, false);
      check_same_shape(v, a);
      check_dtype(v, x->dtype);
      all[count++] = v;
    }
    if (indices != nullptr) {
      check_array(i, false);
      check_same_shape(i, a);
      check_dtype(i, GPUVEC_INT64);
      all[count++] = i;
    }
    sort(values, indices, *x, work_memory(place_of(launch->backend, all, count)), launch->stream);
  });
}

extern "C" gpuvec_status gpuvec_histogram(const gpuvec_array* counts, const gpuvec_array* x,
                                          const gpuvec_array* weights, const gpuvec_array* edges,
                                          const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const Named c{counts, "counts"}, a{x, "x"}, w{weights, "weights"}, e{edges, "edges"};
    check_array(c, false);
    check_1d(c);
    check_dtype(c, weights == nullptr ? GPUVEC_INT64 : GPUVEC_FLOAT64);
    check_array(a, false);
    check_known_dtype(a);
    Named all[4] = {c, a};
    int count = 2;
    if (weights != nullptr) {
      check_array(w, false);
      check_same_shape(w, a);
      check_known_dtype(w);
      all[count++] = w;
    }
    if (edges != nullptr) {
      check_array(e, false);
      check_1d(e);
      check_known_dtype(e);
      if (edges->shape[0] != counts->shape[0] + 1) {
        throw_invalid_argument("edges has " + std::to_string(edges->shape[0]) +
                               " elements, but counts has " + std::to_string(counts->shape[0]) +
                               " bins: give one edge more than bins");
      }
      all[count++] = e;
    }
    histogram(*counts, *x, weights, edges, work_memory(place_of(launch->backend, all, count)),
              launch->stream);
  });
}

extern "C" gpuvec_status gpuvec_searchsorted(const gpuvec_array* out, const gpuvec_array* sorted,
                                             const gpuvec_array* v, int right,
                                             const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const Named o{out, "out"}, s{sorted, "sorted"}, a{v, "v"};
    check_array(o, false);
    check_array(s, false);
    check_array(a, false);
    check_1d(s);
    check_same_shape(o, a);
    check_dtype(o, GPUVEC_INT64);
    check_known_dtype(a);
    check_dtype(s, v->dtype);
    const Named all[] = {o, s, a};
    searchsorted(*out, *sorted, *v, right != 0, work_memory(place_of(launch->backend, all, 3)),
                 launch->stream);
  });
}

extern "C" gpuvec_status gpuvec_sorted_runs(const gpuvec_array* starts, const gpuvec_array* sorted,
                                            const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const Named o{starts, "starts"}, s{sorted, "sorted"};
    check_array(o, false);
    check_array(s, false);
    check_1d(s);
    check_same_shape(o, s);
    check_dtype(o, GPUVEC_BOOL);
    check_known_dtype(s);
    const Named all[] = {o, s};
    sorted_runs(*starts, *sorted, work_memory(place_of(launch->backend, all, 2)), launch->stream);
  });
}
