"""Validating an op's arguments and handing them to the compiled core.

An op's public function (elementwise.py, reductions.py) describes its inputs;
this module turns them into what the Cython layer takes: arrays of one
dtype, broadcast to one shape, each seen as a ``Span`` (flat typed memory,
an offset and element strides) so that no strided or broadcast input is
copied just to make it contiguous.
"""

from __future__ import annotations

import contextlib
import numbers
import operator

import numpy as np
from numpy.lib.stride_tricks import as_strided

from gpuvec import _backend, _core
from gpuvec._dtypes import as_real_array, result_dtype
from gpuvec.streams import current_stream, resolve_stream, stream_handle


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
        array = np.asarray(array, order="C")  # rare: byte strides that are not whole elements
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


def plain_call(dtype, threads_per_block, stream) -> bool:
    """True for a call with no dtype, launch or stream option while no stream
    is current: what the short paths for device arrays need."""
    return (
        dtype is None and threads_per_block is None and stream is None and current_stream() is None
    )


def as_compute_input(array: np.ndarray, compute: np.dtype) -> np.ndarray:
    """An input ready for the core: float32 and float64 stay as they are (the
    core converts them while it reads them), other real dtypes become ``compute``."""
    if array.dtype in (np.float32, np.float64):
        return array
    return array.astype(compute)


def is_device_data(value) -> bool:
    """True for a DeviceArray or another library's GPU array."""
    from gpuvec.creation import _on_gpu
    from gpuvec.device_array import DeviceArray

    return isinstance(value, DeviceArray) or (
        not isinstance(value, (np.ndarray, numbers.Number, list, tuple)) and _on_gpu(value)
    )


def elementwise(
    launch, inputs: dict, out, dtype, threads_per_block, extra_dtype_inputs=(), stream=None
):
    """Runs an elementwise op: ``launch(shape, *input_spans, out_span, backend, tpb, stream)``.

    ``inputs`` maps argument names to the user's values. With DeviceArray
    inputs (or ``out``) the op runs on device data and returns a DeviceArray;
    otherwise it returns the result array, ``out`` itself when given, or a
    NumPy scalar when every input is a scalar (as NumPy's ufuncs do).
    """
    from gpuvec.device_array import DeviceArray

    if isinstance(out, DeviceArray) or any(is_device_data(v) for v in inputs.values()):
        return _elementwise_on_device(
            launch, inputs, out, dtype, threads_per_block, extra_dtype_inputs, stream
        )
    arrays = {name: as_real_array(value, name) for name, value in inputs.items()}
    compute = result_dtype(*inputs.values(), *extra_dtype_inputs, dtype=dtype)
    shape = broadcast_shape(arrays)
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    if out is not None:
        check_out(out, shape, compute)
    backend = _backend.backend()
    cast = [np.broadcast_to(as_compute_input(a, compute), shape) for a in arrays.values()]
    if out is None:
        target = result = np.empty(shape, compute)
    elif _needs_temporary(out, cast, backend):
        target, result = np.empty(shape, compute), out
    else:
        target = result = out
    if target.size:
        spans = [host_span(a) for a in cast]
        launch(tuple(shape), *spans, host_span(target), _backend.backend_code(), tpb, handle)
    if result is not target:
        result[...] = target
    if out is None and result.ndim == 0:
        return result[()]
    return result


def reduction(
    launch, inputs: dict, dtype, threads_per_block, same_shape=False, stream=None
) -> float:
    """Runs a full reduction: ``launch(shape, *input_spans, out_span, backend, tpb, stream)``
    writes the one-element result. Device inputs give a 0-d DeviceArray."""
    if any(is_device_data(v) for v in inputs.values()):
        return _reduction_on_device(launch, inputs, dtype, threads_per_block, same_shape, stream)
    arrays = {name: as_real_array(value, name) for name, value in inputs.items()}
    compute = result_dtype(*arrays.values(), dtype=dtype)
    _check_same_shape(arrays, same_shape)
    shape = broadcast_shape(arrays)
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    spans = [host_span(as_compute_input(a, compute)) for a in arrays.values()]
    result = np.empty((), compute)
    launch(tuple(shape), *spans, host_span(result), _backend.backend_code(), tpb, handle)
    return float(result)


def _check_same_shape(arrays: dict, same_shape: bool) -> None:
    if same_shape and len({a.shape for a in arrays.values()}) > 1:
        described = " and ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"shapes do not match: {described} must have the same shape")


# -- device data ---------------------------------------------------------------------------------


def _device_operands(inputs: dict) -> dict:
    """The inputs as DeviceArrays, or Python scalars; host arrays are refused."""
    from gpuvec.creation import asarray
    from gpuvec.device_array import DeviceArray

    operands = {}
    for name, value in inputs.items():
        if isinstance(value, DeviceArray):
            operands[name] = value
        elif isinstance(value, (numbers.Real, np.bool_)) and np.ndim(value) == 0:
            operands[name] = value
        elif is_device_data(value):
            operands[name] = asarray(value)
        else:
            as_real_array(value, name)  # a TypeError for non-numeric data comes first
            raise TypeError(
                f"{name} ({type(value).__name__}) is in host memory, but the other arguments "
                f"are on the device: copy it there with gpuvec.to_device({name}) first"
            )
    return operands


def _same_device(operands) -> int:
    devices = {a._device for a in operands if hasattr(a, "_device")}
    if len(devices) > 1:
        raise ValueError(f"the arrays are on different devices: {sorted(devices)}")
    return devices.pop() if devices else 0


def _on_device(operands: dict, compute, shape):
    """Each operand as a DeviceArray of the compute dtype (scalars are copied over)."""
    from gpuvec.creation import to_device

    result = []
    for value in operands.values():
        if not hasattr(value, "_span"):
            value = to_device(np.asarray(value, compute))
        elif value.dtype != compute:
            value = value.astype(compute)
        elif isinstance(value._owner, _core.ResultSlot):
            # A reduction's result lives in host memory: every thread reading
            # it as a broadcast operand would cross the bus, so copy it over.
            value = value.copy()
        result.append(value)
    return result


def _overlaps(a, b) -> bool:
    """True when the memory spans of two device arrays intersect."""
    if a._host is not None:
        return np.may_share_memory(a._host, b._host)
    sa, sb = a._span(), b._span()
    if sa.length == 0 or sb.length == 0:
        return False
    ia, ib = a.itemsize, b.itemsize
    return sa.device_address < sb.device_address + sb.length * ib and (
        sb.device_address < sa.device_address + sa.length * ia
    )


def _mark_stream_use(arrays, handle: int) -> None:
    """Orders this stream's work before the frees of the arrays' memory."""
    for array in arrays:
        buffer = array._buffer()
        if buffer is not None:
            buffer.used_on(handle)


def _device_context(device: int):
    """Makes ``device`` current for the op, when it is not already."""
    from gpuvec.device import Device

    if _backend.backend() == "cuda" and device != _core.cuda_get_device():
        return Device(device)
    return contextlib.nullcontext()


def _elementwise_on_device(
    launch, inputs, out, dtype, threads_per_block, extra, stream, mask=None
):
    """An elementwise op on device data. ``mask`` is ``(name, bool array)`` for
    ``where``: it takes part in broadcasting and reaches ``launch`` first, as
    host bytes copied over with the call."""
    from gpuvec.device_array import DeviceArray

    operands = _device_operands(inputs)
    compute = result_dtype(
        *(v.dtype if isinstance(v, DeviceArray) else v for v in operands.values()),
        *extra,
        dtype=dtype,
    )
    shapes = {
        n: np.empty(v.shape if isinstance(v, DeviceArray) else (), bool)
        for n, v in operands.items()
    }
    if mask is not None:
        shapes = {mask[0]: mask[1], **shapes}
    shape = broadcast_shape(shapes)
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    if out is not None:
        if not isinstance(out, DeviceArray):
            raise TypeError(
                f"out must be a DeviceArray when the inputs are on the device, "
                f"got {type(out).__name__}"
            )
        check_out_shape_dtype(out, shape, compute)
    device = _same_device([*operands.values(), *([out] if out is not None else [])])
    flags = None if mask is None else mask[1]
    with _device_context(device):
        return _run_on_device(launch, operands, out, compute, shape, tpb, handle, stream, flags)


def _run_on_device(launch, operands, out, compute, shape, tpb, handle, stream, flags=None):
    from gpuvec.creation import empty
    from gpuvec.device_array import _assign

    arrays = _on_device(operands, compute, shape)
    if out is None:
        target = result = empty(shape, compute, stream=stream)
    elif any(_overlaps(out, a) and not _same_view(out, a) for a in arrays):
        target, result = empty(shape, compute, stream=stream), out
    else:
        target = result = out
    if target.size:
        spans = [a._span(shape) for a in arrays]
        if flags is not None:
            spans.insert(0, host_span(np.broadcast_to(flags, shape).view(np.uint8)))
        launch(tuple(shape), *spans, target._span(), _backend.backend_code(), tpb, handle)
        _mark_stream_use([*arrays, target], handle)
        target._stream = resolve_stream(stream)
    if result is not target:
        _assign(result, target)
    return result


def _same_view(a, b) -> bool:
    return (
        a._host is None
        and a._address == b._address
        and a.strides == b.strides
        and a.dtype == b.dtype
    ) or (a._host is not None and a._host is b._host)


def check_out_shape_dtype(out, shape, dtype) -> None:
    """Validates a DeviceArray ``out=``."""
    if out.shape != tuple(shape):
        raise ValueError(f"out has shape {out.shape}, but the result has shape {tuple(shape)}")
    if out.dtype != dtype:
        raise ValueError(f"out has dtype {out.dtype}, but the result has dtype {dtype}")
    if out._readonly:
        raise ValueError("out is read-only")


def _reduction_on_device(launch, inputs, dtype, threads_per_block, same_shape, stream):
    from gpuvec.creation import empty
    from gpuvec.device_array import DeviceArray

    operands = _device_operands(inputs)
    compute = result_dtype(
        *(v.dtype if isinstance(v, DeviceArray) else v for v in operands.values()), dtype=dtype
    )
    shapes = {
        n: np.empty(v.shape if isinstance(v, DeviceArray) else (), bool)
        for n, v in operands.items()
    }
    _check_same_shape(shapes, same_shape)
    shape = broadcast_shape(shapes)
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    with _device_context(_same_device(operands.values())):
        arrays = _on_device(operands, compute, shape)
        result = empty((), compute, stream=stream)
        spans = [a._span(shape) for a in arrays]
        launch(tuple(shape), *spans, result._span(), _backend.backend_code(), tpb, handle)
        _mark_stream_use([*arrays, result], handle)
        result._stream = resolve_stream(stream)
    return result


def run_cast(source, target) -> None:
    """Copies DeviceArray ``source`` into ``target`` of the other float dtype."""
    shape = tuple(target.shape)
    np.broadcast_shapes(source.shape, shape)
    if target.size:
        handle = target._stream_handle
        _core.cast(shape, source._span(shape), target._span(), _backend.backend_code(), handle)
        _mark_stream_use([source, target], handle)


# -- ops with a bool mask, reductions over axes -------------------------------------------------


def _device_array_class():
    from gpuvec.device_array import DeviceArray

    return DeviceArray


def bool_mask(value, name: str) -> np.ndarray:
    """``value`` as a NumPy bool array, or a TypeError naming its dtype."""
    try:
        mask = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} cannot be turned into a bool array: {exc}") from None
    if mask.dtype != np.bool_:
        raise TypeError(
            f"{name} has dtype {mask.dtype}, but it must be a bool array: compare the data "
            f"(x > 0) or convert it ({name}.astype(bool))"
        )
    return mask


def masked_elementwise(
    launch, mask_name: str, mask, inputs: dict, out, dtype, threads_per_block, stream=None
):
    """Runs an elementwise op with a bool mask operand:
    ``launch(shape, mask_span, *input_spans, out_span, backend, tpb, stream)``.

    Like :func:`elementwise`, except that the mask takes part in broadcasting
    but not in the result dtype, and reaches the launcher as bytes.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuvec import _core
    >>> def launch(shape, sc, sa, sb, so, backend, tpb, handle):
    ...     _core.where(shape, sc, sa, sb, so, backend, tpb, handle)
    >>> masked_elementwise(launch, "cond", [True, False], {"a": 1.0, "b": [5.0, 6.0]},
    ...                    None, None, None)
    array([1., 6.])
    """
    if is_device_data(mask):
        raise TypeError(
            f"{mask_name} must be a NumPy bool array (DeviceArrays hold floats): "
            f"build it on the host, e.g. gpuvec.asnumpy(x) > 0"
        )
    flags = bool_mask(mask, mask_name)
    if isinstance(out, _device_array_class()) or any(is_device_data(v) for v in inputs.values()):
        return _elementwise_on_device(
            launch, inputs, out, dtype, threads_per_block, (), stream, mask=(mask_name, flags)
        )
    arrays = {name: as_real_array(value, name) for name, value in inputs.items()}
    compute = result_dtype(*inputs.values(), dtype=dtype)
    shape = broadcast_shape({mask_name: flags, **arrays})
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    if out is not None:
        check_out(out, shape, compute)
    backend = _backend.backend()
    cast = [np.broadcast_to(as_compute_input(a, compute), shape) for a in arrays.values()]
    flags = np.broadcast_to(flags, shape)
    if out is None:
        target = result = np.empty(shape, compute)
    elif _needs_temporary(out, [*cast, flags], backend):
        target, result = np.empty(shape, compute), out
    else:
        target = result = out
    if target.size:
        spans = [host_span(a) for a in cast]
        mask_span = host_span(flags.view(np.uint8))
        launch(
            tuple(shape),
            mask_span,
            *spans,
            host_span(target),
            _backend.backend_code(),
            tpb,
            handle,
        )
    if result is not target:
        result[...] = target
    if out is None and result.ndim == 0:
        return result[()]
    return result


def normalize_axes(axis, ndim: int, single: bool = False) -> tuple[int, ...]:
    """``axis=`` as a sorted tuple of axes in ``range(ndim)``; None is every axis.

    Negative axes count from the end. As in NumPy, an axis out of range is a
    :class:`numpy.exceptions.AxisError`, a repeated one a ValueError, and
    ``single=True`` (argmin, argmax) takes one int only.

    Examples
    --------
    >>> normalize_axes(-1, 3), normalize_axes((2, 0), 3), normalize_axes(None, 2)
    ((2,), (0, 2), (0, 1))
    >>> normalize_axes(3, 3)
    Traceback (most recent call last):
        ...
    numpy.exceptions.AxisError: axis 3 is out of bounds for array of dimension 3
    """
    from numpy.exceptions import AxisError

    if axis is None:
        return tuple(range(ndim))
    if single or not isinstance(axis, tuple):
        axis = (operator.index(axis),)
    axes = tuple(operator.index(a) for a in axis)
    for a in axes:
        if not -ndim <= a < ndim:
            raise AxisError(a, ndim)
    normalized = tuple(a % ndim for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(normalized))


def _reduction_plan(shape, axis, index, empty_error, warn_if_at_most):
    """Which axes a reduction keeps and reduces, with NumPy's errors and warnings.

    Returns (reduced axes, kept axes, output shape, shape of one row).
    """
    import math
    import warnings

    axes = normalize_axes(axis, len(shape), single=index)
    kept = tuple(d for d in range(len(shape)) if d not in axes)
    red_shape = tuple(shape[d] for d in axes)
    n = math.prod(red_shape)
    if n == 0 and empty_error is not None:
        raise ValueError(empty_error)
    if warn_if_at_most is not None and n <= warn_if_at_most[0]:
        # stacklevel: the warning points at the user's call of the public function
        warnings.warn(warn_if_at_most[1], RuntimeWarning, stacklevel=4)
    return axes, kept, tuple(shape[d] for d in kept), red_shape


def axis_reduction(
    op: int,
    name: str,
    x,
    axis,
    keepdims: bool,
    dtype,
    threads_per_block,
    *,
    ddof: float = 0.0,
    index: bool = False,
    empty_error: str | None = None,
    warn_if_at_most: tuple[float, str] | None = None,
    stream=None,
):
    """Runs the reduction ``op`` (a ``_core.REDUCE_*``) of ``x`` over ``axis``.

    The reduced axes are moved to the end (a transposed view, no copy) and
    the compiled core reduces each row of them. ``index=True`` gives int64
    results (argmin, argmax); ``empty_error`` is the ValueError raised for
    rows of no elements; ``warn_if_at_most=(k, message)`` warns (a
    RuntimeWarning, as NumPy does) when rows have at most k elements.

    Returns a Python float (int for ``index``) for ``axis=None`` without
    ``keepdims``, else a NumPy array, or a NumPy scalar when it has no
    dimensions.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuvec import _core
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> axis_reduction(_core.REDUCE_SUM, "sum", x, 0, False, None, None)
    array([3., 5., 7.])
    >>> axis_reduction(_core.REDUCE_SUM, "sum", x, None, False, None, None)
    15.0
    """

    if not (keepdims or index) and plain_call(dtype, threads_per_block, stream):
        # The short path for a device array over all axes or one, on the default stream.
        at_most = -1 if warn_if_at_most is None else warn_if_at_most[0]
        if (result := _core.fast_reduce(op, x, axis, ddof, at_most)) is not None:
            return result
    if is_device_data(x):
        return _axis_reduction_on_device(
            op,
            name,
            x,
            axis,
            keepdims,
            dtype,
            threads_per_block,
            ddof,
            index,
            empty_error,
            warn_if_at_most,
            stream,
        )
    array = as_real_array(x, "x")
    broadcast_shape({"x": array})  # the error for too many dimensions
    compute = result_dtype(array, dtype=dtype)
    axes, kept, out_shape, red_shape = _reduction_plan(
        array.shape, axis, index, empty_error, warn_if_at_most
    )
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    # float32 and float64 stay as they are: the core converts them as it stages them.
    view = as_compute_input(array, compute).transpose(kept + axes)
    result = np.empty(out_shape, np.int64 if index else compute)
    if result.size:
        _core.reduce(
            op,
            out_shape,
            red_shape,
            host_span(view),
            host_span(result),
            compute == np.float32,
            ddof,
            _backend.backend_code(),
            tpb,
            handle,
        )
    if keepdims:
        return result.reshape(tuple(1 if d in axes else array.shape[d] for d in range(array.ndim)))
    if axis is None:
        return int(result) if index else float(result)
    return result[()] if result.ndim == 0 else result


# -- device data for masked ops and axis reductions ---------------------------------------------


class _IndexBuffer:
    """Device memory for int64 indices (argmin, argmax): DeviceArrays hold
    floats, so indices are computed on the device and handed back as NumPy."""

    itemsize = 8

    def __init__(self, count: int, handle: int, stream):
        self.buffer = _core.DeviceBuffer(count * 8, handle, stream)


def _axis_reduction_on_device(
    op,
    name,
    x,
    axis,
    keepdims,
    dtype,
    threads_per_block,
    ddof,
    index,
    empty_error,
    warn_if_at_most,
    stream,
):
    """axis_reduction for a DeviceArray: the result stays on the device (a
    DeviceArray, 0-d for axis=None), except argmin/argmax indices (NumPy int64)."""

    from gpuvec.creation import asarray, empty
    from gpuvec.device_array import DeviceArray

    array = x if isinstance(x, DeviceArray) else asarray(x)
    compute = result_dtype(array.dtype, dtype=dtype)
    if array.dtype != compute:
        array = array.astype(compute)
    axes, kept, out_shape, red_shape = _reduction_plan(
        array.shape, axis, index, empty_error, warn_if_at_most
    )
    tpb = threads_per_block_arg(threads_per_block)
    handle = stream_handle(stream)
    view = array._permuted(kept + axes)
    keep_shape = tuple(1 if d in axes else array.shape[d] for d in range(array.ndim))
    with _device_context(array._device if array._host is None else 0):
        if index:
            result = np.empty(out_shape, np.int64)
            if result.size:
                if array._host is not None:
                    out_span = host_span(result)
                else:
                    indices = _IndexBuffer(result.size, handle, resolve_stream(stream))
                    out_span = _core.Span(
                        None,
                        0,
                        out_shape,
                        _c_order(out_shape),
                        indices.buffer.address,
                        result.size,
                        indices,
                    )
                _core.reduce(
                    op,
                    out_shape,
                    red_shape,
                    view._span(),
                    out_span,
                    compute == np.float32,
                    ddof,
                    _backend.backend_code(),
                    tpb,
                    handle,
                )
                if array._host is None:
                    _core.copy_to_host(
                        result.reshape(-1).view(np.uint8), indices.buffer.address, handle
                    )
            if keepdims:
                return result.reshape(keep_shape)
            return int(result) if axis is None else (result[()] if result.ndim == 0 else result)
        result = empty(out_shape, compute, stream=stream)
        if result.size:
            _core.reduce(
                op,
                out_shape,
                red_shape,
                view._span(),
                result._span(),
                compute == np.float32,
                ddof,
                _backend.backend_code(),
                tpb,
                handle,
            )
            _mark_stream_use([array, result], handle)
            result._stream = resolve_stream(stream)
    return result.reshape(keep_shape) if keepdims else result


def _c_order(shape) -> tuple[int, ...]:
    """C-order strides in elements."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))
