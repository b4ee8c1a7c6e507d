"""Validating an op's arguments and handing them to the compiled core.

An op's public function (elementwise.py, reductions.py) describes its inputs;
this module turns them into what the Cython layer takes: arrays of one
dtype, broadcast to one shape, each seen as a ``Span`` (flat typed memory,
an offset and element strides) so that no strided or broadcast input is
copied just to make it contiguous.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np
from numpy.lib.stride_tricks import as_strided

from gpuvec import _backend, _core
from gpuvec._dtypes import as_real_array, result_dtype


def host_span(array: np.ndarray) -> _core.Span:
    """``array`` as a Span over its own memory, without copying.

    Examples
    --------
    >>> import numpy as np
    >>> s = host_span(np.arange(6.0)[::-2])
    >>> s.offset, len(s.flat)
    (4, 5)
    """
    itemsize = array.itemsize
    if not array.flags.aligned or any(s % itemsize for s in array.strides):
        array = np.ascontiguousarray(array)  # rare: byte strides that are not whole elements
    if array.size == 0:
        return _core.Span(np.empty(0, array.dtype), 0, array.shape, (0,) * array.ndim)
    strides = tuple(s // itemsize for s in array.strides)
    dims = list(zip(array.shape, strides, strict=True))
    low = sum((n - 1) * s for n, s in dims if s < 0)
    high = sum((n - 1) * s for n, s in dims if s > 0)
    # A one-element view at the lowest address the array touches...
    if array.ndim == 0:
        corner = array.reshape(1)
    else:
        corner = array[tuple(slice(n - 1, n) if s < 0 else slice(0, 1) for n, s in dims)]
    # ...stretched over every element between it and the highest address.
    flat = as_strided(corner, shape=(high - low + 1,), strides=(itemsize,))
    return _core.Span(flat, -low, array.shape, strides)


def _dense(array: np.ndarray) -> bool:
    """True when the array's elements fill its memory span without gaps."""
    return array.flags.c_contiguous or array.flags.f_contiguous


def threads_per_block_arg(threads_per_block) -> int:
    """The ``threads_per_block=`` argument as the ABI's int (0: the default)."""
    if threads_per_block is None:
        return 0
    if isinstance(threads_per_block, bool) or not isinstance(threads_per_block, numbers.Integral):
        raise TypeError(f"threads_per_block must be an int, got {threads_per_block!r}")
    return operator.index(threads_per_block)


def scalar_arg(value, name: str) -> float:
    """A real scalar argument (alpha, say) as a Python float."""
    if isinstance(value, (numbers.Real, np.bool_)) and np.ndim(value) == 0:
        return float(value)
    raise TypeError(f"{name} must be a real scalar, got {value!r}")


def broadcast_shape(arrays: dict[str, np.ndarray]) -> tuple[int, ...]:
    """The common shape of the inputs, or a ValueError naming their shapes."""
    for name, array in arrays.items():
        if array.ndim > _core.MAX_NDIM:
            raise ValueError(
                f"arrays of more than {_core.MAX_NDIM} dimensions are not supported: "
                f"{name} has {array.ndim}"
            )
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        described = " and ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(
            f"shapes do not match: {described} cannot be broadcast together"
        ) from None


def check_out(out, shape: tuple[int, ...], dtype: np.dtype) -> None:
    """Validates a user's ``out=`` array before anything is computed."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(f"out has shape {out.shape}, but the result has shape {tuple(shape)}")
    if out.dtype != dtype:
        raise ValueError(f"out has dtype {out.dtype}, but the result has dtype {dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def _needs_temporary(out: np.ndarray, inputs: list[np.ndarray], backend: str) -> bool:
    """True when writing straight into ``out`` could go wrong.

    That is when ``out`` overlaps an input other than exactly (an in-place op
    like ``add(a, b, out=a)`` is safe: every element is read before it is
    written, by the same thread), or, on the CUDA backend, when its span has
    gaps that the copy back would overwrite.
    """
    if backend == "cuda" and not _dense(out):
        return True
    for array in inputs:
        if not np.may_share_memory(out, array):
            continue
        same = (
            array.__array_interface__["data"][0] == out.__array_interface__["data"][0]
            and array.strides == out.strides
            and array.dtype == out.dtype
        )
        if not same:
            return True
    return False


def _input_span(array: np.ndarray, backend: str) -> _core.Span:
    # A sparse view (a[::100]) would upload mostly unused memory: compact it.
    if backend == "cuda" and array.size and not _dense(array):
        reach = sum((n - 1) * abs(s) for n, s in zip(array.shape, array.strides, strict=True))
        if reach // array.itemsize + 1 > 2 * array.size:
            array = np.ascontiguousarray(array)
    return host_span(array)


def elementwise(launch, inputs: dict, out, dtype, threads_per_block, extra_dtype_inputs=()):
    """Runs an elementwise op: ``launch(shape, *input_spans, out_span, backend, tpb)``.

    ``inputs`` maps argument names to the user's values. Returns the result
    array, ``out`` itself when given, or a NumPy scalar when every input is
    a scalar (as NumPy's ufuncs do).
    """
    arrays = {name: as_real_array(value, name) for name, value in inputs.items()}
    compute = result_dtype(*inputs.values(), *extra_dtype_inputs, dtype=dtype)
    shape = broadcast_shape(arrays)
    tpb = threads_per_block_arg(threads_per_block)
    if out is not None:
        check_out(out, shape, compute)
    backend = _backend.backend()
    cast = [np.broadcast_to(a.astype(compute, copy=False), shape) for a in arrays.values()]
    if out is None:
        target = result = np.empty(shape, compute)
    elif _needs_temporary(out, cast, backend):
        target, result = np.empty(shape, compute), out
    else:
        target = result = out
    if target.size:
        spans = [_input_span(a, backend) for a in cast]
        launch(tuple(shape), *spans, host_span(target), _backend.backend_code(), tpb)
    if result is not target:
        result[...] = target
    if out is None and result.ndim == 0:
        return result[()]
    return result


def reduction(launch, inputs: dict, dtype, threads_per_block, same_shape=False) -> float:
    """Runs a full reduction: ``launch(shape, *input_spans, backend, tpb) -> float``."""
    arrays = {name: as_real_array(value, name) for name, value in inputs.items()}
    compute = result_dtype(*arrays.values(), dtype=dtype)
    if same_shape and len({a.shape for a in arrays.values()}) > 1:
        described = " and ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"shapes do not match: {described} must have the same shape")
    shape = broadcast_shape(arrays)
    tpb = threads_per_block_arg(threads_per_block)
    backend = _backend.backend()
    spans = [_input_span(a.astype(compute, copy=False), backend) for a in arrays.values()]
    return launch(tuple(shape), *spans, _backend.backend_code(), tpb)
