# The gpuvec C ABI (csrc/include/gpuvec/*.h), declared for Cython: its
# functions here, its types in gpuvec/_core/_abi.pxd (cimported below, so that
# `from gpuvec._abi cimport *` gives both).
#
# Shipped for extensions built on gpuvec (with gpuvec.get_include() on their
# include path), which call the functions through gpuvec/api.h's table (the
# end of this file). Inside gpuvec, only the module gpuvec._core._abi cimports
# this file: it alone links the C++ library, and the other modules reach the
# functions through its table (`abi`, in gpuvec/_core/_abi.pxd).
from libc.stdint cimport int64_t, uint32_t, uint64_t

from gpuvec._core._abi cimport *


cdef extern from "gpuvec/gpuvec.h" nogil:
    const char* gpuvec_last_error_message()
    int gpuvec_last_error_cuda_code()
    const char* gpuvec_last_error_cuda_name()
    int gpuvec_cuda_built()
    gpuvec_status gpuvec_cuda_versions(int* runtime_version, int* driver_version)
    gpuvec_status gpuvec_cuda_device_count(int* count)
    gpuvec_status gpuvec_cuda_device_info(int device, gpuvec_device_info* info)
    gpuvec_status gpuvec_cuda_get_device(int* device)
    gpuvec_status gpuvec_cuda_set_device(int device)
    gpuvec_status gpuvec_cuda_mem_info(size_t* free_bytes, size_t* total_bytes)
    gpuvec_status gpuvec_cuda_alloc(size_t nbytes, gpuvec_stream stream, void** ptr)
    gpuvec_status gpuvec_cuda_free(void* ptr, size_t bytes, gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_set_memory_limit(size_t bytes)
    gpuvec_status gpuvec_cuda_pinned_result_alloc(size_t bytes, void** block)
    gpuvec_status gpuvec_cuda_pinned_result_free(void* block)
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
    gpuvec_status gpuvec_cuda_event_create(gpuvec_event* event)
    gpuvec_status gpuvec_cuda_event_destroy(gpuvec_event event)
    gpuvec_status gpuvec_cuda_event_record(gpuvec_event event, gpuvec_stream stream)
    gpuvec_status gpuvec_cuda_event_synchronize(gpuvec_event event)
    gpuvec_status gpuvec_cuda_event_elapsed_ms(gpuvec_event start, gpuvec_event end, float* ms)
    gpuvec_status gpuvec_cuda_stream_wait_event(gpuvec_stream stream, gpuvec_event event)
    const gpuvec_op_info* gpuvec_elementwise_ops(int* count)
    const gpuvec_op_info* gpuvec_reduce_ops(int* count)
    gpuvec_status gpuvec_elementwise(gpuvec_op op, const gpuvec_array* out,
                                     const gpuvec_array* inputs, int n_inputs,
                                     const double* params, gpuvec_dtype compute,
                                     const gpuvec_launch* launch)
    gpuvec_status gpuvec_reduce(gpuvec_reduce_op op, const gpuvec_array* out,
                                const gpuvec_array* x, const gpuvec_array* y, int reduced_ndim,
                                gpuvec_dtype compute, double ddof, const gpuvec_launch* launch)
    gpuvec_status gpuvec_copy(const gpuvec_array* out, const gpuvec_array* src,
                              const gpuvec_launch* launch)
    gpuvec_status gpuvec_count_true(const gpuvec_array* mask, int64_t* count,
                                    const gpuvec_launch* launch)
    gpuvec_status gpuvec_compress(const gpuvec_array* out, const gpuvec_array* x,
                                  const gpuvec_array* mask, const gpuvec_launch* launch)
    gpuvec_status gpuvec_expand(const gpuvec_array* x, const gpuvec_array* mask,
                                const gpuvec_array* values, const gpuvec_launch* launch)


cdef extern from "gpuvec/kernels.h" nogil:
    gpuvec_status gpuvec_module_load(gpuvec_backend backend, const void* image, size_t size,
                                     const char* path, gpuvec_module* module)
    gpuvec_status gpuvec_module_unload(gpuvec_module module)
    gpuvec_status gpuvec_module_kernel(gpuvec_module module, const char* symbol, int flags,
                                       gpuvec_kernel* kernel)
    gpuvec_status gpuvec_kernel_get_attributes(gpuvec_kernel kernel,
                                               gpuvec_kernel_attributes* attributes)
    gpuvec_status gpuvec_kernel_launch(gpuvec_kernel kernel, const gpuvec_kernel_arg* args,
                                       int n_args, const gpuvec_kernel_config* config,
                                       const gpuvec_launch* launch)
    gpuvec_status gpuvec_map(const gpuvec_map_kernel* kernel, const gpuvec_array* out,
                             const gpuvec_array* inputs, int n_inputs,
                             const gpuvec_launch* launch)
    gpuvec_status gpuvec_map_reduce(const gpuvec_map_reduce_kernel* kernel,
                                    const gpuvec_array* out, const gpuvec_array* inputs,
                                    int n_inputs, int reduced_ndim, const gpuvec_launch* launch)
    gpuvec_status gpuvec_nvrtc_version(const char* path, int* major, int* minor)
    gpuvec_status gpuvec_nvrtc_compile(const char* path, const char* source,
                                       const char* program_name, int arch,
                                       const char* const* options, int n_options,
                                       const char* const* name_expressions, int n_names,
                                       gpuvec_nvrtc_output* output)
    void gpuvec_nvrtc_output_free(gpuvec_nvrtc_output* output)
    gpuvec_status gpuvec_set_kernel_compiler(gpuvec_kernel_compiler compiler)


# gpuvec/api.h: the C API for other extensions. gpuvec._core's modules export no
# C symbol, so another extension cannot link the functions above: it calls them
# through this table, which gpuvec._core publishes as the capsule
# gpuvec._core._C_API (filled by gpuvec/_core/_abi.pyx). In its module:
# `import_gpuvec()` once, then for example `gpuvec_api_table.elementwise(...)`.
# The table only grows (api.h's version rule).
cdef extern from "gpuvec/api.h" nogil:
    enum:
        GPUVEC_API_VERSION
    const char* GPUVEC_API_CAPSULE_NAME

    ctypedef struct gpuvec_api:
        uint32_t abi_version
        uint32_t size
        # Version 1.
        const gpuvec_op_info* (*elementwise_ops)(int* count) noexcept nogil
        const gpuvec_op_info* (*reduce_ops)(int* count) noexcept nogil
        gpuvec_status (*elementwise)(gpuvec_op op, const gpuvec_array* out,
                                     const gpuvec_array* inputs, int n_inputs,
                                     const double* params, gpuvec_dtype compute,
                                     const gpuvec_launch* launch) noexcept nogil
        gpuvec_status (*reduce)(gpuvec_reduce_op op, const gpuvec_array* out,
                                const gpuvec_array* x, const gpuvec_array* y, int reduced_ndim,
                                gpuvec_dtype compute, double ddof,
                                const gpuvec_launch* launch) noexcept nogil
        gpuvec_status (*copy)(const gpuvec_array* out, const gpuvec_array* src,
                              const gpuvec_launch* launch) noexcept nogil
        gpuvec_status (*count_true)(const gpuvec_array* mask, int64_t* count,
                                    const gpuvec_launch* launch) noexcept nogil
        gpuvec_status (*compress)(const gpuvec_array* out, const gpuvec_array* x,
                                  const gpuvec_array* mask,
                                  const gpuvec_launch* launch) noexcept nogil
        gpuvec_status (*expand)(const gpuvec_array* x, const gpuvec_array* mask,
                                const gpuvec_array* values,
                                const gpuvec_launch* launch) noexcept nogil
        const char* (*last_error_message)() noexcept nogil
        int (*last_error_cuda_code)() noexcept nogil
        const char* (*last_error_cuda_name)() noexcept nogil
        int (*cuda_built)() noexcept nogil
        gpuvec_status (*cuda_versions)(int* runtime_version,
                                       int* driver_version) noexcept nogil
        gpuvec_status (*cuda_device_count)(int* count) noexcept nogil
        gpuvec_status (*cuda_get_device)(int* device) noexcept nogil
        gpuvec_status (*cuda_alloc)(size_t nbytes, gpuvec_stream stream,
                                    void** ptr) noexcept nogil
        gpuvec_status (*cuda_free)(void* ptr, size_t bytes, gpuvec_stream stream) noexcept nogil
        gpuvec_status (*cuda_copy_to_device)(void* dst, const void* src, size_t nbytes,
                                             gpuvec_stream stream) noexcept nogil
        gpuvec_status (*cuda_copy_to_host)(void* dst, const void* src, size_t nbytes,
                                           gpuvec_stream stream) noexcept nogil
        gpuvec_status (*cuda_stream_synchronize)(gpuvec_stream stream) noexcept nogil

    # This module's table: NULL until import_gpuvec() succeeds.
    const gpuvec_api* gpuvec_api_table


cdef extern from "gpuvec/api.h":
    # Sets gpuvec_api_table, or raises ImportError (a too old gpuvec, say).
    int import_gpuvec() except -1
