"""NumPy's ufuncs and functions on DeviceArrays: the tables behind the two protocols.

:class:`gpuvec.DeviceArray` answers NumPy's ``__array_ufunc__`` and
``__array_function__`` by looking the ufunc or function up in
``NUMPY_UFUNCS`` and ``NUMPY_FUNCTIONS``; this module, imported by
:mod:`gpuvec` after every op module, fills them. So code written for NumPy
runs on device data, and stays there:

>>> import numpy as np, gpuvec
>>> d = gpuvec.to_device(np.array([[1.0, 2.0], [3.0, 5.0]]))
>>> np.exp(d - np.max(d, axis=1, keepdims=True))
DeviceArray([[0.36787944, 1.        ],
             [0.13533528, 1.        ]], dtype=float64)
>>> np.add.reduce(d, axis=1)
DeviceArray([3., 8.], dtype=float64)

The ufuncs are those the op table's numpy column names (``rint`` for
gpuvec's ``round``), called with their inputs, ``out=`` (a
DeviceArray), ``dtype=`` (not for the comparisons and logical ops, whose
result is bool) and ``casting="same_kind"``; ``reduce`` is taken by ``add``,
``multiply``, ``maximum``, ``minimum``, ``logical_and`` and ``logical_or``
(gpuvec's ``sum``, ``prod``, ``max``, ``min``, ``all``, ``any``), with
``axis`` (0 by default, as in NumPy), ``dtype`` and ``keepdims``. On bools,
``bitwise_and``, ``bitwise_or``, ``bitwise_xor`` and ``invert`` are the
logical ops, as ``& | ^ ~`` are on a DeviceArray (``np.True_ & d`` asks
them).

The functions, with NumPy's signatures: the op table's reductions, by its
numpy column: ``sum``, ``mean``, ``std``, ``var``, ``min``/``amin``,
``max``/``amax``, ``prod``, ``nansum``, ``nanmean``, ``nanmax``, ``nanmin``
(``axis``, ``dtype``, ``keepdims``, ``ddof``), ``any``,
``all``, ``argmin``, ``argmax``, ``count_nonzero`` (the last three give
host integers, as gpuvec's do: DeviceArrays hold no integers; NumPy's
integers, as NumPy's functions do, where gpuvec's give Python ints); ``dot`` of
two vectors, ``vdot``, and ``tensordot`` where it contracts every axis;
``where`` of three arguments; ``clip``; ``round`` to whole numbers;
``linalg.norm`` with ``ord`` None, 2 (vectors) or ``"fro"`` (matrices);
``concatenate``, ``stack``, ``empty_like``, ``zeros_like``, ``ones_like``,
``full_like`` (on the prototype's device), ``broadcast_to``, ``reshape``
(order "C"), ``transpose``, ``squeeze``, ``expand_dims``, ``shape``,
``ndim``, ``size`` and ``may_share_memory``; and ``asarray`` and ``array``
with ``like=`` a DeviceArray (NEP 35), which copy host data to the current
device, as Dask asks for arrays of its chunks' type. A keyword given as
None (``out=None``) counts as not given; arguments that gpuvec's function
takes by keyword only (``dtype`` of ``np.sum``) must be given by keyword.

Anything else is NotImplemented, and NumPy raises its TypeError: another
ufunc method (``accumulate``, ``outer``, ``at``), a ufunc or function gpuvec
lacks, or a keyword it does not take (``where=``, ``initial=``, ``out=`` of
a reduction, ``order="F"``, ...). Nothing is copied to the host to let
NumPy compute it.

>>> np.add.accumulate(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
TypeError: operand type(s) all returned NotImplemented from __array_ufunc__(<ufunc 'add'>, ...
>>> np.sort(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
TypeError: no implementation found for 'numpy.sort' on types that implement __array_function__: ...
"""

from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from gpuvec import blas, creation, elementwise, manipulation, reductions, ufuncs
from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS
from gpuvec.device_array import NUMPY_FUNCTIONS, NUMPY_UFUNCS, DeviceArray
from gpuvec.manipulation import _axes

# The ufunc methods gpuvec implements besides a call: reductions, by the op
# table's ufunc column. Not those that leave NaN out (nanmax is fmax.reduce
# with a warning for slices of NaN alone, which fmax.reduce does not give).
_REDUCE = {
    row.ufunc: reductions.FUNCTIONS[row.name]
    for row in REDUCE_OPS.values()
    if row.ufunc is not None and row.public and not row.skips_nan
}


def _numpy_ufunc(numpy_name: str | None) -> np.ufunc | None:
    """NumPy's ufunc of the op table's numpy column, None where NumPy has none."""
    ufunc = getattr(np, numpy_name, None) if numpy_name else None
    return ufunc if isinstance(ufunc, np.ufunc) else None


def _numbers(inputs) -> tuple:
    """The inputs, with 0-d NumPy arrays as the NumPy scalars they hold.

    A NumPy scalar compared with a DeviceArray (``np.float32(1.5) < d``)
    reaches the ufunc as a 0-d array; it is a number, as on the right of
    the operator, not host data to refuse (its dtype stays, as NumPy's).
    """
    return tuple(x[()] if type(x) is np.ndarray and x.ndim == 0 else x for x in inputs)


def _call(function, bool_result: bool):
    """``ufunc(*inputs, out=..., dtype=...)`` as gpuvec's ``function``.

    NumPy hands ``out`` over as a tuple, one entry per output; ``dtype``
    of a comparison means its (bool) output's dtype in NumPy, and the
    computing dtype in gpuvec, so it is not passed on.
    """

    def call(*inputs, out=None, dtype=None, casting="same_kind", **rest):
        if rest or casting != "same_kind" or (bool_result and dtype is not None):
            return NotImplemented
        if isinstance(out, tuple):
            (out,) = out
        return function(*_numbers(inputs), out=out, dtype=dtype)

    return call


def _reduce(function):
    """``ufunc.reduce(array, axis=0, dtype=None, keepdims=False)`` as gpuvec's ``function``."""
    takes_dtype = "dtype" in inspect.signature(function).parameters

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, **rest):
        if isinstance(out, tuple):
            (out,) = out
        if rest or out is not None or (dtype is not None and not takes_dtype):
            return NotImplemented
        extra = {"dtype": dtype} if takes_dtype else {}
        return function(array, axis, keepdims=keepdims, **extra)

    return reduce


# A call of each NumPy ufunc that names a plain row of the op table.
for _row in ELEMENTWISE_OPS.values():
    _ufunc = _numpy_ufunc(_row.numpy)
    if _row.public and _ufunc is not None:
        NUMPY_UFUNCS[_ufunc, "__call__"] = _call(
            ufuncs.FUNCTIONS[_row.name], _row.result == "bool"
        )
NUMPY_UFUNCS.update({(getattr(np, n), "reduce"): _reduce(f) for n, f in _REDUCE.items()})


# -- NumPy's functions with a signature of their own ---------------------------------------


def _dot(a, b, out=None):
    """np.dot of two vectors; of matrices it is a matrix product, which gpuvec lacks."""
    if out is not None or getattr(a, "ndim", None) != 1 or getattr(b, "ndim", None) != 1:
        return NotImplemented
    return reductions.dot(a, b)


def _where(condition, x, y):
    """np.where(condition, x, y); np.where(condition) alone (nonzero) is not supported."""
    if getattr(condition, "dtype", np.bool_) != np.bool_:
        condition = condition != 0  # NumPy reads nonzero as true
    return elementwise.where(condition, x, y)


def _clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return elementwise.clip(a, a_min if min is None else min, a_max if max is None else max, out)


def _norm(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm's 2-norm of vectors and Frobenius norm of matrices (ord None, 2, "fro")."""
    matrix = isinstance(axis, tuple) or (axis is None and x.ndim == 2)
    if ord is not None and ord != ("fro" if matrix else 2):
        return NotImplemented
    return blas.norm(x, axis, keepdims=keepdims)


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """np.reshape: a view of C-contiguous data, else a copy (never with copy=False)."""
    if order != "C":
        return NotImplemented
    if copy or (copy is None and not a.is_c_contiguous):
        a = a.copy()
    elif not a.is_c_contiguous:
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return a.reshape(newshape if shape is None else shape)


def _transpose(a, axes=None):
    return a.transpose(axes)


def _new_like(make, prototype, fill, dtype, order, shape, device):
    """``make(shape, *fill, dtype)`` on the prototype's device, for NumPy's ``*_like``."""
    # The new array is C-contiguous: order "K" and "A" keep a C layout too.
    if order not in ("K", "A", "C") or device is not None:
        return NotImplemented
    with prototype.device:
        return make(prototype.shape if shape is None else shape, *fill, dtype or prototype.dtype)


def _like(make):
    def like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
        return _new_like(make, prototype, (), dtype, order, shape, device)

    return like


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like(creation.full, a, (fill_value,), dtype, order, shape, device)


def _round(a, decimals=0, out=None):
    """np.round to whole numbers (half to even), as the ufunc np.rint; other decimals are not."""
    if decimals != 0:
        return NotImplemented
    return ufuncs.FUNCTIONS["round"](a, out=out)


def _byte_range(a) -> tuple[int, int]:
    """The first and past-the-last byte that a device array's elements occupy."""
    low = high = a._address
    for n, stride in zip(a.shape, a.strides, strict=True):
        low, high = low + min(0, stride * (n - 1)), high + max(0, stride * (n - 1))
    return low, high + a.itemsize


def _may_share_memory(a, b, max_work=None):
    """np.may_share_memory, as NumPy answers it (overlapping bounds), without a copy.

    A host-backend DeviceArray is its NumPy array; device memory overlaps no
    host memory, and another device array where their bytes' bounds overlap.
    """
    a, b = (x._host if isinstance(x, DeviceArray) and x._host is not None else x for x in (a, b))
    on_device = [isinstance(x, DeviceArray) for x in (a, b)]
    if not any(on_device):
        return np.may_share_memory(a, b, max_work)
    if not all(on_device) or a._device != b._device or not (a.size and b.size):
        return False
    (a_low, a_high), (b_low, b_high) = _byte_range(a), _byte_range(b)
    return a_low < b_high and b_low < a_high


def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def _numpy_integer(function):
    """``function``, whose Python int result (an index or a count over every
    axis) comes back as NumPy's function gives it: a NumPy integer (np.intp)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        result = function(*args, **kwargs)
        return np.intp(result) if type(result) is int else result

    return call


def _tensordot(a, b, axes=2):
    """np.tensordot that contracts every axis of both arrays: the dot product of
    their elements, paired by ``axes``. Other contractions are matrix
    products, which gpuvec lacks."""
    if isinstance(axes, tuple | list):
        a_axes, b_axes = (tuple(x) if isinstance(x, tuple | list) else (x,) for x in axes)
    else:
        count = operator.index(axes)
        a_axes, b_axes = tuple(range(a.ndim - count, a.ndim)), tuple(range(count))
    if len(a_axes) != a.ndim or len(b_axes) != b.ndim or a.ndim != b.ndim:
        return NotImplemented
    a_axes, b_axes = _axes(a_axes, a.ndim), _axes(b_axes, b.ndim)
    if any(a.shape[i] != b.shape[j] for i, j in zip(a_axes, b_axes, strict=True)):
        raise ValueError("shape-mismatch for sum")
    # b with its axes in a's order: a's axis a_axes[k] meets b's axis b_axes[k].
    order = [0] * b.ndim
    for i, j in zip(a_axes, b_axes, strict=True):
        order[i] = j
    return reductions.dot(a, b.transpose(order))


def _asarray(a, dtype=None, order=None, *, device=None, copy=None):
    """np.asarray(a, like=d): ``a`` as a DeviceArray, host data copied to the
    current device (NumPy passes no prototype to put it next to)."""
    if order not in (None, "K", "A", "C") or device is not None:
        return NotImplemented
    if copy is False and not isinstance(a, DeviceArray):
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    result = creation.asarray(a, dtype)
    return result.copy() if copy and result is a else result


def _array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0):
    """np.array(object, like=d): a new DeviceArray (or ``object``, for copy=False),
    with ``ndmin`` dimensions at least."""
    result = _asarray(object, dtype, None if order == "K" else order, copy=copy)
    if result is NotImplemented:
        return result
    missing = operator.index(ndmin) - result.ndim
    return result[(None,) * missing] if missing > 0 else result


def _numpy_signature(function):
    """``function`` called with NumPy's arguments: NotImplemented where they do not bind.

    A keyword given as None (NumPy's default for ``out``, ``dtype``, ...) that
    ``function`` does not take counts as not given.
    """
    signature = inspect.signature(function)

    def call(*args, **kwargs):
        kwargs = {k: v for k, v in kwargs.items() if v is not None or k in signature.parameters}
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            return NotImplemented
        return function(*args, **kwargs)

    call.__wrapped__ = function
    return call


# NumPy's function of each public reduction row, by the table's numpy
# column; the int64 results (positions, counts) as NumPy's integers.
_REDUCTIONS = {
    getattr(np, row.numpy): (_numpy_integer if row.result == "int64" else lambda f: f)(
        reductions.FUNCTIONS[row.name]
    )
    for row in REDUCE_OPS.values()
    if row.public
}

NUMPY_FUNCTIONS.update(
    {
        numpy_function: _numpy_signature(function)
        for numpy_function, function in {
            **_REDUCTIONS,
            np.amin: _REDUCTIONS[np.min],
            np.amax: _REDUCTIONS[np.max],
            np.dot: _dot,
            np.tensordot: _tensordot,
            np.vdot: reductions.vdot,
            np.where: _where,
            np.clip: _clip,
            np.round: _round,
            np.linalg.norm: _norm,
            np.concatenate: manipulation.concatenate,
            np.stack: manipulation.stack,
            np.empty_like: _like(creation.empty),
            np.zeros_like: _like(creation.zeros),
            np.ones_like: _like(creation.ones),
            np.full_like: _full_like,
            np.broadcast_to: manipulation.broadcast_to,
            np.reshape: _reshape,
            np.transpose: _transpose,
            np.squeeze: manipulation.squeeze,
            np.expand_dims: manipulation.expand_dims,
            np.may_share_memory: _may_share_memory,
            np.shape: lambda a: a.shape,
            np.ndim: lambda a: a.ndim,
            np.size: _size,
            np.asarray: _asarray,
            np.array: _array,
        }.items()
    }
)
