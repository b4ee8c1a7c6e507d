// Devices, memory and streams on the CUDA backend (see gpuvec/runtime.h).
#include <cuda_runtime.h>
#include <stdint.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "../kit/backends.hpp"
#include "../kit/error.hpp"
#include "check.cuh"
#include "freed_blocks.hpp"
#include "gpuvec/runtime.h"
#include "known_streams.hpp"
#include "launch.cuh"
#include "pinned_results.hpp"
#include "result_slots.hpp"
#include "scratch.hpp"

namespace gpuvec::cuda {

namespace {

constexpr int kMaxDevices = 64;
// Device attributes, cached per device: 0 until first asked.
std::atomic<int> sm_counts[kMaxDevices];
std::atomic<int> max_threads[kMaxDevices];
std::atomic<bool> pool_configured[kMaxDevices];

// gpuvec_cuda_set_memory_limit's cap (0: none), and the bytes handed out on
// each device: what allocate has given and deallocate not yet taken back,
// blocks kept for reuse not included. The cap also counts the streams'
// reduction scratch (scratch.hpp), which is allocated outside the pool and
// not refused by the cap.
std::atomic<size_t> memory_limit{0};
std::atomic<size_t> handed_out[kMaxDevices];

// Fails as out of memory where handing out `bytes` more on `device` would
// pass the limit: the same error as a full device, so that callers (and
// Dask's workers) handle both alike.
void check_memory_limit(int device, size_t bytes) {
  const size_t limit = memory_limit.load(std::memory_order_relaxed);
  const size_t in_use =
      handed_out[device].load(std::memory_order_relaxed) + reduction_scratch_bytes(device);
  if (limit != 0 && in_use + bytes > limit) {
    throw Error(GPUVEC_ERROR_OUT_OF_MEMORY,
                "out of device memory allocating " + std::to_string(bytes) +
                    " bytes: gpuvec's memory limit is " + std::to_string(limit) +
                    " bytes per device (gpuvec.set_memory_limit, GPUVEC_MEMORY_LIMIT) and " +
                    std::to_string(in_use) + " are in use");
  }
}

int current_device() {
  int device = 0;
  GPUVEC_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices) {
    throw Error(GPUVEC_ERROR_INTERNAL, "device ordinal " + std::to_string(device) +
                                           " is beyond gpuvec's limit of 64 devices");
  }
  return device;
}

// By default CUDA's stream-ordered pool returns freed memory to the driver at
// every synchronization. Keeping it instead makes the pool a caching
// allocator: a repeated allocation of the same size never calls cudaMalloc.
void keep_freed_memory_cached(int device) {
  if (pool_configured[device].load(std::memory_order_acquire)) return;
  cudaMemPool_t pool;
  GPUVEC_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t keep_all = UINT64_MAX;
  GPUVEC_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  pool_configured[device].store(true, std::memory_order_release);
}

}  // namespace

int multiprocessor_count() {
  const int device = current_device();
  int count = sm_counts[device].load(std::memory_order_relaxed);
  if (count == 0) {
    GPUVEC_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    sm_counts[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

int block_size(int threads_per_block) {
  if (threads_per_block == 0) return kDefaultThreadsPerBlock;
  const int device = current_device();
  int limit = max_threads[device].load(std::memory_order_relaxed);
  if (limit == 0) {
    GPUVEC_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxThreadsPerBlock, device));
    max_threads[device].store(limit, std::memory_order_relaxed);
  }
  if (threads_per_block > limit) {
    throw Error(
        GPUVEC_ERROR_CUDA,
        "invalid configuration argument: threads_per_block=" + std::to_string(threads_per_block) +
            " exceeds the limit of " + std::to_string(limit),
        cudaErrorInvalidConfiguration, cudaGetErrorName(cudaErrorInvalidConfiguration));
  }
  return threads_per_block;
}

void* allocate(size_t bytes, gpuvec_stream stream) {
  void* ptr = nullptr;
  const cudaStream_t s = as_cuda_stream(stream);
  const int device = current_device();
  check_memory_limit(device, bytes);
  if ((ptr = take_freed_block(device, bytes, s)) != nullptr) {
    handed_out[device].fetch_add(bytes, std::memory_order_relaxed);
    return ptr;
  }
  keep_freed_memory_cached(device);
  cudaError_t err = cudaMallocAsync(&ptr, bytes, s);
  if (err == cudaErrorMemoryAllocation) {
    // Out of memory: hand the cached blocks back to the driver and try once more.
    cudaGetLastError();
    cudaMemPool_t pool;
    release_freed_blocks(device);
    GPUVEC_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    GPUVEC_CUDA_CHECK(cudaStreamSynchronize(s));
    GPUVEC_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    err = cudaMallocAsync(&ptr, bytes, s);
  }
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Error(GPUVEC_ERROR_OUT_OF_MEMORY,
                "out of device memory allocating " + std::to_string(bytes) + " bytes",
                static_cast<int>(err), cudaGetErrorName(err));
  }
  check(err, "cudaMallocAsync");
  if (ptr != nullptr) handed_out[device].fetch_add(bytes, std::memory_order_relaxed);
  return ptr;
}

void deallocate(void* ptr, size_t bytes, gpuvec_stream stream) {
  if (ptr == nullptr) return;
  const cudaStream_t s = as_cuda_stream(stream);
  handed_out[current_device()].fetch_sub(bytes, std::memory_order_relaxed);
  if (is_known_stream(s)) {
    keep_freed_block(current_device(), ptr, bytes, s);
  } else {
    GPUVEC_CUDA_CHECK(cudaFreeAsync(ptr, s));  // see known_streams.hpp
  }
}

}  // namespace gpuvec::cuda

using gpuvec::guard;
using gpuvec::cuda::as_cuda_stream;

extern "C" {

int gpuvec_cuda_built(void) { return 1; }

gpuvec_status gpuvec_cuda_versions(int* runtime_version, int* driver_version) {
  return guard([&] {
    *runtime_version = 0;
    *driver_version = 0;
    GPUVEC_CUDA_CHECK(cudaRuntimeGetVersion(runtime_version));
    GPUVEC_CUDA_CHECK(cudaDriverGetVersion(driver_version));
  });
}

gpuvec_status gpuvec_cuda_device_count(int* count) {
  return guard([&] {
    *count = 0;
    GPUVEC_CUDA_CHECK(cudaGetDeviceCount(count));
  });
}

gpuvec_status gpuvec_cuda_device_info(int device, gpuvec_device_info* info) {
  return guard([&] {
    cudaDeviceProp prop;
    GPUVEC_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    std::memset(info, 0, sizeof(*info));
    std::snprintf(info->name, sizeof(info->name), "%s", prop.name);
    info->major = prop.major;
    info->minor = prop.minor;
    info->total_memory = prop.totalGlobalMem;
    info->multiprocessors = prop.multiProcessorCount;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    info->warp_size = prop.warpSize;
    info->l2_cache_bytes = prop.l2CacheSize;
    std::memcpy(info->uuid, prop.uuid.bytes, sizeof info->uuid);
  });
}

gpuvec_status gpuvec_cuda_get_device(int* device) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaGetDevice(device)); });
}

gpuvec_status gpuvec_cuda_set_device(int device) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaSetDevice(device)); });
}

gpuvec_status gpuvec_cuda_mem_info(size_t* free_bytes, size_t* total_bytes) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes)); });
}

gpuvec_status gpuvec_cuda_alloc(size_t bytes, gpuvec_stream stream, void** ptr) {
  return guard([&] {
    *ptr = nullptr;
    *ptr = gpuvec::cuda::allocate(bytes, stream);
  });
}

gpuvec_status gpuvec_cuda_free(void* ptr, size_t bytes, gpuvec_stream stream) {
  return guard([&] { gpuvec::cuda::deallocate(ptr, bytes, stream); });
}

gpuvec_status gpuvec_cuda_set_memory_limit(size_t bytes) {
  return guard([&] { gpuvec::cuda::memory_limit.store(bytes, std::memory_order_relaxed); });
}

gpuvec_status gpuvec_cuda_copy_to_device(void* dst, const void* src, size_t bytes,
                                         gpuvec_stream stream) {
  return guard([&] {
    GPUVEC_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, as_cuda_stream(stream)));
  });
}

gpuvec_status gpuvec_cuda_copy_to_host(void* dst, const void* src, size_t bytes,
                                       gpuvec_stream stream) {
  return guard([&] {
    GPUVEC_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, as_cuda_stream(stream)));
  });
}

gpuvec_status gpuvec_cuda_read_scalar(const void* src, size_t bytes, gpuvec_stream stream,
                                      void* dst) {
  return guard([&] {
    // One small pinned buffer per thread, kept for the life of the thread:
    // a copy from pageable memory would go through a driver bounce buffer.
    thread_local void* pinned = nullptr;
    if (bytes > 16) gpuvec::throw_invalid_argument("read_scalar reads at most 16 bytes");
    if (pinned == nullptr) GPUVEC_CUDA_CHECK(cudaMallocHost(&pinned, 16));
    const cudaStream_t s = as_cuda_stream(stream);
    GPUVEC_CUDA_CHECK(cudaMemcpyAsync(pinned, src, bytes, cudaMemcpyDeviceToHost, s));
    GPUVEC_CUDA_CHECK(cudaStreamSynchronize(s));
    std::memcpy(dst, pinned, bytes);
  });
}

gpuvec_status gpuvec_cuda_stream_synchronize(gpuvec_stream stream) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaStreamSynchronize(as_cuda_stream(stream))); });
}

gpuvec_status gpuvec_cuda_device_synchronize(void) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaDeviceSynchronize()); });
}

gpuvec_status gpuvec_cuda_pool_usage(size_t* used_bytes, size_t* reserved_bytes) {
  return guard([&] {
    cudaMemPool_t pool;
    uint64_t used = 0, reserved = 0;
    GPUVEC_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, gpuvec::cuda::current_device()));
    GPUVEC_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    GPUVEC_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    // Kept blocks are in use to the pool, and cached to gpuvec's users.
    const int device = gpuvec::cuda::current_device();
    const size_t kept = gpuvec::cuda::freed_block_bytes(device);
    used = used > kept ? used - kept : 0;
    // The streams' reduction scratch, outside the pool, is in use too.
    const size_t scratch = gpuvec::cuda::reduction_scratch_bytes(device);
    *used_bytes = used + scratch;
    *reserved_bytes = reserved + scratch;
  });
}

gpuvec_status gpuvec_cuda_pool_release_cached(void) {
  return guard([&] {
    cudaMemPool_t pool;
    GPUVEC_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, gpuvec::cuda::current_device()));
    gpuvec::cuda::release_freed_blocks(gpuvec::cuda::current_device());
    gpuvec::cuda::release_pinned_results();
    // Frees queued on streams become cached only once the streams reach them.
    GPUVEC_CUDA_CHECK(cudaDeviceSynchronize());
    GPUVEC_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  });
}

gpuvec_status gpuvec_cuda_pinned_result_alloc(size_t bytes, void** block) {
  return guard([&] {
    *block = nullptr;
    *block = gpuvec::cuda::take_pinned_result(bytes);
  });
}

gpuvec_status gpuvec_cuda_pinned_result_free(void* block) {
  return guard([&] { gpuvec::cuda::give_back_pinned_result(block); });
}

gpuvec_status gpuvec_cuda_result_slot_alloc(void** slot) {
  return guard([&] { *slot = gpuvec::cuda::take_result_slot(); });
}

gpuvec_status gpuvec_cuda_result_slot_free(void* slot, gpuvec_stream stream) {
  return guard([&] {
    if (slot != nullptr) gpuvec::cuda::give_back_result_slot(slot, as_cuda_stream(stream));
  });
}

gpuvec_status gpuvec_cuda_stream_create(gpuvec_stream* stream) {
  return guard([&] {
    cudaStream_t s = nullptr;
    GPUVEC_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    try {
      gpuvec::cuda::note_created_stream(s);
    } catch (...) {
      cudaStreamDestroy(s);
      throw;
    }
    *stream = s;
  });
}

gpuvec_status gpuvec_cuda_stream_destroy(gpuvec_stream stream) {
  return guard([&] {
    gpuvec::cuda::note_destroyed_stream(as_cuda_stream(stream));
    gpuvec::cuda::forget_reduction_scratch(as_cuda_stream(stream));
    gpuvec::cuda::release_freed_blocks_of(as_cuda_stream(stream));
    GPUVEC_CUDA_CHECK(cudaStreamDestroy(as_cuda_stream(stream)));
  });
}

gpuvec_status gpuvec_cuda_event_create(gpuvec_event* event) {
  return guard([&] {
    cudaEvent_t e = nullptr;
    GPUVEC_CUDA_CHECK(cudaEventCreate(&e));
    *event = e;
  });
}

gpuvec_status gpuvec_cuda_event_destroy(gpuvec_event event) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaEventDestroy(static_cast<cudaEvent_t>(event))); });
}

gpuvec_status gpuvec_cuda_event_record(gpuvec_event event, gpuvec_stream stream) {
  return guard([&] {
    GPUVEC_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), as_cuda_stream(stream)));
  });
}

gpuvec_status gpuvec_cuda_event_synchronize(gpuvec_event event) {
  return guard([&] { GPUVEC_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event))); });
}

gpuvec_status gpuvec_cuda_event_elapsed_ms(gpuvec_event start, gpuvec_event end, float* ms) {
  return guard([&] {
    GPUVEC_CUDA_CHECK(
        cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
  });
}

gpuvec_status gpuvec_cuda_stream_wait_event(gpuvec_stream stream, gpuvec_event event) {
  return guard([&] {
    GPUVEC_CUDA_CHECK(
        cudaStreamWaitEvent(as_cuda_stream(stream), static_cast<cudaEvent_t>(event), 0));
  });
}

}  // extern "C"
