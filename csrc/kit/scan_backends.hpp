// What each backend implements for scans, sorts and counts (gpuvec/scan.h).
// The boundary (csrc/common/abi_scan.cpp) checks a call and hands these
// functions dense arrays in C order, already of the dtype each reads, so
// that a backend has no layout to walk and no conversion to make. Each is
// compiled per dtype T where it must compare or add values; the sorts
// themselves are radix sorts of sort_key_t<T> (gpuvec/sort_keys.hpp), per
// unsigned width.
#ifndef GPUVEC_KIT_SCAN_BACKENDS_HPP
#define GPUVEC_KIT_SCAN_BACKENDS_HPP

#include <stdint.h>

#include "gpuvec/gpuvec.h"

namespace gpuvec {

// The host backend ignores the stream.
#define GPUVEC_SCAN_FUNCTIONS                                                                    \
  /* out[r, :] = the inclusive scan `op` of x[r, :], for each of `rows` rows of n */             \
  template <class T>                                                                             \
  void scan(gpuvec_scan_op op, int64_t rows, int64_t n, const T* x, T* out,                      \
            gpuvec_stream stream);                                                               \
  /* Each row of x sorted stably: values (may be null, may be x) and indices in the row */       \
  /* (may be null) */                                                                            \
  template <class T>                                                                             \
  void sort(int64_t rows, int64_t n, const T* x, T* values, int64_t* indices,                    \
            gpuvec_stream stream);                                                               \
  /* counts (int64, or double with weights) of `bins` bins, overwritten: element i in bin */     \
  /* bin_of[i] (bincount; x null) or in the bin of x[i] among bins + 1 edges (bin_of null); */   \
  /* weights may be null */                                                                      \
  void histogram(int64_t n, const int64_t* bin_of, const double* x, const double* edges,         \
                 const double* weights, int64_t bins, void* counts, gpuvec_stream stream);       \
  /* out[i] = the insertion point of v[i] in sorted[0, n) */                                     \
  template <class T>                                                                             \
  void searchsorted(int64_t n, const T* sorted, int64_t m, const T* v, bool right, int64_t* out, \
                    gpuvec_stream stream);                                                       \
  /* starts[i] = whether sorted[i] begins a run of equal elements */                             \
  template <class T>                                                                             \
  void sorted_runs(int64_t n, const T* sorted, uint8_t* starts, gpuvec_stream stream);

namespace host {
GPUVEC_SCAN_FUNCTIONS
}  // namespace host

namespace cuda {
GPUVEC_SCAN_FUNCTIONS
}  // namespace cuda

#undef GPUVEC_SCAN_FUNCTIONS

// The types of the per-dtype functions above: every dtype's.
#define GPUVEC_SCAN_TYPES(X) \
  X(float)                   \
  X(double)                  \
  X(bool)                    \
  X(int8_t)                  \
  X(int16_t)                 \
  X(int32_t)                 \
  X(int64_t)                 \
  X(uint8_t)                 \
  X(uint16_t)                \
  X(uint32_t)                \
  X(uint64_t)

}  // namespace gpuvec

#endif  // GPUVEC_KIT_SCAN_BACKENDS_HPP
