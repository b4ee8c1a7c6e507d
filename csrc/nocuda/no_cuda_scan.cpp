// Stand-ins for the CUDA backend's scans, sorts and counts in a host-only
// build (no_cuda.cpp's, for gpuvec/scan.h): each fails with
// GPUVEC_ERROR_NOT_BUILT.
#include "../kit/error.hpp"
#include "../kit/scan_backends.hpp"

namespace gpuvec::cuda {
namespace {

[[noreturn]] void not_built() {
  throw Error(GPUVEC_ERROR_NOT_BUILT,
              "gpuvec was built without its CUDA backend (nvcc was not found, or the build "
              "used -Dcuda=disabled); reinstall with the CUDA toolkit on PATH");
}

}  // namespace

template <class T>
void scan(gpuvec_scan_op, int64_t, int64_t, const T*, T*, gpuvec_stream) {
  not_built();
}
template <class T>
void sort(int64_t, int64_t, const T*, T*, int64_t*, gpuvec_stream) {
  not_built();
}
void histogram(int64_t, const int64_t*, const double*, const double*, const double*, int64_t,
               void*, gpuvec_stream) {
  not_built();
}
template <class T>
void searchsorted(int64_t, const T*, int64_t, const T*, bool, int64_t*, gpuvec_stream) {
  not_built();
}
template <class T>
void sorted_runs(int64_t, const T*, uint8_t*, gpuvec_stream) {
  not_built();
}

#define GPUVEC_INSTANTIATE(T)                                                           \
  template void scan<T>(gpuvec_scan_op, int64_t, int64_t, const T*, T*, gpuvec_stream); \
  template void sort<T>(int64_t, int64_t, const T*, T*, int64_t*, gpuvec_stream);       \
  template void searchsorted<T>(int64_t, const T*, int64_t, const T*, bool, int64_t*,   \
                                gpuvec_stream);                                         \
  template void sorted_runs<T>(int64_t, const T*, uint8_t*, gpuvec_stream);
GPUVEC_SCAN_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::cuda
