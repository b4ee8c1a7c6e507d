// Scans and counts on the host backend: cumsum and cumprod, histogram and
// bincount, searchsorted, and the runs of a sorted array.
//
// A scan adds each row in order, left to right, as NumPy does, so a float
// result is NumPy's bits; rows run in parallel on the pool. Counts are made
// in order too: a weighted bin's sum is then the sum NumPy's bincount makes.
// The arithmetic (wrapping integers, bins, binary searches) is the CUDA
// kernels' own, from gpuvec/scan_kernels.hpp.
#include <stdint.h>
#include <string.h>

#include "../kit/scan_backends.hpp"
#include "gpuvec/scan_kernels.hpp"
#include "parallel.hpp"

namespace gpuvec::host {
namespace {

// Rows of fewer elements are not worth a thread of their own.
constexpr int64_t kParallelElements = int64_t{1} << 15;

}  // namespace

template <class T>
void scan(gpuvec_scan_op op, int64_t rows, int64_t n, const T* x, T* out, gpuvec_stream) {
  const bool parallel = rows > 1 && rows * n >= kParallelElements;
  for_each(rows, parallel, [&](int64_t r, int) {
    const T* in = x + r * n;
    T* o = out + r * n;
    T acc = in[0];
    o[0] = acc;
    if (op == GPUVEC_SCAN_SUM) {
      for (int64_t i = 1; i < n; ++i) o[i] = acc = combine<0>(acc, in[i]);
    } else {
      for (int64_t i = 1; i < n; ++i) o[i] = acc = combine<1>(acc, in[i]);
    }
  });
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
