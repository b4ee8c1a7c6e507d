// Stand-ins for the CUDA backend in a host-only build (no nvcc, or
// -Dcuda=disabled). Every entry point fails with GPUVEC_ERROR_NOT_BUILT and
// says how to get a CUDA build, so the Python layer can explain the fallback.
#include "../common/backends.hpp"
#include "../common/cast.hpp"
#include "../common/error.hpp"
#include "gpuvec/runtime.h"
#include "gpuvec/staged.h"

namespace gpuvec::cuda {
namespace {

[[noreturn]] void not_built() {
  throw Error(GPUVEC_ERROR_NOT_BUILT,
              "gpuvec was built without its CUDA backend (nvcc was not found, or the build "
              "used -Dcuda=disabled); reinstall with the CUDA toolkit on PATH");
}

}  // namespace

template <class T>
void binary(gpuvec_binary_op, const Layout<3>&, T*, const T*, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void scale(const Layout<2>&, T*, T, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void axpy(const Layout<3>&, T*, T, const T*, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void sum(const Layout<1>&, const T*, T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void dot(const Layout<2>&, const T*, const T*, T*, int, gpuvec_stream) {
  not_built();
}

template void binary<float>(gpuvec_binary_op, const Layout<3>&, float*, const float*, const float*,
                            int, gpuvec_stream);
template void binary<double>(gpuvec_binary_op, const Layout<3>&, double*, const double*,
                             const double*, int, gpuvec_stream);
template void scale<float>(const Layout<2>&, float*, float, const float*, int, gpuvec_stream);
template void scale<double>(const Layout<2>&, double*, double, const double*, int, gpuvec_stream);
template void axpy<float>(const Layout<3>&, float*, float, const float*, const float*, int,
                          gpuvec_stream);
template void axpy<double>(const Layout<3>&, double*, double, const double*, const double*, int,
                           gpuvec_stream);
template void sum<float>(const Layout<1>&, const float*, float*, int, gpuvec_stream);
template void sum<double>(const Layout<1>&, const double*, double*, int, gpuvec_stream);
template void dot<float>(const Layout<2>&, const float*, const float*, float*, int, gpuvec_stream);
template void dot<double>(const Layout<2>&, const double*, const double*, double*, int,
                          gpuvec_stream);

template <class To, class From>
void cast(const Layout<2>&, To*, const From*, gpuvec_stream) {
  not_built();
}
template void cast<double, float>(const Layout<2>&, double*, const float*, gpuvec_stream);
template void cast<float, double>(const Layout<2>&, float*, const double*, gpuvec_stream);

template <class T>
void axpby(const Layout<3>&, T*, T, const T*, T, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void unary(gpuvec_unary_op, const Layout<2>&, T*, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void clip(const Layout<4>&, T*, const T*, const T*, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void where(const Layout<4>&, T*, const uint8_t*, const T*, const T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void reduce(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const T*, void*, double, int,
            gpuvec_stream) {
  not_built();
}

template void axpby<float>(const Layout<3>&, float*, float, const float*, float, const float*, int,
                           gpuvec_stream);
template void axpby<double>(const Layout<3>&, double*, double, const double*, double,
                            const double*, int, gpuvec_stream);
template void unary<float>(gpuvec_unary_op, const Layout<2>&, float*, const float*, int,
                           gpuvec_stream);
template void unary<double>(gpuvec_unary_op, const Layout<2>&, double*, const double*, int,
                            gpuvec_stream);
template void clip<float>(const Layout<4>&, float*, const float*, const float*, const float*, int,
                          gpuvec_stream);
template void clip<double>(const Layout<4>&, double*, const double*, const double*, const double*,
                           int, gpuvec_stream);
template void where<float>(const Layout<4>&, float*, const uint8_t*, const float*, const float*,
                           int, gpuvec_stream);
template void where<double>(const Layout<4>&, double*, const uint8_t*, const double*,
                            const double*, int, gpuvec_stream);
template void reduce<float>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const float*,
                            void*, double, int, gpuvec_stream);
template void reduce<double>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const double*,
                             void*, double, int, gpuvec_stream);

}  // namespace gpuvec::cuda

using gpuvec::guard;

extern "C" {

int gpuvec_cuda_built(void) { return 0; }
gpuvec_status gpuvec_cuda_versions(int* runtime_version, int* driver_version) {
  *runtime_version = 0;
  *driver_version = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_device_count(int* count) {
  *count = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_device_info(int, gpuvec_device_info*) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_get_device(int* device) {
  *device = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_set_device(int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_mem_info(size_t* free_bytes, size_t* total_bytes) {
  *free_bytes = 0;
  *total_bytes = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_alloc(size_t, gpuvec_stream, void** ptr) {
  *ptr = nullptr;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_free(void*, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_copy_to_device(void*, const void*, size_t, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_copy_to_host(void*, const void*, size_t, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_stream_synchronize(gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_device_synchronize(void) {
  return guard([] { gpuvec::cuda::not_built(); });
}

gpuvec_status gpuvec_cuda_copy_on_device(void*, const void*, size_t, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_pool_usage(size_t* used_bytes, size_t* reserved_bytes) {
  *used_bytes = 0;
  *reserved_bytes = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_pool_release_cached(void) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_stream_create(gpuvec_stream* stream) {
  *stream = nullptr;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_stream_destroy(gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_event_create(gpuvec_event* event) {
  *event = nullptr;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_event_destroy(gpuvec_event) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_event_record(gpuvec_event, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_event_synchronize(gpuvec_event) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_event_elapsed_ms(gpuvec_event, gpuvec_event, float* ms) {
  *ms = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_stream_wait_event(gpuvec_stream, gpuvec_event) {
  return guard([] { gpuvec::cuda::not_built(); });
}

gpuvec_status gpuvec_staged_binary(gpuvec_binary_op, gpuvec_dtype, int, const int64_t*,
                                   gpuvec_host_array, gpuvec_host_array, void*, const int64_t*,
                                   int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_scale(gpuvec_dtype, double, int, const int64_t*, gpuvec_host_array,
                                  void*, const int64_t*, int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_axpy(gpuvec_dtype, double, int, const int64_t*, gpuvec_host_array,
                                 gpuvec_host_array, void*, const int64_t*, int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_axpby(gpuvec_dtype, double, double, int, const int64_t*,
                                  gpuvec_host_array, gpuvec_host_array, void*, const int64_t*,
                                  int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_unary(gpuvec_unary_op, gpuvec_dtype, int, const int64_t*,
                                  gpuvec_host_array, void*, const int64_t*, int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_sum(gpuvec_dtype, int, const int64_t*, gpuvec_host_array, double*,
                                int) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_dot(gpuvec_dtype, int, const int64_t*, gpuvec_host_array,
                                gpuvec_host_array, double*, int) {
  return guard([] { gpuvec::cuda::not_built(); });
}

gpuvec_status gpuvec_staged_upload(gpuvec_dtype, int, const int64_t*, gpuvec_host_array, void*,
                                   gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_staged_download(void*, const void*, size_t, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}

gpuvec_status gpuvec_cuda_read_scalar(const void*, size_t, gpuvec_stream, void*) {
  return guard([] { gpuvec::cuda::not_built(); });
}

gpuvec_status gpuvec_cuda_result_slot_alloc(void** slot) {
  *slot = nullptr;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_result_slot_free(void*, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}

}  // extern "C"
