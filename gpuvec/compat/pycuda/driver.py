"""PyCUDA's ``pycuda.driver``, over gpuvec: memory, copies, kernel arguments,
devices, contexts, streams and events.

``import gpuvec.compat.pycuda.driver as cuda`` in place of ``import
pycuda.driver as cuda``. See :mod:`gpuvec.compat.pycuda` for what differs.

Examples
--------
PyCUDA's tutorial, on either backend:

>>> import numpy as np
>>> import gpuvec.compat.pycuda.autoinit
>>> import gpuvec.compat.pycuda.driver as cuda
>>> from gpuvec.compat.pycuda.compiler import SourceModule
>>> a = np.random.randn(4, 4).astype(np.float32)
>>> a_gpu = cuda.mem_alloc(a.nbytes)
>>> cuda.memcpy_htod(a_gpu, a)
>>> mod = SourceModule('''
...   __global__ void doublify(float *a)
...   {
...     int idx = threadIdx.x + threadIdx.y*4;
...     a[idx] *= 2;
...   }''')
>>> mod.get_function("doublify")(a_gpu, block=(4, 4, 1), grid=(1, 1))
>>> a_doubled = np.empty_like(a)
>>> cuda.memcpy_dtoh(a_doubled, a_gpu)
>>> bool(np.array_equal(a_doubled, 2 * a))
True
"""

from gpuvec.compat.pycuda._arguments import ArgumentHandler, In, InOut, Out
from gpuvec.compat.pycuda._memory import (
    DeviceAllocation,
    from_device,
    from_device_like,
    mem_alloc,
    mem_alloc_like,
    memcpy_dtod,
    memcpy_dtod_async,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htod,
    memcpy_htod_async,
    pagelocked_empty,
    pagelocked_empty_like,
    pagelocked_zeros,
    pagelocked_zeros_like,
    to_device,
)
from gpuvec.compat.pycuda._runtime import (
    CompileError,
    Context,
    Device,
    Error,
    Event,
    MemoryError,
    Stream,
    init,
    mem_get_info,
)

__all__ = [
    "ArgumentHandler",
    "CompileError",
    "Context",
    "Device",
    "DeviceAllocation",
    "Error",
    "Event",
    "In",
    "InOut",
    "MemoryError",
    "Out",
    "Stream",
    "from_device",
    "from_device_like",
    "init",
    "mem_alloc",
    "mem_alloc_like",
    "mem_get_info",
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
