"""PyCUDA's ``pycuda.tools``: a default context, memory pools and C type names.

Examples
--------
>>> import numpy as np
>>> from gpuvec.compat.pycuda.tools import dtype_to_ctype
>>> dtype_to_ctype(np.float32), dtype_to_ctype(np.int32)
('float', 'int')
"""

from __future__ import annotations

import numpy as np

import gpuvec
from gpuvec.compat.pycuda._memory import DeviceAllocation, pagelocked_empty
from gpuvec.compat.pycuda._runtime import Context, Device, init

__all__ = [
    "DeviceMemoryPool",
    "PageLockedMemoryPool",
    "clear_context_caches",
    "dtype_to_ctype",
    "make_default_context",
]

# C's names of NumPy's scalar types, for sources written per dtype.
_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}


def dtype_to_ctype(dtype, with_fp_tex_hack: bool = False) -> str:
    """The C type of ``dtype``'s elements, for writing a kernel's source.

    Raises
    ------
    ValueError
        For a dtype with no C scalar type.

    Examples
    --------
    >>> import numpy as np
    >>> "__global__ void scale(%s *x) { x[threadIdx.x] *= 2; }" % dtype_to_ctype(np.float64)
    '__global__ void scale(double *x) { x[threadIdx.x] *= 2; }'
    """
    try:
        return _CTYPES[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"unable to map dtype {np.dtype(dtype)} to a C type") from None


def make_default_context(ctx_maker=None) -> Context:
    """The current device's context, made current (what ``autoinit`` does).

    Examples
    --------
    >>> from gpuvec.compat.pycuda.tools import make_default_context
    >>> context = make_default_context()
    >>> context.synchronize()
    >>> context.pop()
    """
    init()
    device = Device(gpuvec.current_device().id)
    return ctx_maker(device) if ctx_maker is not None else device.make_context()


def clear_context_caches() -> None:
    """Gives gpuvec's cached device memory back (:func:`gpuvec.free_cached`).

    Examples
    --------
    >>> import gpuvec
    >>> clear_context_caches()
    >>> gpuvec.memory_info()["cached"]
    0
    """
    gpuvec.free_cached()


class DeviceMemoryPool:
    """A memory pool: gpuvec's own caching pool, which every allocation comes from.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> from gpuvec.compat.pycuda.tools import DeviceMemoryPool
    >>> pool = DeviceMemoryPool()
    >>> pool.allocate(256).nbytes
    256
    >>> gpuarray.to_gpu(np.ones(3), allocator=pool.allocate).get()
    array([1., 1., 1.])
    """

    def allocate(self, nbytes: int) -> DeviceAllocation:
        """``nbytes`` of device memory."""
        return DeviceAllocation(nbytes)

    def free_held(self) -> None:
        """Gives the cached memory back to the driver."""
        gpuvec.free_cached()

    def stop_holding(self) -> None:
        """Gives the cached memory back (gpuvec's pool keeps caching after)."""
        gpuvec.free_cached()

    @property
    def held_blocks(self) -> int:
        """Bytes cached for reuse (gpuvec counts bytes, not blocks)."""
        return gpuvec.memory_info()["cached"]

    @property
    def active_blocks(self) -> int:
        """Bytes in use (gpuvec counts bytes, not blocks)."""
        return gpuvec.memory_info()["in_use"]


class PageLockedMemoryPool:
    """Host arrays for copies (NumPy's: see ``driver.pagelocked_empty``).

    Examples
    --------
    >>> import numpy as np
    >>> PageLockedMemoryPool().allocate((2, 2), np.float32).shape
    (2, 2)
    """

    def allocate(self, shape, dtype, order: str = "C") -> np.ndarray:
        """An uninitialized host array."""
        return pagelocked_empty(shape, dtype, order)
