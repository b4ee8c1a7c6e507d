"""``import gpuvec.compat.pycuda.autoinit``: PyCUDA's ``pycuda.autoinit``.

Importing it chooses gpuvec's backend (CUDA where it can run, else the host)
and makes the current device's context current. The module then holds
``device`` and ``context``, as PyCUDA's does.

Examples
--------
>>> import gpuvec.compat.pycuda.autoinit as autoinit
>>> autoinit.context.synchronize()
>>> isinstance(autoinit.device.name(), str)
True
>>> len(autoinit.device.compute_capability())
2
"""

from gpuvec.compat.pycuda.tools import make_default_context

__all__ = ["context", "device"]

context = make_default_context()
device = context.get_device()
