// Scans and counts on the host backend: cumsum and cumprod, histogram and
// bincount, searchsorted, and the runs of a sorted array.
//
// A float scan adds each row in order, left to right, as NumPy does, so its
// result is NumPy's bits; rows run in parallel on the pool. Integer
// arithmetic wraps around and is associative, so a long integer row is
// scanned in pieces on the pool instead: each piece's total first, then
// each piece again from the totals of the pieces before it. Counts are made
// in order too: a weighted bin's sum is then the sum NumPy's bincount makes.
// The arithmetic (wrapping integers, bins, binary searches) is the CUDA
// kernels' own, from gpuvec/scan_kernels.hpp.
#include <stdint.h>
#include <string.h>

#include <memory>

#include "../kit/scan_backends.hpp"
#include "gpuvec/scan_kernels.hpp"
#include "parallel.hpp"

namespace gpuvec::host {
namespace {

// Rows of fewer elements are not worth a thread of their own.
constexpr int64_t kParallelElements = int64_t{1} << 15;

// out[i] = the scan of in[0..i] from `carry` (the scan of what comes
// before in[0]), for i < n; or from in[0] itself where `first`.
template <int Op, class T>
T scan_run(int64_t n, const T* in, T* out, T carry, bool first) {
  int64_t i = 0;
  if (first) out[i++] = carry = in[0];
  for (; i < n; ++i) out[i] = carry = combine<Op>(carry, in[i]);
  return carry;
}

// The combination of in[0..n), n > 0.
template <int Op, class T>
T total(int64_t n, const T* in) {
  T acc = in[0];
  for (int64_t i = 1; i < n; ++i) acc = combine<Op>(acc, in[i]);
  return acc;
}

template <int Op, class T>
void scan_rows(int64_t rows, int64_t n, const T* x, T* out) {
  const int threads = workers(rows * n >= kParallelElements);
  const int64_t count = is_integer_v<T> && rows == 1 ? pieces(n, threads, kParallelElements) : 1;
  if (count > 1) {
    const auto begin_of = [&](int64_t p) { return piece_begin(n, count, p); };
    std::unique_ptr<T[]> totals(new T[static_cast<size_t>(count)]);  // not vector<bool>
    for_each(count, true, [&](int64_t p, int) {
      totals[static_cast<size_t>(p)] = total<Op>(begin_of(p + 1) - begin_of(p), x + begin_of(p));
    });
    for (int64_t p = 1; p < count; ++p) {  // each piece's carry: the pieces' before it
      totals[static_cast<size_t>(p)] =
          combine<Op>(totals[static_cast<size_t>(p - 1)], totals[static_cast<size_t>(p)]);
    }
    for_each(count, true, [&](int64_t p, int) {
      const int64_t b = begin_of(p);
      const T carry = p > 0 ? totals[static_cast<size_t>(p - 1)] : T{};
      scan_run<Op>(begin_of(p + 1) - b, x + b, out + b, carry, p == 0);
    });
    return;
  }
  for_each(rows, rows > 1 && threads > 1,
           [&](int64_t r, int) { scan_run<Op>(n, x + r * n, out + r * n, T{}, true); });
}

}  // namespace

template <class T>
void scan(gpuvec_scan_op op, int64_t rows, int64_t n, const T* x, T* out, gpuvec_stream) {
  if (op == GPUVEC_SCAN_SUM) {
    scan_rows<0>(rows, n, x, out);
  } else {
    scan_rows<1>(rows, n, x, out);
  }
}

void histogram(int64_t n, const int64_t* bin_of, const double* x, const double* edges,
               const double* weights, int64_t bins, void* counts, gpuvec_stream) {
  if (bins == 0) return;
  const size_t bytes = static_cast<size_t>(bins) * 8;
  memset(counts, 0, bytes);  // 0 is 0.0 too
  auto each = [&](auto&& count) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = bin_of != nullptr ? bin_of[i] : histogram_bin(x[i], edges, bins);
      if (b >= 0 && b < bins) count(b, i);
    }
  };
  if (weights == nullptr) {
    int64_t* c = static_cast<int64_t*>(counts);
    each([&](int64_t b, int64_t) { ++c[b]; });
  } else {
    double* c = static_cast<double*>(counts);
    each([&](int64_t b, int64_t i) { c[b] += weights[i]; });
  }
}

template <class T>
void searchsorted(int64_t n, const T* sorted, int64_t m, const T* v, bool right, int64_t* out,
                  gpuvec_stream) {
  for_each(m, m >= kParallelElements,
           [&](int64_t i, int) { out[i] = insertion_point(sorted, n, sort_key(v[i]), right); });
}

template <class T>
void sorted_runs(int64_t n, const T* sorted, uint8_t* starts, gpuvec_stream) {
  starts[0] = 1;
  for (int64_t i = 1; i < n; ++i) starts[i] = sort_key(sorted[i]) != sort_key(sorted[i - 1]);
}

#define GPUVEC_INSTANTIATE(T)                                                           \
  template void scan<T>(gpuvec_scan_op, int64_t, int64_t, const T*, T*, gpuvec_stream); \
  template void searchsorted<T>(int64_t, const T*, int64_t, const T*, bool, int64_t*,   \
                                gpuvec_stream);                                         \
  template void sorted_runs<T>(int64_t, const T*, uint8_t*, gpuvec_stream);
GPUVEC_SCAN_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::host
