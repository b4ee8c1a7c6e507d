# The gpuvec C ABI (csrc/include/gpuvec/*.h), declared for Cython.
from libc.stdint cimport int64_t, uint8_t


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
    gpuvec_status gpuvec_cuda_copy_on_device(void* dst, const void* src, size_t nbytes,
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

    enum:
        GPUVEC_MAX_NDIM
        GPUVEC_MAX_THREADS_PER_BLOCK

    ctypedef enum gpuvec_binary_op:
        GPUVEC_ADD
        GPUVEC_SUBTRACT
        GPUVEC_MULTIPLY
        GPUVEC_DIVIDE
        GPUVEC_POWER
        GPUVEC_MAXIMUM
        GPUVEC_MINIMUM
        GPUVEC_HYPOT
        GPUVEC_ATAN2

    gpuvec_status gpuvec_binary_f32(gpuvec_backend backend, gpuvec_binary_op op, int ndim,
                                    const int64_t* shape, const float* a,
                                    const int64_t* a_strides, const float* b,
                                    const int64_t* b_strides, float* out,
                                    const int64_t* out_strides, int threads_per_block,
                                    gpuvec_stream stream)
    gpuvec_status gpuvec_binary_f64(gpuvec_backend backend, gpuvec_binary_op op, int ndim,
                                    const int64_t* shape, const double* a,
                                    const int64_t* a_strides, const double* b,
                                    const int64_t* b_strides, double* out,
                                    const int64_t* out_strides, int threads_per_block,
                                    gpuvec_stream stream)
    gpuvec_status gpuvec_scale_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                   float alpha, const float* x, const int64_t* x_strides,
                                   float* out, const int64_t* out_strides,
                                   int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_scale_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                   double alpha, const double* x, const int64_t* x_strides,
                                   double* out, const int64_t* out_strides,
                                   int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_axpy_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                  float alpha, const float* x, const int64_t* x_strides,
                                  const float* y, const int64_t* y_strides, float* out,
                                  const int64_t* out_strides, int threads_per_block,
                                  gpuvec_stream stream)
    gpuvec_status gpuvec_axpy_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                  double alpha, const double* x, const int64_t* x_strides,
                                  const double* y, const int64_t* y_strides, double* out,
                                  const int64_t* out_strides, int threads_per_block,
                                  gpuvec_stream stream)
    gpuvec_status gpuvec_sum_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                 const float* x, const int64_t* x_strides, float* result,
                                 int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_sum_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                 const double* x, const int64_t* x_strides, double* result,
                                 int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_dot_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                 const float* x, const int64_t* x_strides, const float* y,
                                 const int64_t* y_strides, float* result,
                                 int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_dot_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                 const double* x, const int64_t* x_strides, const double* y,
                                 const int64_t* y_strides, double* result,
                                 int threads_per_block, gpuvec_stream stream)

    gpuvec_status gpuvec_cast_f32_to_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                         const float* x, const int64_t* x_strides, double* out,
                                         const int64_t* out_strides, gpuvec_stream stream)
    gpuvec_status gpuvec_cast_f64_to_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                         const double* x, const int64_t* x_strides, float* out,
                                         const int64_t* out_strides, gpuvec_stream stream)

    gpuvec_status gpuvec_axpby_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                   float alpha, const float* x, const int64_t* x_strides,
                                   float beta, const float* y, const int64_t* y_strides,
                                   float* out, const int64_t* out_strides,
                                   int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_axpby_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                   double alpha, const double* x, const int64_t* x_strides,
                                   double beta, const double* y, const int64_t* y_strides,
                                   double* out, const int64_t* out_strides,
                                   int threads_per_block, gpuvec_stream stream)

    # gpuvec/unary.h
    ctypedef enum gpuvec_unary_op:
        GPUVEC_NEGATIVE
        GPUVEC_ABS
        GPUVEC_SQRT
        GPUVEC_EXP
        GPUVEC_LOG
        GPUVEC_LOG1P
        GPUVEC_EXPM1
        GPUVEC_SIN
        GPUVEC_COS
        GPUVEC_TANH
        GPUVEC_SIGMOID

    gpuvec_status gpuvec_unary_f32(gpuvec_backend backend, gpuvec_unary_op op, int ndim,
                                   const int64_t* shape, const float* x,
                                   const int64_t* x_strides, float* out,
                                   const int64_t* out_strides, int threads_per_block,
                                   gpuvec_stream stream)
    gpuvec_status gpuvec_unary_f64(gpuvec_backend backend, gpuvec_unary_op op, int ndim,
                                   const int64_t* shape, const double* x,
                                   const int64_t* x_strides, double* out,
                                   const int64_t* out_strides, int threads_per_block,
                                   gpuvec_stream stream)
    gpuvec_status gpuvec_clip_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                  const float* x, const int64_t* x_strides, const float* lo,
                                  const int64_t* lo_strides, const float* hi,
                                  const int64_t* hi_strides, float* out,
                                  const int64_t* out_strides, int threads_per_block,
                                  gpuvec_stream stream)
    gpuvec_status gpuvec_clip_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                  const double* x, const int64_t* x_strides, const double* lo,
                                  const int64_t* lo_strides, const double* hi,
                                  const int64_t* hi_strides, double* out,
                                  const int64_t* out_strides, int threads_per_block,
                                  gpuvec_stream stream)
    gpuvec_status gpuvec_where_f32(gpuvec_backend backend, int ndim, const int64_t* shape,
                                   const uint8_t* cond, const int64_t* cond_strides,
                                   const float* a, const int64_t* a_strides, const float* b,
                                   const int64_t* b_strides, float* out,
                                   const int64_t* out_strides, int threads_per_block,
                                   gpuvec_stream stream)
    gpuvec_status gpuvec_where_f64(gpuvec_backend backend, int ndim, const int64_t* shape,
                                   const uint8_t* cond, const int64_t* cond_strides,
                                   const double* a, const int64_t* a_strides, const double* b,
                                   const int64_t* b_strides, double* out,
                                   const int64_t* out_strides, int threads_per_block,
                                   gpuvec_stream stream)

    # gpuvec/reduce.h
    ctypedef enum gpuvec_reduce_op:
        GPUVEC_REDUCE_SUM
        GPUVEC_REDUCE_MEAN
        GPUVEC_REDUCE_MIN
        GPUVEC_REDUCE_MAX
        GPUVEC_REDUCE_ARGMIN
        GPUVEC_REDUCE_ARGMAX
        GPUVEC_REDUCE_PROD
        GPUVEC_REDUCE_VAR
        GPUVEC_REDUCE_STD
        GPUVEC_REDUCE_NANSUM
        GPUVEC_REDUCE_NANMEAN
        GPUVEC_REDUCE_ASUM
        GPUVEC_REDUCE_NRM2

    gpuvec_status gpuvec_reduce_f32(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                                    const int64_t* out_shape, int red_ndim,
                                    const int64_t* red_shape, const float* x,
                                    const int64_t* x_out_strides, const int64_t* x_red_strides,
                                    void* out, const int64_t* out_strides, double ddof,
                                    int threads_per_block, gpuvec_stream stream)
    gpuvec_status gpuvec_reduce_f64(gpuvec_backend backend, gpuvec_reduce_op op, int out_ndim,
                                    const int64_t* out_shape, int red_ndim,
                                    const int64_t* red_shape, const double* x,
                                    const int64_t* x_out_strides, const int64_t* x_red_strides,
                                    void* out, const int64_t* out_strides, double ddof,
                                    int threads_per_block, gpuvec_stream stream)

    # Ops on host arrays through pinned staging (gpuvec/staged.h).
    enum:
        GPUVEC_STAGING_SLOTS
        GPUVEC_STAGING_CHUNK_BYTES

    ctypedef enum gpuvec_dtype:
        GPUVEC_FLOAT32
        GPUVEC_FLOAT64

    ctypedef struct gpuvec_host_array:
        const void* data
        gpuvec_dtype dtype
        const int64_t* strides

    gpuvec_status gpuvec_staged_binary(gpuvec_binary_op op, gpuvec_dtype compute, int ndim,
                                       const int64_t* shape, gpuvec_host_array a,
                                       gpuvec_host_array b, void* out,
                                       const int64_t* out_strides, int threads_per_block)
    gpuvec_status gpuvec_staged_scale(gpuvec_dtype compute, double alpha, int ndim,
                                      const int64_t* shape, gpuvec_host_array x, void* out,
                                      const int64_t* out_strides, int threads_per_block)
    gpuvec_status gpuvec_staged_axpy(gpuvec_dtype compute, double alpha, int ndim,
                                     const int64_t* shape, gpuvec_host_array x,
                                     gpuvec_host_array y, void* out, const int64_t* out_strides,
                                     int threads_per_block)
    gpuvec_status gpuvec_staged_sum(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                    gpuvec_host_array x, double* result, int threads_per_block)
    gpuvec_status gpuvec_staged_dot(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                    gpuvec_host_array x, gpuvec_host_array y, double* result,
                                    int threads_per_block)
    gpuvec_status gpuvec_staged_axpby(gpuvec_dtype compute, double alpha, double beta, int ndim,
                                      const int64_t* shape, gpuvec_host_array x,
                                      gpuvec_host_array y, void* out, const int64_t* out_strides,
                                      int threads_per_block)
    gpuvec_status gpuvec_staged_unary(gpuvec_unary_op op, gpuvec_dtype compute, int ndim,
                                      const int64_t* shape, gpuvec_host_array x, void* out,
                                      const int64_t* out_strides, int threads_per_block)
    gpuvec_status gpuvec_staged_upload(gpuvec_dtype to, int ndim, const int64_t* shape,
                                       gpuvec_host_array src, void* device_dst,
                                       gpuvec_stream stream)
    gpuvec_status gpuvec_staged_download(void* host_dst, const void* device_src, size_t nbytes,
                                         gpuvec_stream stream)
