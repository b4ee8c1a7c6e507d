# gpuvec's C API for other extensions: the capsule gpuvec._core._C_API.
#
# This module exports no C symbol but PyInit__core, so another extension cannot
# link gpuvec's functions. It gets them from a table of function pointers
# instead (gpuvec/api.h), as NumPy's _ARRAY_API serves numpy's C API:
# import_gpuvec() in that extension reads the table from this capsule and
# checks its version. Uses: nothing else in this module.

from cpython.pycapsule cimport PyCapsule_New

# The table lives in this module's static data, so its pointers stay valid for
# as long as the process runs: extension modules are never unloaded.
cdef gpuvec_api _c_api_table


cdef object _c_api_capsule():
    """Fills the table with this module's functions; returns its capsule."""
    cdef gpuvec_api* table = &_c_api_table
    table.abi_version = GPUVEC_API_VERSION
    table.size = sizeof(gpuvec_api)
    # Version 1. A later version appends its fields here, after these.
    table.elementwise_ops = gpuvec_elementwise_ops
    table.reduce_ops = gpuvec_reduce_ops
    table.elementwise = gpuvec_elementwise
    table.reduce = gpuvec_reduce
    table.copy = gpuvec_copy
    table.count_true = gpuvec_count_true
    table.compress = gpuvec_compress
    table.expand = gpuvec_expand
    table.last_error_message = gpuvec_last_error_message
    table.last_error_cuda_code = gpuvec_last_error_cuda_code
    table.last_error_cuda_name = gpuvec_last_error_cuda_name
    table.cuda_built = gpuvec_cuda_built
    table.cuda_versions = gpuvec_cuda_versions
    table.cuda_device_count = gpuvec_cuda_device_count
    table.cuda_get_device = gpuvec_cuda_get_device
    table.cuda_alloc = gpuvec_cuda_alloc
    table.cuda_free = gpuvec_cuda_free
    table.cuda_copy_to_device = gpuvec_cuda_copy_to_device
    table.cuda_copy_to_host = gpuvec_cuda_copy_to_host
    table.cuda_stream_synchronize = gpuvec_cuda_stream_synchronize
    return PyCapsule_New(table, GPUVEC_API_CAPSULE_NAME, NULL)


_C_API = _c_api_capsule()
