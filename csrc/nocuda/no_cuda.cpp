// Stand-ins for the CUDA backend in a host-only build (no nvcc, or
// -Dcuda=disabled). Every entry point fails with GPUVEC_ERROR_NOT_BUILT and
// says how to get a CUDA build, so the Python layer can explain the fallback.
#include "../kit/backends.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "../kit/select_backends.hpp"
#include "gpuvec/runtime.h"

namespace gpuvec::cuda {
namespace {

[[noreturn]] void not_built() {
  throw Error(GPUVEC_ERROR_NOT_BUILT,
              "gpuvec was built without its CUDA backend (nvcc was not found, or the build "
              "used -Dcuda=disabled); reinstall with the CUDA toolkit on PATH");
}

}  // namespace

template <class T, int Arity, class S>
void elementwise(gpuvec_op, const Layout<Arity + 1>&, void*, const Inputs<T, Arity, S>&,
                 const double*, int, gpuvec_stream) {
  not_built();
}
template <class To, class From>
void cast(const Layout<2>&, To*, Operand<From>, gpuvec_stream) {
  not_built();
}
template <class T>
void dot(const Layout<2>&, const T*, const T*, T*, int, gpuvec_stream) {
  not_built();
}
template <class T>
void reduce(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const T*, void*, double, int64_t,
            int, gpuvec_stream) {
  not_built();
}

GPUVEC_INPUT_TYPES(GPUVEC_INSTANTIATE_ELEMENTWISE_ALL)

template void dot<float>(const Layout<2>&, const float*, const float*, float*, int, gpuvec_stream);
template void dot<double>(const Layout<2>&, const double*, const double*, double*, int,
                          gpuvec_stream);
GPUVEC_REDUCE_TYPES(GPUVEC_INSTANTIATE_REDUCE)

#define GPUVEC_INSTANTIATE(To, From) \
  template void cast<To, From>(const Layout<2>&, To*, Operand<From>, gpuvec_stream);
GPUVEC_CAST_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

void* allocate(size_t, gpuvec_stream) { not_built(); }
void deallocate(void*, size_t, gpuvec_stream) { not_built(); }

void staged_elementwise(gpuvec_op, const double*, gpuvec_dtype, int64_t, const HostView&,
                        const HostView*, int, int) {
  not_built();
}
double staged_sum(gpuvec_dtype, int64_t, const HostView&, int) { not_built(); }
double staged_dot(gpuvec_dtype, int64_t, const HostView&, const HostView&, int) { not_built(); }
void upload(const HostView&, int64_t, gpuvec_dtype, void*, gpuvec_stream) { not_built(); }
void download(const void*, gpuvec_dtype, int64_t, const HostView&, gpuvec_stream) { not_built(); }

void* load_library(const void*, size_t) { not_built(); }
void unload_library(void*) { not_built(); }
void* find_kernel(void*, const char*) { not_built(); }
void kernel_attributes(void*, gpuvec_kernel_attributes*) { not_built(); }
void launch_kernel(void*, const gpuvec_kernel_config&, void**, gpuvec_stream) { not_built(); }
void launch_map(void*, const MapPlan&, const void*, int64_t, const void*, void*,
                const void* const*, int, int, gpuvec_stream) {
  not_built();
}
int reduce_threads(int) { not_built(); }
ReduceDevice reduce_device() { not_built(); }
void launch_map_reduce(void* const*, const ReducePlan&, const void*, int64_t, const void*, void*,
                       const void* const*, int, gpuvec_stream) {
  not_built();
}
// Registered by `import gpuvec` in every build; nothing here ever calls it.
void set_kernel_compiler(gpuvec_kernel_compiler) {}
void nvrtc_version(const char*, int*, int*) { not_built(); }
NvrtcResult nvrtc_compile(const char*, const NvrtcProgram&) { not_built(); }

int64_t count_true(int64_t, const uint8_t*, gpuvec_stream) { not_built(); }
template <class Bits>
void compress(int64_t, const Bits*, const uint8_t*, Bits*, int, gpuvec_stream) {
  not_built();
}
template <class Bits>
void expand(int64_t, Bits*, const uint8_t*, const Bits*, bool, int, gpuvec_stream) {
  not_built();
}
#define GPUVEC_INSTANTIATE(Bits)                                                                 \
  template void compress<Bits>(int64_t, const Bits*, const uint8_t*, Bits*, int, gpuvec_stream); \
  template void expand<Bits>(int64_t, Bits*, const uint8_t*, const Bits*, bool, int,             \
                             gpuvec_stream);
GPUVEC_SELECT_BITS(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

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
gpuvec_status gpuvec_cuda_free(void*, size_t, gpuvec_stream) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_set_memory_limit(size_t) {
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

gpuvec_status gpuvec_cuda_pool_usage(size_t* used_bytes, size_t* reserved_bytes) {
  *used_bytes = 0;
  *reserved_bytes = 0;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_pool_release_cached(void) {
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_pinned_result_alloc(size_t, void** block) {
  *block = nullptr;
  return guard([] { gpuvec::cuda::not_built(); });
}
gpuvec_status gpuvec_cuda_pinned_result_free(void*) {
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
