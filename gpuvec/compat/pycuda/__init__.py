"""PyCUDA's API over gpuvec: run a PyCUDA notebook by changing its imports.

- ``import pycuda.autoinit``: ``import gpuvec.compat.pycuda.autoinit``
- ``import pycuda.driver as cuda``: ``import gpuvec.compat.pycuda.driver as cuda``
- ``from pycuda.compiler import SourceModule``:
  ``from gpuvec.compat.pycuda.compiler import SourceModule``
- ``import pycuda.gpuarray as gpuarray``: ``import gpuvec.compat.pycuda.gpuarray as gpuarray``
- ``import pycuda.cumath as cumath``: ``import gpuvec.compat.pycuda.cumath as cumath``
- ``import pycuda.tools``: ``import gpuvec.compat.pycuda.tools``

The same code then runs on gpuvec's CUDA backend (NVRTC compiles the
kernels) and on its host backend, without a GPU (the host compiler runs
them in gpuvec's CUDA emulation). What differs from PyCUDA, and why:

- Data lives in gpuvec's dtypes, every real dtype (a kernel's ``__half*``
  parameter does not take float16 yet): a ``GPUArray`` or a ``memcpy`` of
  another dtype raises ``TypeError``. A kernel still
  takes NumPy arrays of any dtype through ``In``, ``Out`` and ``InOut``.
- Every kernel argument is checked against the kernel's signature: a
  float64 array (or an allocation holding float64 data) for a ``float*``
  raises ``TypeError`` instead of reinterpreting the bytes.
- Sources are compiled as written, not wrapped in ``extern "C"``: gpuvec
  finds each kernel by its plain name either way (``no_extern_c`` changes
  nothing), and ``get_function("scale<float>")`` compiles a template instance.
- Page-locked host memory is plain NumPy memory (gpuvec stages copies
  through its own pinned buffers), and the ``_async`` copies finish before
  they return.

Examples
--------
>>> import numpy as np
>>> import gpuvec.compat.pycuda.autoinit
>>> import gpuvec.compat.pycuda.driver as drv
>>> from gpuvec.compat.pycuda.compiler import SourceModule
>>> mod = SourceModule('''
... __global__ void multiply_them(float *dest, float *a, float *b) {
...     const int i = threadIdx.x;
...     dest[i] = a[i] * b[i];
... }''')
>>> multiply_them = mod.get_function("multiply_them")
>>> a = np.arange(400, dtype=np.float32); b = np.ones(400, np.float32)
>>> dest = np.zeros_like(a)
>>> multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
>>> bool((dest == a * b).all())
True
"""
