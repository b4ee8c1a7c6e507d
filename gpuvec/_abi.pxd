# The gpuvec C ABI (csrc/include/gpuvec/*.h), declared for Cython.
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
    gpuvec_status gpuvec_cuda_device_synchronize()

    enum:
        GPUVEC_MAX_NDIM
        GPUVEC_MAX_THREADS_PER_BLOCK

    ctypedef enum gpuvec_binary_op:
        GPUVEC_ADD
        GPUVEC_SUBTRACT
        GPUVEC_MULTIPLY
        GPUVEC_DIVIDE

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
