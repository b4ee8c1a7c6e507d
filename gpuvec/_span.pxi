# Operands: how an array reaches a launcher.
#
# Each array operand arrives as a Span: its memory seen as one flat run of
# elements, the position of its element (0, ..., 0) in that run, and its
# strides in elements. Host memory is a 1-D NumPy array, read through a typed
# memoryview of the op's dtype; device memory is an address. On the CUDA
# backend a host span is copied to the device as it is, so strided and
# broadcast operands keep their strides there too; the copy converts it to
# the op's dtype on the way.

from cpython.buffer cimport PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE
from cpython.buffer cimport PyBuffer_Release, PyObject_GetBuffer
from cython cimport floating
from libc.stdint cimport int64_t, uintptr_t


cdef char* _data_address(object array, bint writable) except? NULL:
    """Where a contiguous NumPy array's data starts (NULL when it is empty).

    The buffer protocol hands the pointer over without making a view; it stays
    valid after the release for as long as the array lives. Asked for a
    writable buffer, NumPy raises ValueError for a read-only array.
    """
    cdef Py_buffer view
    cdef char* p
    PyObject_GetBuffer(array, &view, PyBUF_ANY_CONTIGUOUS | (PyBUF_WRITABLE if writable else 0))
    p = <char*>view.buf if view.len else NULL
    PyBuffer_Release(&view)
    return p


cdef class Span:
    """An array operand: flat memory, an offset and element strides.

    Parameters
    ----------
    flat : numpy.ndarray or None
        1-D contiguous float32 or float64 array covering the operand's host
        memory, or None for device memory.
    offset : int
        Index in the flat memory of the operand's element (0, ..., 0).
    shape, strides : tuple of int
        The operand's shape and its strides in elements.
    device_address : int, optional
        Address of element 0 of the flat device memory.
    length : int, optional
        Number of elements of the flat device memory.
    owner : object, optional
        Kept alive as long as the span: whatever owns the device memory.
    """

    cdef readonly object flat
    cdef readonly object owner
    cdef readonly uintptr_t device_address
    cdef readonly Py_ssize_t length
    cdef readonly Py_ssize_t offset
    cdef int ndim
    cdef int64_t strides[GPUVEC_MAX_NDIM]

    def __init__(self, flat, Py_ssize_t offset, tuple shape, tuple strides,
                 uintptr_t device_address=0, Py_ssize_t length=0, owner=None):
        cdef Py_ssize_t lo = offset, hi = offset, n, s
        cdef int d
        if len(shape) != len(strides) or len(shape) > GPUVEC_MAX_NDIM:
            raise ValueError(f"shape {shape} and strides {strides} do not fit together")
        self.flat = flat
        self.owner = owner
        self.device_address = device_address
        self.length = len(flat) if flat is not None else length
        self.offset = offset
        self.ndim = len(shape)
        for d in range(self.ndim):
            n, s = shape[d], strides[d]
            self.strides[d] = s
            if n > 0:
                if s > 0:
                    hi += (n - 1) * s
                else:
                    lo += (n - 1) * s
        # Every element a launcher may touch must lie inside the memory.
        if self.length and (lo < 0 or hi >= self.length):
            raise ValueError(f"strides {strides} reach outside the operand's memory")

    @property
    def on_device(self):
        return self.flat is None


cdef int _fill_shape(tuple shape, int64_t* out) except -1:
    cdef int d
    if len(shape) > GPUVEC_MAX_NDIM:
        raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not supported, "
                         f"got shape {shape}")
    for d in range(len(shape)):
        out[d] = shape[d]
    return 0


cdef class _Staged:
    """Where a launcher finds a span's data: the host memory itself, device
    memory, or a temporary device copy of host memory."""

    cdef DeviceBuffer copy
    cdef object converted  # host backend: the input in the op's dtype, when it had the other
    cdef void* base  # element 0 of the flat memory, for the backend


cdef _Staged _stage_input(floating kind, Span span, int backend, uintptr_t stream):
    """Makes an input span readable by the backend, in the op's dtype."""
    cdef _Staged staged = _Staged.__new__(_Staged)
    cdef const floating[::1] flat
    if span.flat is None:
        if backend != GPUVEC_BACKEND_CUDA:
            raise ValueError("device memory given to the host backend")
        staged.base = <void*>span.device_address
    elif span.length and backend == GPUVEC_BACKEND_CUDA:
        # The upload converts float64 <-> float32 while it gathers the data
        # into pinned memory: no pass of its own, and a float64 input of a
        # float32 op crosses the bus at half the size.
        staged.copy = DeviceBuffer(span.length * sizeof(floating), stream)
        _upload_flat(staged.copy.ptr, span,
                     GPUVEC_FLOAT32 if floating is float else GPUVEC_FLOAT64, stream)
        staged.base = staged.copy.ptr
    elif span.length:
        if span.flat.dtype.itemsize != sizeof(floating):
            # float32 data for a float64 op, or the reverse: the host backend
            # reads the op's dtype only, so convert it first.
            staged.converted = span.flat.astype("f4" if floating is float else "f8")
            flat = staged.converted
        else:
            flat = span.flat  # the typed memoryview checks dtype and contiguity
        staged.base = <void*>&flat[0]
    return staged


cdef _Staged _stage_output(floating kind, Span span, int backend, uintptr_t stream):
    """Makes an output span writable by the backend; see _finish_output."""
    cdef _Staged staged = _Staged.__new__(_Staged)
    cdef floating[::1] flat
    if span.flat is None:
        if backend != GPUVEC_BACKEND_CUDA:
            raise ValueError("device memory given to the host backend")
        staged.base = <void*>span.device_address
    elif span.length:
        flat = span.flat  # also checks that the memory is writable
        if backend == GPUVEC_BACKEND_HOST:
            staged.base = <void*>&flat[0]
        else:
            # No upload: the Python layer only passes dense outputs here,
            # whose every element the launcher writes.
            staged.copy = DeviceBuffer(flat.shape[0] * sizeof(floating), stream)
            staged.base = staged.copy.ptr
    return staged


cdef int _finish_output(floating kind, _Staged staged, Span span) except -1:
    """Brings a host output's device copy back through the pinned staging
    buffers (nothing to do otherwise)."""
    cdef floating[::1] flat
    if staged.copy is not None:
        flat = span.flat
        staged.copy.download(&flat[0], flat.shape[0] * sizeof(floating))
    return 0


cdef inline floating* _address(floating kind, _Staged staged, Span span) noexcept:
    """Typed address of the span's element (0, ..., 0)."""
    if staged.base == NULL:
        return NULL
    return (<floating*>staged.base) + span.offset
