"""Compatibility layers: other GPU libraries' APIs over gpuvec.

Each layer lets code written for another library run on gpuvec by changing
its imports only, on both backends (on the host backend too, without a GPU):

- :mod:`gpuvec.compat.pycuda`: PyCUDA's ``driver``, ``compiler``,
  ``gpuarray``, ``cumath``, ``tools`` and ``autoinit`` modules, for
  notebooks written against PyCUDA's tutorial (``import
  gpuvec.compat.pycuda.driver as cuda`` for ``import pycuda.driver as
  cuda``). See ``docs/migrating.md``.

A layer is pure Python over gpuvec's public API: it adds no kernels or
dtypes of its own, and where the other library does what gpuvec does not
(integer ``GPUArray``\\ s, say), it raises gpuvec's error rather than emulate it.
"""
