"""Dask arrays with gpuvec: data larger than the device, on one GPU or several.

``import gpuvec.dask`` registers :class:`gpuvec.DeviceArray` with Dask as a
chunk type, so a Dask array's chunks can live on the device, and provides
:func:`to_device` and :func:`to_host` to move them there and back. Dask is
an optional extra (``pip install "gpuvec[dask]"``); ``import gpuvec`` does
not import it.

gpuvec works with Dask in two ways:

- **NumPy chunks, gpuvec functions.** ``x.map_blocks(gpuvec.exp)`` runs a
  gpuvec function on each NumPy chunk: the chunk goes to the device through
  the pinned staging buffers and the result comes back, a NumPy chunk. Each
  call moves its data both ways.
- **DeviceArray chunks.** ``to_device(x)`` makes each chunk a DeviceArray;
  Dask's own operators, ufuncs and reductions (``x + 1``, ``np.exp(x)``,
  ``x.mean(axis=0)``, ``x.std()``, ``x.max()``, ...) then run gpuvec's
  kernels on them, and their results stay on the device until
  :func:`to_host`. A pipeline moves each chunk to the device once.

Both are lazy: nothing is read, copied or computed until Dask computes the
result. Each chunk goes to the current device of the thread or process that
computes it; on a ``dask_cuda.LocalCUDACluster``, which gives each worker one
GPU as its device 0, that is the worker's own GPU. Workers send each other
DeviceArray chunks by value (a DeviceArray pickles through the host).

For data on disk, :func:`from_npy` reads a ``.npy`` file in chunks and
:func:`to_npy` writes one, each chunk in the process that computes it: with
them, a pipeline runs over an array several times larger than the device's
memory (or the host's), on Dask's threads or on a cluster.

What gpuvec lacks, Dask cannot run on DeviceArray chunks either: scans
(``cumsum``), sorting, matrix products, and ``argmax`` and ``argmin``, which
Dask computes by gathering with index arrays. NumPy raises its TypeError,
rather than gpuvec copying the chunks to the host. DeviceArrays hold no
integers, so the counts that Dask makes in int64 (``(x > 0).sum()``,
``da.count_nonzero``) are whole numbers in float64 (see
:doc:`numpy-differences`, 9).

Examples
--------
>>> import numpy as np, dask.array as da, gpuvec, gpuvec.dask
>>> x = da.from_array(np.arange(12.0).reshape(3, 4), chunks=(2, 3))
>>> d = gpuvec.dask.to_device(x)  # lazy: a Dask array of DeviceArray chunks
>>> type(d._meta).__name__
'DeviceArray'
>>> y = gpuvec.dask.to_host(np.sqrt(d) * 2 + 1)
>>> np.allclose(y.compute(), np.sqrt(np.arange(12.0).reshape(3, 4)) * 2 + 1)
True
>>> s = d.std()  # Dask's reduction, run by gpuvec on the device
>>> bool(abs(float(s.compute()) - np.arange(12.0).std()) < 1e-12)
True
>>> x.map_blocks(gpuvec.exp).compute()[0, :2]  # NumPy chunks through gpuvec
array([1.        , 2.71828183])
"""

from __future__ import annotations

import copyreg
import math
import os
import uuid

import dask.array as da
import numpy as np
from dask.array.dispatch import (
    concatenate_lookup,
    empty_lookup,
    numel_lookup,
    tensordot_lookup,
    to_numpy_dispatch,
)
from dask.base import normalize_token, tokenize
from dask.sizeof import sizeof

import gpuvec
from gpuvec.device_array import DeviceArray, _unpickle
from gpuvec.manipulation import _axes

__all__ = ["from_npy", "to_device", "to_host", "to_npy"]


def to_device(x, dtype=None):
    """A Dask array whose chunks are ``x``'s, copied to the device: lazily.

    Parameters
    ----------
    x : dask.array.Array
        Any real dtype, with NumPy chunks (or DeviceArrays, kept as they are).
    dtype : dtype, optional
        The chunks' dtype on the device (one that a DeviceArray holds); by
        default :func:`gpuvec.to_device`'s: bools and integers keep theirs,
        floats take the dtype policy's. It is decided here, so a
        :func:`gpuvec.precision` in force where the chunks are computed does
        not change it.

    Returns
    -------
    dask.array.Array
        Of ``x``'s shape and chunks, with DeviceArray chunks. Nothing is
        copied until it is computed; each chunk is copied then, through the
        pinned staging buffers, to the current device of whichever thread
        or worker computes it.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array, or ``dtype`` is not one a DeviceArray holds.

    Examples
    --------
    >>> import numpy as np, dask.array as da, gpuvec.dask
    >>> x = da.ones((1000, 100), chunks=(250, 100), dtype=np.float32)
    >>> d = gpuvec.dask.to_device(x)
    >>> d.dtype, d.chunks[0]
    (dtype('float32'), (250, 250, 250, 250))
    >>> d.sum(axis=0).compute()[:3]  # a DeviceArray: it stayed on the device
    DeviceArray([1000., 1000., 1000.], dtype=float32)
    """
    _check_dask_array(x, "to_device")
    # The policy decides the dtype once, on a chunk of no elements.
    meta = gpuvec.to_device(np.empty((0,) * x.ndim, x.dtype), dtype)
    if isinstance(x._meta, DeviceArray) and x.dtype == meta.dtype:
        return x
    chunk_dtype = None if meta.dtype == np.bool_ else meta.dtype  # bool stays bool by itself
    name = f"gpuvec-to-device-{tokenize(x, chunk_dtype)}"
    return x.map_blocks(_upload, chunk_dtype, dtype=meta.dtype, meta=meta, name=name)


def to_host(x):
    """A Dask array whose chunks are ``x``'s, copied to the host as NumPy arrays: lazily.

    Parameters
    ----------
    x : dask.array.Array
        With DeviceArray chunks (NumPy chunks are kept as they are).

    Returns
    -------
    dask.array.Array
        Of ``x``'s shape and chunks, with NumPy chunks. Each chunk is copied
        where it is computed: on a cluster, each worker sends NumPy data.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array.

    Examples
    --------
    >>> import numpy as np, dask.array as da, gpuvec.dask
    >>> d = gpuvec.dask.to_device(da.arange(6.0, chunks=4))
    >>> gpuvec.dask.to_host(d * 10).compute()
    array([ 0., 10., 20., 30., 40., 50.])
    """
    _check_dask_array(x, "to_host")
    meta = np.empty((0,) * x.ndim, x.dtype)
    name = f"gpuvec-to-host-{tokenize(x)}"
    return x.map_blocks(gpuvec.asnumpy, dtype=x.dtype, meta=meta, name=name)


def from_npy(path, chunks="auto"):
    """A ``.npy`` file as a Dask array: each chunk is read, from a memory map of
    the file, where it is computed.

    A ``np.memmap`` serves Dask's threads well, but a task graph for worker
    processes would carry its whole data (a memmap pickles its contents);
    this array carries the file's path instead, so each worker reads its own
    chunks from the disk.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npy`` file (``np.save``, ``np.lib.format.open_memmap``).
    chunks : int, tuple, str or dict, optional
        As for :func:`dask.array.from_array`.

    Returns
    -------
    dask.array.Array
        Of the file's shape and dtype, with NumPy chunks; lazy.

    Examples
    --------
    >>> import os, tempfile, numpy as np, gpuvec.dask
    >>> path = os.path.join(tempfile.mkdtemp(), "x.npy")
    >>> np.save(path, np.arange(10.0))
    >>> x = gpuvec.dask.from_npy(path, chunks=4)
    >>> x.chunks, float(gpuvec.dask.to_device(x).sum().compute())
    (((4, 4, 2),), 45.0)
    """
    file = _NpyFile(path)
    meta = np.empty((0,) * len(file.shape), file.dtype)
    return da.from_array(file, chunks=chunks, asarray=True, fancy=False, meta=meta)


def to_npy(x, path, *, compute=True):
    """Writes ``x`` to a new ``.npy`` file, each chunk where it is computed.

    Parameters
    ----------
    x : dask.array.Array
        NumPy or DeviceArray chunks (a DeviceArray chunk is copied to the
        host, as by :func:`to_host`, on its worker).
    path : str or os.PathLike
        The file to create (or overwrite), of ``x``'s shape and dtype.
    compute : bool, optional
        False returns the writing as a Dask Delayed to compute later (with
        other work, say), as :func:`dask.array.store` does.

    Returns
    -------
    None or dask.delayed.Delayed

    Examples
    --------
    >>> import os, tempfile, numpy as np, dask.array as da, gpuvec.dask
    >>> path = os.path.join(tempfile.mkdtemp(), "y.npy")
    >>> d = gpuvec.dask.to_device(da.arange(6.0, chunks=4))
    >>> gpuvec.dask.to_npy(np.sqrt(d), path)
    >>> np.load(path)[-2:]
    array([2.        , 2.23606798])
    """
    _check_dask_array(x, "to_npy")
    # The whole file, at once: the chunks fill in their parts of it.
    np.lib.format.open_memmap(path, mode="w+", dtype=x.dtype, shape=x.shape)
    return da.store(to_host(x), _NpyFile(path), lock=False, compute=compute)


class _NpyFile:
    """A ``.npy`` file, read and written in parts through memory maps of it.

    What :func:`from_npy` and :func:`to_npy` give Dask: ``file[key]`` reads a
    part, ``file[key] = chunk`` writes one, in whichever process computes it.
    It pickles as its path.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        header = np.load(self.path, mmap_mode="r")
        self.shape, self.dtype, self.ndim = header.shape, header.dtype, header.ndim

    def __getitem__(self, key):
        return np.load(self.path, mmap_mode="r")[key]

    def __setitem__(self, key, value):
        np.load(self.path, mmap_mode="r+")[key] = value

    def __dask_tokenize__(self):
        # The file's state, so that Dask never reuses a result of older contents.
        stat = os.stat(self.path)
        return ("gpuvec.dask.npy", self.path, stat.st_mtime_ns, stat.st_size)


def _check_dask_array(x, function: str) -> None:
    if not isinstance(x, da.Array):
        raise TypeError(
            f"x must be a dask.array.Array, got {type(x).__name__}: gpuvec.dask.{function} "
            "takes a Dask array (make one with dask.array.from_array)"
        )


def _upload(block, dtype):
    """One chunk, copied to the current device (the task that to_device adds)."""
    return gpuvec.to_device(block, dtype)


def _numel(x, axis=None, keepdims=False, dtype=None, **_):
    """Dask's count of the elements that a reduction reads (for ``mean``, ``var``):
    a DeviceArray of the reduction's shape, on ``x``'s device, as Dask's own
    counts are arrays of the chunk's type where that type allows it."""
    axes = tuple(range(x.ndim)) if axis is None else _axes(axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    if keepdims:
        shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    else:
        shape = tuple(n for a, n in enumerate(x.shape) if a not in axes)
    return np.full_like(x, count, dtype=dtype or np.float64, shape=shape)


def _token(x):
    """A Dask token for a DeviceArray, without reading its data.

    Dask hashes a NumPy array's bytes; for a DeviceArray that would copy
    it to the host (and its fallback, pickling, would copy it there and
    back). A fresh token keeps Dask from merging tasks of an array whose
    data changed; an array of no elements has nothing to change.
    """
    if x.size == 0:
        return ("gpuvec.DeviceArray", x.shape, x.dtype.str)
    return uuid.uuid4().hex


def _pickle_here(x):
    """DeviceArray's pickle (by value), loaded through this module: a process that
    loads a DeviceArray pickled where Dask runs gpuvec (a Dask worker receiving
    a chunk) imports gpuvec.dask, and so registers gpuvec with its Dask too."""
    return _load, (x.to_host(),)


def _load(data):
    return _unpickle(data)


da.register_chunk_type(DeviceArray)
concatenate_lookup.register(DeviceArray, gpuvec.concatenate)
tensordot_lookup.register(DeviceArray, np.tensordot)  # gpuvec's, through __array_function__
empty_lookup.register(DeviceArray, gpuvec.empty)
numel_lookup.register(DeviceArray, _numel)
to_numpy_dispatch.register(DeviceArray, gpuvec.asnumpy)  # x.to_backend("numpy")
sizeof.register(DeviceArray, lambda x: x.nbytes)
normalize_token.register(DeviceArray, _token)
copyreg.pickle(DeviceArray, _pickle_here)
