"""PyCUDA's device memory: ``mem_alloc``, ``DeviceAllocation``, the ``memcpy`` functions
and page-locked host arrays.

A ``DeviceAllocation`` is untyped memory, as in PyCUDA: gpuvec memory on the
CUDA backend, a NumPy byte array on the host backend. A kernel's pointer
parameter sees it as an array of the parameter's type; a ``memcpy`` sees it
as an array of the host data's dtype. gpuvec never reinterprets bytes, so an
allocation remembers the dtype of the data last written into it (by a copy
or a kernel) and refuses to be read as another.
"""

from __future__ import annotations

import operator
import weakref

import numpy as np

import gpuvec
from gpuvec.compat.pycuda._dtype import checked_dtype, holds

__all__ = [
    "DeviceAllocation",
    "allocation_at",
    "from_device",
    "from_device_like",
    "mem_alloc",
    "mem_alloc_like",
    "memcpy_dtod",
    "memcpy_dtod_async",
    "memcpy_dtoh",
    "memcpy_dtoh_async",
    "memcpy_htod",
    "memcpy_htod_async",
    "pagelocked_empty",
    "pagelocked_empty_like",
    "pagelocked_zeros",
    "pagelocked_zeros_like",
    "to_device",
]

# The live allocations by address, so that an int (int(alloc) + offset, as
# PyCUDA code passes pointers) finds its allocation again.
_LIVE: weakref.WeakValueDictionary[int, DeviceAllocation] = weakref.WeakValueDictionary()


def _register(allocation: DeviceAllocation) -> None:
    """Records ``allocation`` by its address; where a live one already starts there
    (the array that ``allocation`` is the first part of), the larger one stays."""
    known = _LIVE.get(allocation._address)
    if known is None or known.nbytes <= allocation.nbytes:
        _LIVE[allocation._address] = allocation


class _DeviceMemory:
    """Typed device memory through the CUDA array interface: what a kernel's pointer
    parameter takes, for any element type, and what :func:`gpuvec.asarray` wraps."""

    def __init__(self, owner, address: int, count: int, dtype: np.dtype):
        self._owner = owner  # keeps the memory alive while the view is
        self.__cuda_array_interface__ = {
            "shape": (count,),
            "typestr": dtype.str,
            "data": (address, False),
            "version": 3,
            "strides": None,
        }


class DeviceAllocation:
    """Device memory of a number of bytes, as :func:`mem_alloc` returns it.

    Pass it to a kernel for a pointer parameter, copy into and out of it with
    :func:`memcpy_htod` and :func:`memcpy_dtoh`, and take its address with
    ``int()``. The memory is gpuvec's (from its caching pool) on the CUDA
    backend and host memory on the host backend; it is freed when the
    allocation is collected, or by :meth:`free`.

    Attributes
    ----------
    nbytes : int
        The size in bytes.
    dtype : numpy.dtype or None
        The dtype of the data last written into it, by a copy or a kernel;
        None while nothing has been.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> a = np.random.randn(4, 4).astype(np.float32)
    >>> a_gpu = cuda.mem_alloc(a.nbytes)
    >>> cuda.memcpy_htod(a_gpu, a)
    >>> back = np.empty_like(a)
    >>> cuda.memcpy_dtoh(back, a_gpu)
    >>> bool((back == a).all()), a_gpu.nbytes, a_gpu.dtype
    (True, 64, dtype('float32'))
    """

    def __init__(self, nbytes: int):
        nbytes = operator.index(nbytes)
        if nbytes < 0:
            raise ValueError(f"nbytes must not be negative, got {nbytes}")
        self._backend = gpuvec.backend()
        self._array = None  # the DeviceArray whose memory this is, if any
        self.dtype: np.dtype | None = None
        if self._backend == "cuda":
            # bool: one byte an element, so any size; the pool aligns it for every type
            self._memory = gpuvec.empty(nbytes, np.bool_)
            self._address = self._memory.__cuda_array_interface__["data"][0]
        else:
            self._memory = np.empty(nbytes, np.uint8)
            self._address = self._memory.ctypes.data
        self.nbytes = nbytes
        _register(self)

    @classmethod
    def of_array(cls, array: gpuvec.DeviceArray) -> DeviceAllocation:
        """The memory of a C-contiguous DeviceArray, as an allocation (``GPUArray.gpudata``)."""
        if not array.is_c_contiguous:
            raise ValueError(
                "gpudata of a non-contiguous array: a kernel sees memory, not a view; "
                "take it from the array's copy()"
            )
        self = cls.__new__(cls)
        self._backend = gpuvec.backend()
        self._array = array
        self.dtype = array.dtype
        if self._backend == "cuda":
            self._memory = array
            self._address = array.__cuda_array_interface__["data"][0]
        else:
            # The host array itself, as bytes: np.asarray reads a host-backend
            # DeviceArray's __array_interface__, which shares its memory.
            self._memory = np.asarray(array).reshape(-1).view(np.uint8)
            self._address = self._memory.ctypes.data
        self.nbytes = array.nbytes
        _register(self)
        return self

    def __int__(self) -> int:
        self._check()
        return self._address

    __index__ = __int__

    def free(self) -> None:
        """Releases the memory now, rather than when the allocation is collected."""
        if _LIVE.get(self._address) is self:
            del _LIVE[self._address]
        self._memory = None
        self._array = None

    def __repr__(self) -> str:
        held = "freed" if self._memory is None else f"{self.nbytes} bytes"
        kind = "" if self.dtype is None else f" of {self.dtype}"
        return f"<DeviceAllocation {self._address:#x}: {held}{kind}>"

    # -- what kernels and copies see ---------------------------------------------------------

    def _check(self) -> None:
        if self._memory is None:
            raise ValueError("this DeviceAllocation was freed")
        if gpuvec.backend() != self._backend:
            raise ValueError(
                f"this DeviceAllocation was made on the {self._backend} backend, and gpuvec "
                f"now runs on the {gpuvec.backend()} backend"
            )

    def _count(self, dtype: np.dtype, offset: int, count: int | None, what: str) -> int:
        """The elements of ``dtype`` from byte ``offset``: ``count``, checked to fit."""
        room = self.nbytes - offset
        if count is None:
            return max(room, 0) // dtype.itemsize
        if offset < 0 or count * dtype.itemsize > room:
            raise ValueError(
                f"{what}: {count * dtype.itemsize} bytes at offset {offset} do not fit an "
                f"allocation of {self.nbytes} bytes"
            )
        return count

    def _check_dtype(self, dtype: np.dtype, what: str) -> None:
        if self.dtype is not None and dtype != self.dtype:
            raise TypeError(
                f"{what} reads the allocation as {dtype}, and it holds {self.dtype} data; "
                f"gpuvec never reinterprets the bytes: convert the data with "
                f".astype(np.{dtype}) before copying it in"
            )

    def kernel_view(self, dtype: np.dtype | None, offset: int, writes: bool, what: str):
        """The memory as a kernel's pointer parameter takes it: an array of ``dtype``
        (None: bytes, for ``void*``) from byte ``offset``."""
        self._check()
        if dtype is None:  # void*: the data as it is, or bytes
            dtype = self.dtype or np.dtype(np.uint8)
        else:
            self._check_dtype(dtype, what)
            if writes:
                self.dtype = dtype  # what the kernel writes is of its parameter's type
        if self._array is not None and offset == 0 and dtype == self._array.dtype:
            return self._array  # gpuvec keeps track of the stream that writes it
        count = self._count(dtype, offset, None, what)
        if self._backend == "cuda":
            memory = _DeviceMemory(self, self._address + offset, count, dtype)
            # As a DeviceArray where gpuvec holds the dtype: gpuvec then keeps
            # track of the stream that writes it, and checked launches
            # (GPUVEC_KERNEL_CHECK) can copy it to the host.
            return gpuvec.asarray(memory) if holds(dtype) else memory
        return self._memory[offset : offset + count * dtype.itemsize].view(dtype)

    def device_array(self, dtype: np.dtype, count: int, offset: int, what: str):
        """``count`` elements of ``dtype`` from byte ``offset``, as a DeviceArray
        that shares the memory."""
        self._check()
        count = self._count(dtype, offset, count, what)
        if self._array is not None and offset == 0 and dtype == self._array.dtype:
            return self._array.reshape(-1)[:count]
        if self._backend == "cuda":
            return gpuvec.asarray(_DeviceMemory(self, self._address + offset, count, dtype))
        host = self._memory[offset : offset + count * dtype.itemsize].view(dtype)
        return gpuvec.from_dlpack(host)  # shares the host memory


def allocation_at(pointer, what: str) -> tuple[DeviceAllocation, int]:
    """The allocation that ``pointer`` (a DeviceAllocation, or an int address in a
    live one) points into, and the byte offset there.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> a_gpu = cuda.mem_alloc(64)
    >>> allocation, offset = allocation_at(int(a_gpu) + 8, "dest")
    >>> allocation is a_gpu, offset
    (True, 8)
    """
    if isinstance(pointer, DeviceAllocation):
        return pointer, 0
    gpudata = getattr(pointer, "gpudata", None)  # a GPUArray
    if isinstance(gpudata, DeviceAllocation):
        return gpudata, 0
    try:
        address = operator.index(pointer)
    except TypeError:
        raise TypeError(
            f"{what} must be a DeviceAllocation (from mem_alloc), a GPUArray or an address in "
            f"one, got {type(pointer).__name__}"
        ) from None
    allocation = _LIVE.get(address)
    if allocation is not None:
        return allocation, 0
    for allocation in list(_LIVE.values()):
        if allocation._address <= address < allocation._address + allocation.nbytes:
            return allocation, address - allocation._address
    raise ValueError(f"{what}: address {address:#x} is in no live DeviceAllocation")


def _host_data(array, what: str) -> np.ndarray:
    array = np.asarray(array)
    checked_dtype(array.dtype, what)
    return array


def mem_alloc(nbytes: int) -> DeviceAllocation:
    """``nbytes`` of device memory (uninitialized).

    Examples
    --------
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> cuda.mem_alloc(1024).nbytes
    1024
    """
    return DeviceAllocation(nbytes)


def mem_alloc_like(ary) -> DeviceAllocation:
    """Device memory of ``ary.nbytes`` bytes.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.mem_alloc_like(np.zeros(8, np.float64)).nbytes
    64
    """
    return DeviceAllocation(np.asarray(ary).nbytes)


def memcpy_htod(dest, src) -> None:
    """Copies the NumPy array ``src`` into device memory ``dest``.

    Parameters
    ----------
    dest : DeviceAllocation, GPUArray or int
        The memory, or an address in a live allocation.
    src : numpy.ndarray
        data of one of gpuvec's dtypes; it must fit from ``dest`` on.

    Raises
    ------
    TypeError
        For data of another dtype (gpuvec's dtypes only).
    ValueError
        Where ``src`` does not fit.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> a_gpu = cuda.mem_alloc(12)
    >>> cuda.memcpy_htod(a_gpu, np.array([1.0, 2.0, 3.0], np.float32))
    >>> cuda.from_device(a_gpu, 3, np.float32)
    array([1., 2., 3.], dtype=float32)
    """
    allocation, offset = allocation_at(dest, "memcpy_htod's dest")
    src = _host_data(src, "memcpy_htod's src")
    target = allocation.device_array(src.dtype, src.size, offset, "memcpy_htod")
    target[...] = src.reshape(-1)
    allocation.dtype = src.dtype
    gpuvec.synchronize()  # synchronous, as CUDA's copy from pageable memory is


def memcpy_dtoh(dest, src) -> None:
    """Copies device memory ``src`` into the NumPy array ``dest`` (as many bytes as it has).

    Waits for the GPU's work first, as CUDA's synchronous copy does.

    Raises
    ------
    TypeError
        For ``dest`` of a dtype gpuvec does not hold, or of another dtype than
        the data in ``src``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> a_gpu = cuda.to_device(np.arange(3.0))
    >>> out = np.empty(3)
    >>> cuda.memcpy_dtoh(out, a_gpu)
    >>> out
    array([0., 1., 2.])
    """
    if not isinstance(dest, np.ndarray):
        raise TypeError(f"memcpy_dtoh's dest must be a NumPy array, got {type(dest).__name__}")
    allocation, offset = allocation_at(src, "memcpy_dtoh's src")
    checked_dtype(dest.dtype, "memcpy_dtoh's dest")
    allocation._check_dtype(dest.dtype, "memcpy_dtoh")
    gpuvec.synchronize()
    source = allocation.device_array(dest.dtype, dest.size, offset, "memcpy_dtoh")
    dest[...] = source.to_host().reshape(dest.shape)


def memcpy_dtod(dest, src, size: int) -> None:
    """Copies ``size`` bytes from device memory ``src`` to device memory ``dest``.

    The bytes are copied as the data ``src`` holds (its ``dtype``): ``size``
    must be a whole number of its elements.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> a_gpu = cuda.to_device(np.arange(4.0))
    >>> b_gpu = cuda.mem_alloc(32)
    >>> cuda.memcpy_dtod(b_gpu, a_gpu, 32)
    >>> cuda.from_device(b_gpu, 4, np.float64)
    array([0., 1., 2., 3.])
    """
    target, target_offset = allocation_at(dest, "memcpy_dtod's dest")
    source, source_offset = allocation_at(src, "memcpy_dtod's src")
    size = operator.index(size)
    dtype = source.dtype or target.dtype
    if dtype is None:
        raise TypeError(
            "memcpy_dtod: nothing has been written into src yet, so there is no data to copy"
        )
    if size % dtype.itemsize:
        raise ValueError(f"memcpy_dtod: size {size} is no whole number of {dtype} elements")
    count = size // dtype.itemsize
    values = source.device_array(dtype, count, source_offset, "memcpy_dtod's src")
    target.device_array(dtype, count, target_offset, "memcpy_dtod's dest")[...] = values
    target.dtype = dtype


def memcpy_htod_async(dest, src, stream=None) -> None:
    """:func:`memcpy_htod`, after the work queued on ``stream``; it finishes before returning.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> s = cuda.Stream()
    >>> a_gpu = cuda.mem_alloc(16)
    >>> cuda.memcpy_htod_async(a_gpu, np.ones(2), s)
    >>> host = cuda.pagelocked_empty(2, np.float64)
    >>> cuda.memcpy_dtoh_async(host, a_gpu, s)
    >>> s.synchronize()
    >>> host
    array([1., 1.])
    """
    if stream is not None:
        stream.synchronize()
    memcpy_htod(dest, src)


def memcpy_dtoh_async(dest, src, stream=None) -> None:
    """:func:`memcpy_dtoh`, after the work queued on ``stream``; it finishes before returning
    (see :func:`memcpy_htod_async` for an example)."""
    if stream is not None:
        stream.synchronize()
    memcpy_dtoh(dest, src)


def memcpy_dtod_async(dest, src, size: int, stream=None) -> None:
    """:func:`memcpy_dtod`, after the work queued on ``stream``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> a_gpu, b_gpu = cuda.to_device(np.arange(2.0)), cuda.mem_alloc(16)
    >>> cuda.memcpy_dtod_async(b_gpu, a_gpu, 16, cuda.Stream())
    >>> cuda.from_device(b_gpu, 2, np.float64)
    array([0., 1.])
    """
    if stream is not None:
        stream.synchronize()
    memcpy_dtod(dest, src, size)


def to_device(bf_obj) -> DeviceAllocation:
    """A new allocation holding a copy of the NumPy array ``bf_obj``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.to_device(np.ones(4, np.float32)).nbytes
    16
    """
    src = _host_data(bf_obj, "driver.to_device")
    allocation = DeviceAllocation(src.nbytes)
    memcpy_htod(allocation, src)
    return allocation


def from_device(devptr, shape, dtype, order: str = "C") -> np.ndarray:
    """A new NumPy array of ``shape`` and ``dtype``, copied from device memory ``devptr``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.from_device(cuda.to_device(np.eye(2)), (2, 2), np.float64)
    array([[1., 0.],
           [0., 1.]])
    """
    result = np.empty(shape, dtype, order=order)
    memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr, other_ary) -> np.ndarray:
    """A new NumPy array like ``other_ary``, copied from device memory ``devptr``.

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> a = np.arange(3, dtype=np.float32)
    >>> cuda.from_device_like(cuda.to_device(a), a)
    array([0., 1., 2.], dtype=float32)
    """
    result = np.empty_like(other_ary)
    memcpy_dtoh(result, devptr)
    return result


# Page-locked host memory: gpuvec offers none to users (it stages every copy
# through pinned buffers of its own), so these are NumPy's arrays, and
# copies from them run at the speed of those buffers.


def pagelocked_empty(shape, dtype, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """An uninitialized NumPy array (not page-locked: see the module's notes).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.pagelocked_empty((2, 3), np.float32).shape
    (2, 3)
    """
    return np.empty(shape, dtype, order=order)


def pagelocked_zeros(shape, dtype, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """A NumPy array of zeros (not page-locked).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.pagelocked_zeros(3, np.float64)
    array([0., 0., 0.])
    """
    return np.zeros(shape, dtype, order=order)


def pagelocked_empty_like(array, mem_flags: int = 0) -> np.ndarray:
    """An uninitialized NumPy array like ``array`` (not page-locked).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.pagelocked_empty_like(np.zeros((2, 2), np.float32)).dtype
    dtype('float32')
    """
    return np.empty_like(array)


def pagelocked_zeros_like(array, mem_flags: int = 0) -> np.ndarray:
    """A NumPy array of zeros like ``array`` (not page-locked).

    Examples
    --------
    >>> import numpy as np, gpuvec.compat.pycuda.driver as cuda
    >>> cuda.pagelocked_zeros_like(np.ones(2))
    array([0., 0.])
    """
    return np.zeros_like(array)
