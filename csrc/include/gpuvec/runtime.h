/* Backends, devices, memory and streams: everything that is not an op. */
#ifndef GPUVEC_RUNTIME_H
#define GPUVEC_RUNTIME_H

#include <stddef.h>

#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which backend an op runs on; its pointers are host pointers for HOST and
 * device pointers for CUDA. */
typedef enum gpuvec_backend { GPUVEC_BACKEND_HOST = 0, GPUVEC_BACKEND_CUDA = 1 } gpuvec_backend;

/* A CUDA stream (cudaStream_t); NULL is the default stream. */
typedef void* gpuvec_stream;

typedef struct gpuvec_device_info {
  char name[256];
  int major; /* compute capability */
  int minor;
  size_t total_memory; /* bytes */
  int multiprocessors;
  int max_threads_per_block;
  int warp_size;
  int l2_cache_bytes;
  unsigned char uuid[16]; /* the GPU's identity, the same in every process */
} gpuvec_device_info;

/* 1 when this build contains the CUDA backend, else 0. Never fails. */
int gpuvec_cuda_built(void);

/* Versions as CUDA encodes them (1000 * major + 10 * minor); 0 where unknown. */
gpuvec_status gpuvec_cuda_versions(int* runtime_version, int* driver_version);

/* Number of usable CUDA devices. Fails (with CUDA's reason) when there is no
 * driver or no device, which is how the backend choice learns why. */
gpuvec_status gpuvec_cuda_device_count(int* count);
gpuvec_status gpuvec_cuda_device_info(int device, gpuvec_device_info* info);
gpuvec_status gpuvec_cuda_get_device(int* device);
gpuvec_status gpuvec_cuda_set_device(int device);
gpuvec_status gpuvec_cuda_mem_info(size_t* free_bytes, size_t* total_bytes);

/* Stream-ordered device memory: freed memory is reused by later allocations
 * on the same stream without another cudaMalloc. A block is freed with the
 * size it was allocated with. */
gpuvec_status gpuvec_cuda_alloc(size_t bytes, gpuvec_stream stream, void** ptr);
gpuvec_status gpuvec_cuda_free(void* ptr, size_t bytes, gpuvec_stream stream);
/* A cap on the bytes handed out on each device (0: none, the default). An
 * allocation that would pass it fails with GPUVEC_ERROR_OUT_OF_MEMORY, as on
 * a full device; memory already handed out is not touched. */
gpuvec_status gpuvec_cuda_set_memory_limit(size_t bytes);

/* Copies between host and device memory, ordered on the stream. */
gpuvec_status gpuvec_cuda_copy_to_device(void* dst, const void* src, size_t bytes,
                                         gpuvec_stream stream);
gpuvec_status gpuvec_cuda_copy_to_host(void* dst, const void* src, size_t bytes,
                                       gpuvec_stream stream);
gpuvec_status gpuvec_cuda_stream_synchronize(gpuvec_stream stream);
/* Copies one value (at most 16 bytes) to the host through a pinned buffer and
 * waits for it: the fast way to turn a device result into a Python float. */
gpuvec_status gpuvec_cuda_read_scalar(const void* src, size_t bytes, gpuvec_stream stream,
                                      void* dst);
gpuvec_status gpuvec_cuda_device_synchronize(void);

/* The caching pool of the current device: bytes handed out and bytes held
 * (handed out plus cached), and giving the cached bytes back to the driver. */
gpuvec_status gpuvec_cuda_pool_usage(size_t* used_bytes, size_t* reserved_bytes);
gpuvec_status gpuvec_cuda_pool_release_cached(void);

/* Pinned host memory for a download's result (DeviceArray.to_host()): a copy
 * from the device lands in it at the bus's full speed. *block is NULL where
 * pageable memory should serve instead: a small size, one downloaded fewer
 * than twice before (pinning costs several pageable downloads), or the pinned
 * memory held would pass its cap. A freed block is kept for the next result
 * of its size; gpuvec_cuda_pool_release_cached frees kept blocks. */
gpuvec_status gpuvec_cuda_pinned_result_alloc(size_t bytes, void** block);
gpuvec_status gpuvec_cuda_pinned_result_free(void* block);

/* Result slots: 16 bytes of pinned host memory that kernels write directly
 * (mapped memory, reached over the bus), for a reduction's one value. Once
 * the stream is synchronized the host reads it with no copy. A freed slot is
 * reused only after the work queued on `stream` before the free is done. */
gpuvec_status gpuvec_cuda_result_slot_alloc(void** slot);
gpuvec_status gpuvec_cuda_result_slot_free(void* slot, gpuvec_stream stream);

/* Streams: created non-blocking, so they never wait on the legacy default stream. */
gpuvec_status gpuvec_cuda_stream_create(gpuvec_stream* stream);
gpuvec_status gpuvec_cuda_stream_destroy(gpuvec_stream stream);

/* Events (cudaEvent_t), with timing. */
typedef void* gpuvec_event;
gpuvec_status gpuvec_cuda_event_create(gpuvec_event* event);
gpuvec_status gpuvec_cuda_event_destroy(gpuvec_event event);
gpuvec_status gpuvec_cuda_event_record(gpuvec_event event, gpuvec_stream stream);
gpuvec_status gpuvec_cuda_event_synchronize(gpuvec_event event);
gpuvec_status gpuvec_cuda_event_elapsed_ms(gpuvec_event start, gpuvec_event end, float* ms);
/* Work queued on stream after this call waits until the event has happened. */
gpuvec_status gpuvec_cuda_stream_wait_event(gpuvec_stream stream, gpuvec_event event);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_RUNTIME_H */
