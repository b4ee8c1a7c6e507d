# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._dlpack: DLPack capsules in and out.

DLPack is the zero-copy exchange format that CuPy, PyTorch, JAX and NumPy
share. Serves gpuvec.device_array (__dlpack__) and gpuvec.creation
(from_dlpack, asarray); _operands reads its device codes to tell another
library's GPU array.

A producer hands out a PyCapsule named "dltensor" holding a DLManagedTensor;
the consumer renames it "used_dltensor" and calls its deleter when done.
Strides in DLPack count elements.
"""

from cpython.pycapsule cimport (
    PyCapsule_GetPointer,
    PyCapsule_IsValid,
    PyCapsule_New,
    PyCapsule_SetName,
)
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc

from gpuvec._core._abi cimport GPUVEC_MAX_NDIM

__all__ = [
    "DLPACK_BOOL",
    "DLPACK_COMPLEX",
    "DLPACK_CPU",
    "DLPACK_CUDA",
    "DLPACK_FLOAT",
    "DLPACK_INT",
    "DLPACK_UINT",
    "DLPackImport",
    "from_dlpack_capsule",
    "to_dlpack",
]

cdef extern from *:
    """
    /* The DLPack ABI of "dltensor" capsules (DLPack v0.x, which every consumer reads). */
    typedef struct { int32_t device_type; int32_t device_id; } gpuvec_DLDevice;
    typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } gpuvec_DLDataType;
    typedef struct {
      void* data;
      gpuvec_DLDevice device;
      int32_t ndim;
      gpuvec_DLDataType dtype;
      int64_t* shape;
      int64_t* strides;
      uint64_t byte_offset;
    } gpuvec_DLTensor;
    typedef struct gpuvec_DLManagedTensor {
      gpuvec_DLTensor dl_tensor;
      void* manager_ctx;
      void (*deleter)(struct gpuvec_DLManagedTensor*);
    } gpuvec_DLManagedTensor;
    """
    ctypedef struct DLDevice "gpuvec_DLDevice":
        int32_t device_type
        int32_t device_id
    ctypedef struct DLDataType "gpuvec_DLDataType":
        uint8_t code
        uint8_t bits
        uint16_t lanes
    ctypedef struct DLTensor "gpuvec_DLTensor":
        void* data
        DLDevice device
        int32_t ndim
        DLDataType dtype
        int64_t* shape
        int64_t* strides
        uint64_t byte_offset
    ctypedef struct DLManagedTensor "gpuvec_DLManagedTensor":
        DLTensor dl_tensor
        void* manager_ctx
        void (*deleter)(DLManagedTensor*) noexcept

DLPACK_CPU = kDLCPU
DLPACK_CUDA = kDLCUDA
DLPACK_INT = kDLInt
DLPACK_UINT = kDLUInt
DLPACK_FLOAT = kDLFloat
DLPACK_BOOL = kDLBool
DLPACK_COMPLEX = kDLComplex  # complex64 is 64 bits: both parts


cdef struct _Export:
    DLManagedTensor managed
    int64_t shape[GPUVEC_MAX_NDIM]
    int64_t strides[GPUVEC_MAX_NDIM]


cdef void _export_deleter(DLManagedTensor* managed) noexcept with gil:
    Py_DECREF(<object>managed.manager_ctx)
    free(managed)


cdef void _capsule_destructor(object capsule) noexcept:
    # A capsule that no consumer took still owns its tensor.
    cdef DLManagedTensor* managed
    if PyCapsule_IsValid(capsule, b"dltensor"):
        managed = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        managed.deleter(managed)


def to_dlpack(owner, uintptr_t address, tuple shape, tuple strides, int itemsize,
              int device_type, int device_id, int code=kDLFloat):
    """A "dltensor" capsule viewing memory that `owner` keeps alive.

    `strides` count elements; `address` is that of element (0, ..., 0).
    The elements are of DLPack's type `code` (DLPACK_FLOAT, DLPACK_INT,
    DLPACK_UINT, DLPACK_COMPLEX or DLPACK_BOOL) and `itemsize` bytes.
    """
    cdef _Export* export = <_Export*>malloc(sizeof(_Export))
    cdef int d
    if export == NULL:
        raise MemoryError("no memory for a DLPack export")
    export.managed.dl_tensor.data = <void*>address
    export.managed.dl_tensor.device.device_type = device_type
    export.managed.dl_tensor.device.device_id = device_id
    export.managed.dl_tensor.ndim = len(shape)
    export.managed.dl_tensor.dtype.code = code
    export.managed.dl_tensor.dtype.bits = 8 * itemsize
    export.managed.dl_tensor.dtype.lanes = 1
    for d in range(len(shape)):
        export.shape[d] = shape[d]
        export.strides[d] = strides[d]
    export.managed.dl_tensor.shape = export.shape
    export.managed.dl_tensor.strides = export.strides
    export.managed.dl_tensor.byte_offset = 0
    Py_INCREF(owner)
    export.managed.manager_ctx = <void*>owner
    export.managed.deleter = _export_deleter
    return PyCapsule_New(export, b"dltensor", _capsule_destructor)


cdef class DLPackImport:
    """Keeps a consumed DLPack tensor alive; calls its deleter when collected."""

    cdef DLManagedTensor* managed

    def __dealloc__(self):
        if self.managed != NULL and self.managed.deleter != NULL:
            self.managed.deleter(self.managed)


def from_dlpack_capsule(capsule):
    """Consumes a "dltensor" capsule.

    Returns (owner, address, shape, strides or None, (code, bits, lanes),
    (device_type, device_id)), strides in elements.
    """
    cdef DLManagedTensor* managed
    cdef DLTensor* t
    cdef DLPackImport owner
    if not PyCapsule_IsValid(capsule, b"dltensor"):
        raise TypeError("expected an unused DLPack capsule named 'dltensor'")
    managed = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
    owner = DLPackImport.__new__(DLPackImport)
    owner.managed = managed
    PyCapsule_SetName(capsule, b"used_dltensor")
    t = &managed.dl_tensor
    shape = tuple([t.shape[d] for d in range(t.ndim)])
    strides = tuple([t.strides[d] for d in range(t.ndim)]) if t.strides != NULL else None
    return (owner, <uintptr_t>t.data + t.byte_offset, shape, strides,
            (t.dtype.code, t.dtype.bits, t.dtype.lanes),
            (t.device.device_type, t.device.device_id))
