# Turning a failed ABI call into a Python exception.
#
# ABI calls run without the GIL; check() takes it back only to raise.

from gpuvec._errors import CudaError, GpuvecError, OutOfMemoryError


cdef object _error_from_status(gpuvec_status status, bint emulated=False):
    message = gpuvec_last_error_message().decode("utf-8", "replace")
    code = gpuvec_last_error_cuda_code()
    name = gpuvec_last_error_cuda_name().decode("ascii", "replace") or None
    if status == GPUVEC_ERROR_INVALID_ARGUMENT:
        return ValueError(message)
    if status == GPUVEC_ERROR_OUT_OF_MEMORY:
        return OutOfMemoryError(message, code or None, name)
    if status == GPUVEC_ERROR_CUDA:
        return CudaError(message, code, name, emulated=emulated)
    if status == GPUVEC_ERROR_INDEX:
        return IndexError(message)
    if status == GPUVEC_ERROR_NOT_BUILT:
        return CudaError(message)
    return GpuvecError(f"internal error in gpuvec (please report it): {message}")


cdef inline int check(gpuvec_status status) except -1 nogil:
    if status == GPUVEC_SUCCESS:
        return 0
    with gil:
        raise _error_from_status(status)
