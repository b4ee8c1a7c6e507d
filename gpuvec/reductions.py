"""Reductions: sums, means, extremes and spreads, over all or some axes; dot; and
the truth values any, all and count_nonzero.

Every reduction accumulates in float64 in a fixed tree order, so a float32
input is reduced as accurately as a float64 one and the same input always
gives the same result. With ``axis=None`` the result is a Python number (a
NumPy bool for any and all); with an ``axis`` it is a NumPy array, as from
the NumPy function of the same name (a NumPy scalar where no dimension is
left). Bool input is counted as 0 and 1, as NumPy's sum of bools counts them.

The public functions are made from the op table's reduction rows
(:mod:`gpuvec._table`): each row whose NumPy name is its own becomes a
function of NumPy's signature, whose behaviour (``ddof``, integer
``dtype=``, NaN left out, the errors and warnings of short slices) follows
the row's traits column. ``dot`` has two inputs and a signature of its own.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from gpuvec import _complex, _core
from gpuvec._dtypes import scalar_arg
from gpuvec._table import ELEMENTWISE, REDUCE, REDUCE_OPS, ReduceOp
from gpuvec.device_array import METHODS, DeviceArray

_SUM_DOC = """The sum of the elements, over all axes or some, like :func:`numpy.sum`.

Elements are accumulated in float64 in a fixed tree order (warp-shuffle
trees on the GPU, blocks added pairwise on the host), so the same input
always gives the same result, and a float32 sum is as accurate as a
float64 one: its error is float64's (at most about 1e-16 times the sum
of ``|x|`` per element added) plus one final rounding to float32 (6e-8
relative). NumPy sums float32 in float32: pairwise along a contiguous
axis, whose error bound grows like ``log2(n) * 6e-8`` times the sum of
``|x|``, and as a running sum across rows (``axis=0`` of a C-ordered
matrix), whose bound grows like ``n * 6e-8``. So the two can differ in
the last digits of a float32 result; gpuvec's is the closer one to the
exact sum.

Parameters
----------
x : array_like
    Real input of any shape and strides.
axis : None or int or tuple of ints, optional
    The axes to sum over (negative ones count from the end); None sums
    everything.
dtype : {numpy.float32, numpy.float64} or an integer dtype, optional
    The dtype to read the input in and sum in; the result has it. An
    integer dtype sums whole numbers exactly, wrapping around as NumPy's
    does: each element is cast to it first (float input toward zero).
    Without it, integers sum in int64 (uint64 for unsigned ones) and bools
    are counted in int64, as in NumPy.
keepdims : bool, optional
    Keep the summed axes, with length 1, so the result broadcasts
    against ``x``.
threads_per_block : int, optional
    CUDA block size: a multiple of 32, at most 1024.
stream : gpuvec.Stream, optional
    The stream to queue the work on (default: the current stream).

Returns
-------
float, numpy.ndarray or DeviceArray
    The sum (0.0 for an empty input; NaN if any element is NaN): a
    Python float for ``axis=None``, else an array of the input's dtype.
    For a DeviceArray input with ``axis=None``, a 0-d DeviceArray that
    stays on the device until ``float()`` asks for it.

Examples
--------
>>> import numpy as np, gpuvec
>>> gpuvec.sum(np.arange(53735, dtype=np.float64))
1443698245.0
>>> gpuvec.sum(np.arange(6.0).reshape(2, 3), axis=0)
array([3., 5., 7.])
>>> gpuvec.sum(np.arange(6.0).reshape(2, 3), axis=-1, keepdims=True)
array([[ 3.],
       [12.]])
>>> gpuvec.sum(np.array([0.5, 1.5, -2.5]), dtype=np.int64)  # 0 + 1 - 2
-1
"""

_COUNT_NONZERO_DOC = """The number of nonzero elements, like :func:`numpy.count_nonzero`.

An element counts when it is not zero, so NaN counts, as in NumPy. Float
input is read in its own dtype, never rounded to a lower precision (which
could turn a tiny number into 0), and bool input as it is. Counts are
exact int64 sums.

Parameters
----------
x : array_like
    Real or bool input of any shape and strides.
axis : None or int or tuple of ints, optional
    The axes to count over (negative ones count from the end); None
    counts everything.
keepdims : bool, optional
    Keep the counted axes, with length 1, so that the result broadcasts
    against ``x``.
threads_per_block, stream
    As for :func:`gpuvec.sum`.

Returns
-------
int or numpy.ndarray
    A Python int for ``axis=None``, else an int64 array; for a
    DeviceArray input too (as from :func:`gpuvec.argmax`), since
    DeviceArrays hold no integers.

Examples
--------
>>> import numpy as np, gpuvec
>>> x = np.array([[0.0, 2.0, np.nan], [0.0, 0.0, 5.0]])
>>> gpuvec.count_nonzero(x)
3
>>> gpuvec.count_nonzero(x, axis=0)
array([0, 1, 2])
>>> gpuvec.count_nonzero(x > 1, axis=1, keepdims=True)
array([[1],
       [1]])
"""


def _nan_to_zero(x, stream):
    """``x`` with NaN as 0, as :func:`numpy.nansum` counts it before an integer
    ``dtype=`` casts each element (a NaN would cast to garbage)."""
    if not isinstance(x, DeviceArray):
        x = np.asarray(x)
    if x.dtype.kind != "f":
        return x
    nan = _core.elementwise(ELEMENTWISE["isnan"], (x,), ("x",), stream=stream)
    return _core.elementwise(
        ELEMENTWISE["where"], (nan, 0.0, x), ("condition", "x", "y"), stream=stream
    )


def dot(x, y, *, dtype=None, threads_per_block=None, stream=None):
    """Dot product: the sum of ``x * y`` over all elements.

    Like :func:`numpy.vdot` for real input: ``x`` and ``y`` must have the
    same shape, and N-d inputs are treated as flat vectors.

    Parameters
    ----------
    x, y : array_like
        Real inputs of one shape, with any strides.
    dtype, threads_per_block, stream
        As for :func:`gpuvec.sum`.

    Returns
    -------
    float or DeviceArray
        The dot product (0.0 for empty inputs); a 0-d DeviceArray for device inputs.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.dot(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
    32.0

    Of complex input it is the sum of the products, unconjugated (NumPy's
    ``dot`` of two vectors; :func:`vdot` conjugates ``x``):

    >>> gpuvec.dot(np.array([1j, 2.0]), np.array([1j, 1 + 1j]))
    np.complex128(1+2j)
    """
    if dtype is None and (_complex.is_complex(x) or _complex.is_complex(y)):
        return _complex_dot(x, y, threads_per_block, stream)
    return _core.reduce(REDUCE["dot"], x, y, None, False, dtype, threads_per_block, stream)


def vdot(x, y, *, dtype=None, threads_per_block=None, stream=None):
    """The sum of ``conj(x) * y`` over all elements, like :func:`numpy.vdot`
    (:func:`dot` for real input).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.vdot(np.array([1j, 2.0]), np.array([1j, 1 + 1j]))
    np.complex128(3+2j)
    """
    if dtype is None and _complex.is_complex(x):
        x = _complex.conj(x)
    return dot(x, y, dtype=dtype, threads_per_block=threads_per_block, stream=stream)


def _complex_dot(x, y, threads_per_block, stream):
    """The sum of x * y of complex data: NumPy's products, summed as sum sums."""
    shapes = (np.shape(x), np.shape(y))
    if shapes[0] != shapes[1]:
        raise ValueError(f"x and y must have the same shape, got {shapes[0]} and {shapes[1]}")
    products = _core.elementwise(
        ELEMENTWISE["multiply"], (x, y), ("x", "y"), None, None, threads_per_block, stream
    )
    return FUNCTIONS["sum"](products, threads_per_block=threads_per_block, stream=stream)


def _complex_reduction(function):
    """sum or mean of complex data, reduced part by part (NumPy's complex sum
    adds the real and the imaginary parts apart too): the parts are float
    views, reduced as floats are, and the result is a complex array (or
    number) of the two."""

    # wraps: the function's name, docs and signature (its __wrapped__), which
    # NumPy's protocol binds a call's arguments against.
    @functools.wraps(function)
    def reduction(x, axis=None, *, dtype=None, keepdims=False, **options):
        if dtype is not None or not _complex.is_complex(x):
            return function(x, axis, dtype=dtype, keepdims=keepdims, **options)
        parts = [function(part, axis, keepdims=keepdims, **options)
                 for part in _core.complex_parts(x)]  # fmt: skip
        held = getattr(x, "dtype", None) or np.asarray(x).dtype
        complex_dtype = np.dtype(np.complex64 if held.itemsize <= 8 else np.complex128)
        if isinstance(parts[0], DeviceArray):
            result = _core.new_array(
                parts[0].shape, complex_dtype, parts[0]._stream, device=parts[0]._device
            )
        elif isinstance(parts[0], np.ndarray):
            result = np.empty(parts[0].shape, complex_dtype)
        else:  # numbers (of NumPy data reduced whole): a NumPy complex scalar
            return complex_dtype.type(complex(parts[0], parts[1]))
        for target, part in zip(_core.complex_parts(result), parts, strict=True):
            _core.copy_into(target, part)
        return result

    return reduction


_REDUCE_DOC = """{summary}, over all axes or some, like :func:`numpy.{name}`.

{details}

Parameters
----------
x : array_like
    Real input of any shape and strides.
axis : None or {axis_type}, optional
    The {axis_what} to reduce over (negative ones count from the end); None
    reduces everything.
{extra}dtype : {{numpy.float32, numpy.float64}}{integer_type}, optional
    The dtype to read the input in{rounded}.{integers}
keepdims : bool, optional
    Keep the reduced axes, with length 1, so that the result broadcasts
    against ``x``.
threads_per_block, stream
    As for :func:`gpuvec.sum`.

Returns
-------
{returns_type}
    {returns}.

Examples
--------
>>> import numpy as np, gpuvec
>>> x = np.array([[1.0, {second}, 3.0], [4.0, 2.0, 6.0]])
>>> gpuvec.{name}(x)
{example_all}
>>> gpuvec.{name}(x, axis=1)
{example_axis}
"""

_DDOF = """ddof : float, optional
    Delta degrees of freedom: the sum of squared deviations is divided by
    ``n - ddof`` (0 for the population variance, 1 for the sample one).
"""

# The dtype= of the sums and products, which take integer dtypes too.
_INTEGERS = {
    "integer_type": " or an integer dtype",
    "integers": (" An integer dtype\n    reduces whole numbers exactly (see :func:`gpuvec.sum`)."),
}

# How some rows compute, for their docstrings (documentation only: a row
# without an entry gets the sentences its traits call for).
_DETAILS = {
    "mean": "The sum is accumulated in float64 (see :func:`gpuvec.sum`) and divided by the count.",
    "argmin": "The first occurrence wins, and a NaN counts as smaller than any number (the "
    "first NaN's index is returned), as in NumPy. With ``axis=None`` the index is "
    "into the flattened (C-order) array.",
    "argmax": "The first occurrence wins, and a NaN counts as larger than any number (the "
    "first NaN's index is returned), as in NumPy. With ``axis=None`` the index is "
    "into the flattened (C-order) array.",
    "min": "NaN if any element is NaN.",
    "max": "NaN if any element is NaN.",
    "prod": "Accumulated in float64; the product of no elements is 1.0.",
    "var": "Computed in one pass over the data: runs of elements keep their count, mean "
    "and sum of squared deviations in float64 (the mean in two doubles), and runs "
    "are combined with Chan's formula, so data far from zero (say 1e8 plus noise) "
    "keeps its digits, as in NumPy's two passes.",
    "std": "The square root of :func:`gpuvec.var`, computed the same way.",
    "nansum": "NaN counts as zero, so a slice of NaN alone sums to 0.0.",
}


def _details(row: ReduceOp) -> str:
    """The docstring's paragraph on how ``row`` computes and what its edge cases give."""
    sentences = [_DETAILS.get(row.name, "")]
    if row.skips_nan and not row.whole:
        sentences.append("NaN elements are left out.")
    if row.warning is not None:
        if row.skips_nan:
            sentences.append("A slice of NaN alone gives NaN, with a RuntimeWarning, as in NumPy.")
        elif row.ddof:
            sentences.append(
                "Where ``n - ddof <= 0`` the result is NaN or inf, with a RuntimeWarning, "
                "as in NumPy."
            )
        else:
            sentences.append(
                "A slice of no elements gives NaN, with a RuntimeWarning, as in NumPy."
            )
    if row.no_empty:
        sentences.append("A reduction over no elements is a ValueError.")
    return " ".join(s for s in sentences if s)


def _example(row: ReduceOp, x, axis):
    """NumPy's result of ``row``'s function on ``x``, written as gpuvec returns it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = getattr(np, row.name)(x, axis=axis)
    if axis is None:
        return str(value) if row.result == "bool" else repr(value.item())
    return repr(np.asarray(value))


def _doc(row: ReduceOp) -> str:
    if row.result == "bool":
        return _truth_doc(row)
    second = "np.nan" if row.skips_nan else "5.0"
    x = np.array([[1.0, np.nan if row.skips_nan else 5.0, 3.0], [4.0, 2.0, 6.0]])
    fields = {
        "axis_type": "int" if row.position else "int or tuple of ints",
        "axis_what": "axis" if row.position else "axes",
        "extra": _DDOF if row.ddof else "",
        "rounded": "" if row.no_empty else "; the result is rounded to it",
        "integer_type": "",
        "integers": "",
    }
    if row.whole:
        fields.update(_INTEGERS)
    if row.position:
        returns_type = "int or numpy.ndarray"
        returns = "The index: a Python int for ``axis=None``, else an int64 array"
    else:
        returns_type = "float or numpy.ndarray"
        returns = (
            "The result: a Python float for ``axis=None``, else an array of the input's dtype"
        )
    return _REDUCE_DOC.format(
        name=row.name,
        summary=row.summary,
        details=_details(row),
        returns_type=returns_type,
        returns=returns,
        second=second,
        example_all=_example(row, x, None),
        example_axis=_example(row, x, 1),
        **fields,
    )


_TRUTH_DOC = """{summary}, over all axes or some, like :func:`numpy.{name}`.

An element is true when it is not zero, so NaN is true, as in NumPy. Float
input is read in its own dtype, never rounded to a lower precision (which
could turn a tiny number into 0), and bool input as it is. The {name} of no
elements is {empty}.

Parameters
----------
x : array_like
    Real or bool input of any shape and strides.
axis : None or int or tuple of ints, optional
    The axes to reduce over (negative ones count from the end); None
    reduces everything.
keepdims : bool, optional
    Keep the reduced axes, with length 1, so that the result broadcasts
    against ``x``.
threads_per_block, stream
    As for :func:`gpuvec.sum`.

Returns
-------
numpy.bool, numpy.ndarray or DeviceArray
    A NumPy bool for ``axis=None``, else a bool array. For a DeviceArray
    input, a bool DeviceArray (0-d for ``axis=None``).

Examples
--------
>>> import numpy as np, gpuvec
>>> x = np.array([[0.0, 2.0, np.nan], [0.0, 0.0, 0.0]])
>>> print(gpuvec.{name}(x))
{example_all}
>>> gpuvec.{name}(x, axis=1)
{example_axis}
>>> gpuvec.{name}(x > 1, axis=0)
{example_bool}
"""


def _truth_doc(row: ReduceOp) -> str:
    x = np.array([[0.0, 2.0, np.nan], [0.0, 0.0, 0.0]])
    empty = getattr(np, row.name)(np.zeros(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        by_column = repr(getattr(np, row.name)(x > 1, axis=0))
    return _TRUTH_DOC.format(
        name=row.name,
        summary=row.summary,
        empty=str(bool(empty)),
        example_all=str(getattr(np, row.name)(x)),
        example_axis=repr(getattr(np, row.name)(x, axis=1)),
        example_bool=by_column,
    )


def _mean_and_deviation(
    x,
    axis=None,
    *,
    ddof=0,
    root=True,
    keepdims=False,
    dtype=None,
    threads_per_block=None,
    stream=None,
):
    """The mean and the standard deviation (or variance) of x, from one pass over it.

    What ``(gpuvec.mean(x, axis, ...), gpuvec.std(x, axis, ddof=ddof, ...))``
    returns (``gpuvec.var`` where ``root`` is False), of the same kinds,
    dtypes and shapes and with the same warnings, from one reduction that
    reads ``x`` once: the op table's ``mean_std`` (``mean_var``) row, whose
    policy keeps :func:`gpuvec.var`'s state per run (count, mean in two
    doubles, sum of squared deviations) and writes each row's mean and
    deviation. The deviation is :func:`gpuvec.std`'s (the same bits on the
    host backend; on the GPU the larger state may change the combination
    tree, and with it the last bits). The mean is that state's: runs' sums
    of differences over their counts, combined by Chan's formula with the
    mean in two doubles, as accurate as :func:`gpuvec.mean`'s sum over the
    count (the error of a float64 sum) but not always the same bits. Where
    the data has inf or NaN the mean is NumPy's (+-inf or NaN). Fused functions
    (:func:`gpuvec.fuse`) run a ``mean`` and a ``std`` or ``var`` of one
    value over the same axes as this one step.

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides.
    axis : None or int or tuple of ints, optional
        The axes to reduce over; None reduces everything.
    ddof : float, optional
        Delta degrees of freedom of the deviation, as for :func:`gpuvec.std`.
    root : bool, optional
        True for the standard deviation, False for the variance.
    keepdims, dtype, threads_per_block, stream
        As for :func:`gpuvec.mean`.

    Returns
    -------
    tuple
        ``(mean, deviation)``, each as :func:`gpuvec.mean` returns it.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    >>> _mean_and_deviation(x, axis=1, root=False)
    (array([3., 4.]), array([2.66666667, 2.66666667]))
    >>> _mean_and_deviation(x)
    (3.5, 1.707825127659933)
    """
    row = REDUCE_OPS["mean_std" if root else "mean_var"]
    d = scalar_arg(ddof, "ddof")
    return _core.reduce(
        row.code,
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        ddof=d,
        warn_if_at_most=((0, REDUCE_OPS["mean"].warning), (d, row.warning)),
    )


def _warn_nan_slices(row: ReduceOp, x, axis, result) -> None:
    """NumPy's RuntimeWarning where a NaN-skipping reduction met a slice of NaN alone.

    Such a slice gives NaN; other NaN come from inf - inf, so the slices are
    counted only when there is a NaN. (Not for device data: counting would
    copy it to the host.)
    """
    if isinstance(result, DeviceArray) or not np.isnan(result).any():
        return
    counts = np.sum(~np.isnan(np.asarray(x, dtype=float)), axis=axis)
    if np.any(counts == 0):
        warnings.warn(row.warning, RuntimeWarning, stacklevel=4)  # the caller of gpuvec.<name>


def _options(row: ReduceOp, ddof) -> dict:
    """The keyword arguments of ``_core.reduce`` that ``row``'s traits call for."""
    d = scalar_arg(ddof, "ddof") if row.ddof else 0.0
    counted = row.warning is not None and not row.skips_nan  # skips_nan: _warn_nan_slices
    return {
        "ddof": d,
        "index": row.position,
        "own_dtype": row.own_dtype,
        "empty_error": row.empty_error,
        "warn_if_at_most": ((d, row.warning),) if counted else (),
    }


def _make(row: ReduceOp):
    """The public function of reduction row ``row``, with NumPy's signature.

    ``_core.reduce`` is called from the function itself, so that its
    warnings point at the caller's line.
    """
    code = row.code
    nan_warning = row.skips_nan and row.warning is not None

    def finish(x, axis, result):
        if nan_warning:
            _warn_nan_slices(row, x, axis, result)
        return result

    if row.ddof:

        def function(
            x,
            axis=None,
            *,
            ddof=0,
            dtype=None,
            keepdims=False,
            threads_per_block=None,
            stream=None,
        ):
            options = _options(row, ddof)
            return _core.reduce(
                code, x, None, axis, keepdims, dtype, threads_per_block, stream, **options
            )

    elif row.own_dtype:

        def function(x, axis=None, *, keepdims=False, threads_per_block=None, stream=None):
            options = _options(row, 0)
            return _core.reduce(
                code, x, None, axis, keepdims, None, threads_per_block, stream, **options
            )

    else:

        def function(
            x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None
        ):
            if row.skips_nan and dtype is not None and np.dtype(dtype).kind in "iu":
                x = _nan_to_zero(x, stream)
            options = _options(row, 0)
            result = _core.reduce(
                code, x, None, axis, keepdims, dtype, threads_per_block, stream, **options
            )
            return finish(x, axis, result)

    function.__name__ = function.__qualname__ = row.name
    function.__module__ = __name__
    function.__doc__ = _doc(row)
    return function


# The public reductions, one per row of the table whose NumPy name is its own.
FUNCTIONS = {row.name: _make(row) for row in REDUCE_OPS.values() if row.public}
FUNCTIONS["sum"].__doc__ = _SUM_DOC
FUNCTIONS["count_nonzero"].__doc__ = _COUNT_NONZERO_DOC
FUNCTIONS.update({name: _complex_reduction(FUNCTIONS[name]) for name in ("sum", "mean")})
globals().update(FUNCTIONS)

__all__ = sorted([*FUNCTIONS, "dot", "vdot"])


# The DeviceArray methods (d.sum(), d.mean(axis=0), ...) are these functions:
# those that NumPy's arrays have as methods too, and dot.
METHODS.update({name: f for name, f in FUNCTIONS.items() if hasattr(np.ndarray, name)})
METHODS.update(dot=dot)
