# gpuvec._core._kernels's interface: a loaded module of users' kernels, for
# Cython code that launches from one (see _kernels.pyx).
from gpuvec._core._abi cimport gpuvec_module


cdef class LoadedModule:
    cdef gpuvec_module handle
    cdef readonly int backend
