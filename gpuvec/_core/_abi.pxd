# gpuvec._core._abi's interface: the C ABI's types, and its functions.
#
# For every other module of gpuvec._core (and for gpuvec/_abi.pxd, which
# third-party Cython code cimports). The types (structs, enums, constants)
# are the headers' own, declared once here. The functions are reached
# through `abi`, a table of pointers that the _abi module fills: _abi alone
# links the C++ library (its static CUDA runtime, per-thread error and pools
# must exist once), so another module that named a C function directly would
# be loaded with an undefined symbol. A call through the table costs one
# indirect call.
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "gpuvec/gpuvec.h" nogil:
    ctypedef enum gpuvec_status:
        GPUVEC_SUCCESS
        GPUVEC_ERROR_INVALID_ARGUMENT
        GPUVEC_ERROR_CUDA
        GPUVEC_ERROR_OUT_OF_MEMORY
        GPUVEC_ERROR_NOT_BUILT
        GPUVEC_ERROR_INTERNAL
        GPUVEC_ERROR_INDEX
        GPUVEC_ERROR_COMPILE
        GPUVEC_ERROR_CALLBACK

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
        unsigned char uuid[16]

    ctypedef void* gpuvec_event

    # The ops: each array is one self-describing descriptor.
    enum:
        GPUVEC_MAX_NDIM
        GPUVEC_MAX_INPUTS
        GPUVEC_MAX_MAP_INPUTS
        GPUVEC_MAX_THREADS_PER_BLOCK

    ctypedef enum gpuvec_dtype:
        GPUVEC_FLOAT32
        GPUVEC_FLOAT64
        GPUVEC_INT64
        GPUVEC_BOOL
        GPUVEC_INT8
        GPUVEC_INT16
        GPUVEC_INT32
        GPUVEC_UINT8
        GPUVEC_UINT16
        GPUVEC_UINT32
        GPUVEC_UINT64
        GPUVEC_FLOAT16
        GPUVEC_COMPLEX64
        GPUVEC_COMPLEX128

    ctypedef enum gpuvec_memory:
        GPUVEC_MEMORY_HOST
        GPUVEC_MEMORY_DEVICE
        GPUVEC_MEMORY_SCALAR

    ctypedef struct gpuvec_array:
        void* data
        gpuvec_dtype dtype
        gpuvec_memory memory
        double scalar  # these two share their bytes (a union):
        int64_t integer  # the value of an integer scalar
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
        int result
        int reads_truth
        const char* numpy
        const char* functor
        int exact
        int host_ulps
        int cuda_ulps
        const char* ufunc
        const char* traits
        const char* warning
        const char* kinds


cdef extern from "gpuvec/kernels.h" nogil:
    ctypedef struct gpuvec_module_s:
        pass
    ctypedef struct gpuvec_kernel_s:
        pass
    ctypedef gpuvec_module_s* gpuvec_module
    ctypedef gpuvec_kernel_s* gpuvec_kernel
    ctypedef gpuvec_status (*gpuvec_kernel_compiler)(const char* source,
                                                     const char* name_expression,
                                                     gpuvec_kernel* kernel) noexcept

    ctypedef struct gpuvec_dim3:
        uint32_t x
        uint32_t y
        uint32_t z

    enum:
        GPUVEC_KERNEL_COOPERATIVE
        GPUVEC_KERNEL_CHECKED

    ctypedef enum gpuvec_kernel_arg_kind:
        GPUVEC_KERNEL_ARG_POINTER
        GPUVEC_KERNEL_ARG_VALUE

    ctypedef union gpuvec_kernel_value:
        int64_t i
        uint64_t u
        double d
        unsigned char bytes[16]

    ctypedef struct gpuvec_kernel_arg:
        gpuvec_kernel_arg_kind kind
        const char* name
        void* data
        gpuvec_memory memory
        int64_t count
        int64_t itemsize
        int writes
        gpuvec_kernel_value value
        int64_t size

    ctypedef struct gpuvec_kernel_config:
        gpuvec_dim3 grid
        gpuvec_dim3 block
        size_t shared_mem
        double timeout

    ctypedef struct gpuvec_kernel_attributes:
        int max_threads_per_block
        int num_regs
        int64_t shared_size_bytes
        int64_t local_size_bytes
        int64_t const_size_bytes
        int ptx_version
        int binary_version

    enum:
        GPUVEC_MAP_KERNELS

    ctypedef struct gpuvec_map_kernel:
        gpuvec_kernel kernels[GPUVEC_MAP_KERNELS]
        int n_inputs
        gpuvec_dtype out_dtype
        gpuvec_dtype in_dtypes[GPUVEC_MAX_MAP_INPUTS]

    enum:
        GPUVEC_REDUCE_KERNELS

    ctypedef struct gpuvec_map_reduce_kernel:
        gpuvec_kernel kernels[GPUVEC_REDUCE_KERNELS]
        int n_inputs
        gpuvec_dtype out_dtype
        gpuvec_dtype in_dtypes[GPUVEC_MAX_MAP_INPUTS]
        int64_t state_size
        int has_identity

    ctypedef struct gpuvec_nvrtc_output:
        char* image
        size_t image_size
        int is_cubin
        char* log
        char** lowered_names
        int n_names


# The ABI's functions, gpuvec_NAME as abi.NAME (csrc/include/gpuvec/*.h says
# what each does). Filled when gpuvec._core._abi is imported, which every
# module that cimports this file does first.
ctypedef struct AbiFunctions:
    const char* (*last_error_message)() noexcept nogil
    int (*last_error_cuda_code)() noexcept nogil
    const char* (*last_error_cuda_name)() noexcept nogil
    int (*cuda_built)() noexcept nogil
    gpuvec_status (*cuda_versions)(int* runtime_version, int* driver_version) noexcept nogil
    gpuvec_status (*cuda_device_count)(int* count) noexcept nogil
    gpuvec_status (*cuda_device_info)(int device, gpuvec_device_info* info) noexcept nogil
    gpuvec_status (*cuda_get_device)(int* device) noexcept nogil
    gpuvec_status (*cuda_set_device)(int device) noexcept nogil
    gpuvec_status (*cuda_mem_info)(size_t* free_bytes, size_t* total_bytes) noexcept nogil
    gpuvec_status (*cuda_alloc)(size_t nbytes, gpuvec_stream stream, void** ptr) noexcept nogil
    gpuvec_status (*cuda_free)(void* ptr, size_t bytes, gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_set_memory_limit)(size_t bytes) noexcept nogil
    gpuvec_status (*cuda_pinned_result_alloc)(size_t bytes, void** block) noexcept nogil
    gpuvec_status (*cuda_pinned_result_free)(void* block) noexcept nogil
    gpuvec_status (*cuda_copy_to_device)(void* dst, const void* src, size_t nbytes,
                                         gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_copy_to_host)(void* dst, const void* src, size_t nbytes,
                                       gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_stream_synchronize)(gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_read_scalar)(const void* src, size_t nbytes, gpuvec_stream stream,
                                      void* dst) noexcept nogil
    gpuvec_status (*cuda_device_synchronize)() noexcept nogil
    gpuvec_status (*cuda_pool_usage)(size_t* used_bytes, size_t* reserved_bytes) noexcept nogil
    gpuvec_status (*cuda_pool_release_cached)() noexcept nogil
    gpuvec_status (*cuda_result_slot_alloc)(void** slot) noexcept nogil
    gpuvec_status (*cuda_result_slot_free)(void* slot, gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_stream_create)(gpuvec_stream* stream) noexcept nogil
    gpuvec_status (*cuda_stream_destroy)(gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_event_create)(gpuvec_event* event) noexcept nogil
    gpuvec_status (*cuda_event_destroy)(gpuvec_event event) noexcept nogil
    gpuvec_status (*cuda_event_record)(gpuvec_event event, gpuvec_stream stream) noexcept nogil
    gpuvec_status (*cuda_event_synchronize)(gpuvec_event event) noexcept nogil
    gpuvec_status (*cuda_event_elapsed_ms)(gpuvec_event start, gpuvec_event end,
                                           float* ms) noexcept nogil
    gpuvec_status (*cuda_stream_wait_event)(gpuvec_stream stream,
                                            gpuvec_event event) noexcept nogil
    const gpuvec_op_info* (*elementwise_ops)(int* count) noexcept nogil
    const gpuvec_op_info* (*reduce_ops)(int* count) noexcept nogil
    gpuvec_status (*elementwise)(gpuvec_op op, const gpuvec_array* out, const gpuvec_array* inputs,
                                 int n_inputs, const double* params, gpuvec_dtype compute,
                                 const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*reduce)(gpuvec_reduce_op op, const gpuvec_array* out, const gpuvec_array* x,
                            const gpuvec_array* y, int reduced_ndim, gpuvec_dtype compute,
                            double ddof, const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*copy)(const gpuvec_array* out, const gpuvec_array* src,
                          const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*count_true)(const gpuvec_array* mask, int64_t* count,
                                const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*compress)(const gpuvec_array* out, const gpuvec_array* x,
                              const gpuvec_array* mask, const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*expand)(const gpuvec_array* x, const gpuvec_array* mask,
                            const gpuvec_array* values, const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*module_load)(gpuvec_backend backend, const void* image, size_t size,
                                 const char* path, gpuvec_module* module) noexcept nogil
    gpuvec_status (*module_unload)(gpuvec_module module) noexcept nogil
    gpuvec_status (*module_kernel)(gpuvec_module module, const char* symbol, int flags,
                                   gpuvec_kernel* kernel) noexcept nogil
    gpuvec_status (*kernel_get_attributes)(gpuvec_kernel kernel,
                                           gpuvec_kernel_attributes* attributes) noexcept nogil
    gpuvec_status (*kernel_launch)(gpuvec_kernel kernel, const gpuvec_kernel_arg* args, int n_args,
                                   const gpuvec_kernel_config* config,
                                   const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*map)(const gpuvec_map_kernel* kernel, const gpuvec_array* out,
                         const gpuvec_array* inputs, int n_inputs,
                         const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*map_reduce)(const gpuvec_map_reduce_kernel* kernel, const gpuvec_array* out,
                                const gpuvec_array* inputs, int n_inputs, int reduced_ndim,
                                const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*nvrtc_version)(const char* path, int* major, int* minor) noexcept nogil
    gpuvec_status (*nvrtc_compile)(const char* path, const char* source, const char* program_name,
                                   int arch, const char* const* options, int n_options,
                                   const char* const* name_expressions, int n_names,
                                   gpuvec_nvrtc_output* output) noexcept nogil
    void (*nvrtc_output_free)(gpuvec_nvrtc_output* output) noexcept nogil

cdef AbiFunctions abi


# A failed call's status as its Python exception (ValueError, IndexError,
# CudaError, OutOfMemoryError, GpuvecError), from the calling thread's error.
# `emulated`: a user's kernel on the host backend, whose CUDA-named faults
# leave no broken context behind.
cdef object error_from_status(gpuvec_status status, bint emulated=*)
cdef int raise_status(gpuvec_status status) except -1 nogil


cdef inline int check(gpuvec_status status) except -1 nogil:
    """Raises the exception of a failed ABI call; takes the GIL only then."""
    if status == GPUVEC_SUCCESS:
        return 0
    return raise_status(status)


# The op table's rows (gpuvec_elementwise_ops, gpuvec_reduce_ops) as tuples.
cdef list table_rows(const gpuvec_op_info* rows, int count)


# -- scans, sorts and counts (gpuvec/scan.h) -----------------------------------------------------

cdef extern from "gpuvec/gpuvec.h" nogil:
    ctypedef enum gpuvec_scan_op:
        GPUVEC_SCAN_SUM
        GPUVEC_SCAN_PROD


# Their functions, gpuvec_NAME as scan_abi.NAME; filled by gpuvec._core._abi
# as `abi` is.
ctypedef struct ScanFunctions:
    gpuvec_status (*scan)(gpuvec_scan_op op, const gpuvec_array* out, const gpuvec_array* x,
                          const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*sort)(const gpuvec_array* values, const gpuvec_array* indices,
                          const gpuvec_array* x, const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*histogram)(const gpuvec_array* counts, const gpuvec_array* x,
                               const gpuvec_array* weights, const gpuvec_array* edges,
                               const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*searchsorted)(const gpuvec_array* out, const gpuvec_array* sorted,
                                  const gpuvec_array* v, int right,
                                  const gpuvec_launch* launch) noexcept nogil
    gpuvec_status (*sorted_runs)(const gpuvec_array* starts, const gpuvec_array* sorted,
                                 const gpuvec_launch* launch) noexcept nogil

cdef ScanFunctions scan_abi
