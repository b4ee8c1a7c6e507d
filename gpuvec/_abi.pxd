# The gpuvec C ABI (csrc/include/gpuvec/gpuvec.h), declared for Cython.
from libc.stdint cimport int64_t


cdef extern from "gpuvec/gpuvec.h" nogil:
    ctypedef enum gpuvec_status:
        GPUVEC_SUCCESS
        GPUVEC_ERROR_INVALID_ARGUMENT
        GPUVEC_ERROR_CUDA
        GPUVEC_ERROR_OUT_OF_MEMORY
        GPUVEC_ERROR_NOT_BUILT
        GPUVEC_ERROR_INTERNAL

    const char* gpuvec_last_error_message()
    int gpuvec_last_error_cuda_code()
    const char* gpuvec_last_error_cuda_name()

    ctypedef enum gpuvec_backend:
        GPUVEC_BACKEND_HOST
        GPUVEC_BACKEND_CUDA

    ctypedef void* gpuvec_stream

    ctypedef struct gpuvec_device_info:
        char name[256]
        int major
        int minor
        size_t total_memory
        int multiprocessors
        int max_threads_per_block
        int warp_size
        int l2_cache_bytes

    int gpuvec_cuda_built()
    gpuvec_status gpuvec_cuda_versions(int* runtime_version, int* driver_version)
    gpuvec_status gpuvec_cuda_device_count(int* count)
    gpuvec_status gpuvec_cuda_device_info(int device, gpuvec_device_info* info)
    gpuvec_status gpuvec_cuda_get_device(int* device)
    gpuvec_status gpuvec_cuda_set_device(int device)
    gpuvec_status gpuvec_cuda_mem_info(size_t* free_bytes, size_t* total_bytes)
    gpuvec_status gpuvec_cuda_alloc(size_t nbytes, gpuvec_stream stream, void** ptr)
    gpuvec_status gpuvec_cuda_free(void* ptr, gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_copy_to_device(void* dst, const void* src, size_t nbytes,
                                             gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_copy_to_host(void* dst, const void* src, size_t nbytes,
                                           gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_stream_synchronize(gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_read_scalar(const void* src, size_t nbytes, gpuvec_stream stream,
                                          void* dst)
    gpuvec_status gpuvec_cuda_device_synchronize()
    gpuvec_status gpuvec_cuda_pool_usage(size_t* used_bytes, size_t* reserved_bytes)
    gpuvec_status gpuvec_cuda_pool_release_cached()
    gpuvec_status gpuvec_cuda_result_slot_alloc(void** slot)
    gpuvec_status gpuvec_cuda_result_slot_free(void* slot, gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_stream_create(gpuvec_stream* stream)
    gpuvec_status gpuvec_cuda_stream_destroy(gpuvec_stream stream)

    ctypedef void* gpuvec_event
    gpuvec_status gpuvec_cuda_event_create(gpuvec_event* event)
    gpuvec_status gpuvec_cuda_event_destroy(gpuvec_event event)
    gpuvec_status gpuvec_cuda_event_record(gpuvec_event event, gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_event_synchronize(gpuvec_event event)
    gpuvec_status gpuvec_cuda_event_elapsed_ms(gpuvec_event start, gpuvec_event end, float* ms)
    gpuvec_status gpuvec_cuda_stream_wait_event(gpuvec_stream stream, gpuvec_event event)

    # gpuvec/gpuvec.h: the ops, each array one self-describing descriptor.
    enum:
        GPUVEC_MAX_NDIM
        GPUVEC_MAX_INPUTS
        GPUVEC_MAX_THREADS_PER_BLOCK

    ctypedef enum gpuvec_dtype:
        GPUVEC_FLOAT32
        GPUVEC_FLOAT64
        GPUVEC_INT64
        GPUVEC_BOOL

    ctypedef enum gpuvec_memory:
        GPUVEC_MEMORY_HOST
        GPUVEC_MEMORY_DEVICE
        GPUVEC_MEMORY_SCALAR

    ctypedef struct gpuvec_array:
        void* data
        gpuvec_dtype dtype
        gpuvec_memory memory
        double scalar
        int ndim
        int64_t shape[GPUVEC_MAX_NDIM]
        int64_t strides[GPUVEC_MAX_NDIM]

    ctypedef struct gpuvec_launch:
        gpuvec_backend backend
        int threads_per_block
        gpuvec_stream stream

    # The op codes are plain ints here: their names and numbers come from the
    # op table at run time (gpuvec_elementwise_ops), not from a list restated
    # in this file.
    ctypedef int gpuvec_op
    ctypedef int gpuvec_reduce_op

    ctypedef struct gpuvec_op_info:
        int code
        const char* name
        int arity
        int params
        const char* summary

    const gpuvec_op_info* gpuvec_elementwise_ops(int* count)
    const gpuvec_op_info* gpuvec_reduce_ops(int* count)

    gpuvec_status gpuvec_elementwise(gpuvec_op op, const gpuvec_array* out,
                                     const gpuvec_array* inputs, int n_inputs,
                                     const double* params, const gpuvec_launch* launch)
    gpuvec_status gpuvec_reduce(gpuvec_reduce_op op, const gpuvec_array* out,
                                const gpuvec_array* x, const gpuvec_array* y, int reduced_ndim,
                                gpuvec_dtype compute, double ddof, const gpuvec_launch* launch)
    gpuvec_status gpuvec_copy(const gpuvec_array* out, const gpuvec_array* src,
                              const gpuvec_launch* launch)
