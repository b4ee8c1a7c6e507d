# gpuvec._core._launch's interface: which backend a call runs on (the one
# rule), on which device, with how many threads (see _launch.pyx).
from gpuvec._core._abi cimport gpuvec_backend, gpuvec_launch


# Where a call's data is, which decides its backend (backend_for).
cdef enum Placement:
    ON_DEVICE  # device memory (a DeviceArray, another library's GPU array)
    IN_HOST_MEMORY  # host memory that stays there (a host-backend DeviceArray)
    NUMPY_DATA  # only NumPy data and numbers


cdef int active_backend() except -1
cdef gpuvec_backend backend_for(Placement placement) except *
cdef int fill_launch(gpuvec_launch* launch, Placement placement, int threads_per_block,
                     object stream) except -1
cdef int parse_threads_per_block(object value) except -1

cdef int current_device() except -1
cdef int make_current(int device) except -2
cdef int restore_device(int previous) except -1
