# The lab's C ABI (csrc/lab.h), declared for Cython. `nogil`: these functions
# never touch Python objects, so they may run with the GIL released.
from libc.stdint cimport int64_t

# The status codes are gpuvec's: its declarations (gpuvec/_abi.pxd, installed
# with gpuvec), not a copy of them.
from gpuvec._abi cimport gpuvec_status


cdef extern from "lab.h" nogil:
    gpuvec_status lab_saxpy_f32_cuda(int64_t n, float alpha, const float* x, float* y,
                                     int threads_per_block)
    gpuvec_status lab_saxpy_f32_host(int64_t n, float alpha, const float* x, float* y,
                                     int threads_per_block)
    int lab_cuda_built()
    const char* lab_last_error_message()
    int lab_last_error_cuda_code()
    const char* lab_last_error_cuda_name()
