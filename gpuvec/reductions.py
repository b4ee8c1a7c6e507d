"""Reductions: sums, means, extremes and spreads, over all or some axes; dot; and
the truth values any, all and count_nonzero.

Every reduction accumulates in float64 in a fixed tree order, so a float32
input is reduced as accurately as a float64 one and the same input always
gives the same result. With ``axis=None`` the result is a Python number (a
NumPy bool for any and all); with an ``axis`` it is a NumPy array, as from
the NumPy function of the same name (a NumPy scalar where no dimension is
left). Bool input is counted as 0 and 1, as NumPy's sum of bools counts them.
"""

from __future__ import annotations

import warnings

import numpy as np

from gpuvec import _core
from gpuvec._dtypes import as_real_array, is_integer_dtype, scalar_arg
from gpuvec._table import ELEMENTWISE, REDUCE
from gpuvec.device_array import METHODS, DeviceArray

__all__ = [
    "all",
    "any",
    "argmax",
    "argmin",
    "count_nonzero",
    "dot",
    "max",
    "mean",
    "min",
    "nanmean",
    "nansum",
    "prod",
    "std",
    "sum",
    "var",
]

# NumPy's RuntimeWarnings for rows too short for a mean or a deviation.
_EMPTY_MEAN = "Mean of empty slice."
_FEW_DEGREES = "Degrees of freedom <= 0 for slice"


def sum(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    """Sum of the elements, over all axes or some, like :func:`numpy.sum`.

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
        The dtype to read the input in; the result is rounded to it. An
        integer dtype sums whole numbers, as NumPy's does: float input is
        rounded toward zero first, and the sum is accumulated and returned
        in float64, since DeviceArrays hold no integers (exact below 2**53,
        where NumPy's integers would wrap around beyond their range).
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
    -1.0
    """
    x, dtype = _whole_numbers(x, dtype, stream)
    return _core.reduce(REDUCE["sum"], x, None, axis, keepdims, dtype, threads_per_block, stream)


def _whole_numbers(x, dtype, stream):
    """``x`` and ``dtype`` for a sum or product with NumPy's integer ``dtype=``.

    NumPy casts each element to the integer dtype (rounding toward zero) and
    reduces in it. DeviceArrays hold no integers, so float input is rounded
    toward zero on its own device (:func:`gpuvec.trunc`), and the whole
    numbers are reduced in float64; bool and integer input are whole numbers
    already. Any other ``dtype`` is returned as it is.
    """
    if not is_integer_dtype(dtype):
        return x, dtype
    if not isinstance(x, DeviceArray):
        x = as_real_array(x, "x")
    if x.dtype.kind == "f":
        x = _core.elementwise(ELEMENTWISE["trunc"], (x,), ("x",), stream=stream)
    return x, np.dtype(np.float64)


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
    """

    return _core.reduce(REDUCE["dot"], x, y, None, False, dtype, threads_per_block, stream)


_REDUCE_DOC = """{summary}, like :func:`numpy.{name}`.

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

_VALUE_RETURNS = "float or numpy.ndarray"
_VALUE_DETAIL = "a Python float for ``axis=None``, else an array of the input's dtype"
_DDOF = """ddof : float, optional
    Delta degrees of freedom: the sum of squared deviations is divided by
    ``n - ddof`` (0 for the population variance, 1 for the sample one).
"""


def _doc(name, summary, details, returns, example_all, example_axis, **fields):
    defaults = {
        "axis_type": "int or tuple of ints",
        "axis_what": "axes",
        "extra": "",
        "rounded": "; the result is rounded to it",
        "returns_type": _VALUE_RETURNS,
        "second": "5.0",
        "integer_type": "",
        "integers": "",
    }
    return _REDUCE_DOC.format(
        name=name,
        summary=summary,
        details=details,
        returns=returns,
        example_all=example_all,
        example_axis=example_axis,
        **{**defaults, **fields},
    )


def mean(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["mean"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        warn_if_at_most=((0, _EMPTY_MEAN),),
    )


def min(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["min"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        empty_error="zero-size array to reduction operation minimum which has no identity",
    )


def max(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["max"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        empty_error="zero-size array to reduction operation maximum which has no identity",
    )


def argmin(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["argmin"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        index=True,
        empty_error="attempt to get argmin of an empty sequence",
    )


def argmax(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["argmax"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        index=True,
        empty_error="attempt to get argmax of an empty sequence",
    )


def prod(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    x, dtype = _whole_numbers(x, dtype, stream)
    return _core.reduce(REDUCE["prod"], x, None, axis, keepdims, dtype, threads_per_block, stream)


# The dtype= of the sums and products, which take integer dtypes too.
_INTEGERS = {
    "integer_type": " or an integer dtype",
    "integers": (
        " An integer dtype\n    reduces whole numbers, in float64 (see :func:`gpuvec.sum`)."
    ),
}


def var(x, axis=None, *, ddof=0, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    d = scalar_arg(ddof, "ddof")
    return _core.reduce(
        REDUCE["var"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        ddof=d,
        warn_if_at_most=((d, _FEW_DEGREES),),
    )


def std(x, axis=None, *, ddof=0, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    d = scalar_arg(ddof, "ddof")
    return _core.reduce(
        REDUCE["std"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        ddof=d,
        warn_if_at_most=((d, _FEW_DEGREES),),
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
    d = scalar_arg(ddof, "ddof")
    return _core.reduce(
        REDUCE["mean_std" if root else "mean_var"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
        ddof=d,
        warn_if_at_most=((0, _EMPTY_MEAN), (d, _FEW_DEGREES)),
    )


def nansum(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    x, dtype = _whole_numbers(x, dtype, stream)
    return _core.reduce(
        REDUCE["nansum"], x, None, axis, keepdims, dtype, threads_per_block, stream
    )


def nanmean(x, axis=None, *, dtype=None, keepdims=False, threads_per_block=None, stream=None):
    result = _core.reduce(
        REDUCE["nanmean"],
        x,
        None,
        axis,
        keepdims,
        dtype,
        threads_per_block,
        stream,
    )
    # A row with no number gives NaN, as 0 / 0; NumPy warns about it. Other
    # NaN come from inf - inf, so look at the rows only when there is a NaN.
    # (Not for device data: looking would copy it to the host.)
    if not isinstance(result, DeviceArray) and np.isnan(result).any():
        counts = np.sum(~np.isnan(np.asarray(x, dtype=float)), axis=axis)
        if np.any(counts == 0):
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    return result


mean.__doc__ = _doc(
    "mean",
    "Arithmetic mean of the elements, over all axes or some",
    "The sum is accumulated in float64 (see :func:`gpuvec.sum`) and divided "
    "by the count. The mean of no elements is NaN, with a RuntimeWarning.",
    f"The mean: {_VALUE_DETAIL}",
    "3.5",
    "array([3., 4.])",
)
min.__doc__ = _doc(
    "min",
    "The smallest element, over all axes or some",
    "NaN if any element is NaN. A reduction over no elements is a ValueError.",
    f"The minimum: {_VALUE_DETAIL}",
    "1.0",
    "array([1., 2.])",
    rounded="",
)
max.__doc__ = _doc(
    "max",
    "The largest element, over all axes or some",
    "NaN if any element is NaN. A reduction over no elements is a ValueError.",
    f"The maximum: {_VALUE_DETAIL}",
    "6.0",
    "array([5., 6.])",
    rounded="",
)
argmin.__doc__ = _doc(
    "argmin",
    "Index of the smallest element",
    "The first occurrence wins, and a NaN counts as smaller than any number (the "
    "first NaN's index is returned), as in NumPy. With ``axis=None`` the index is "
    "into the flattened (C-order) array. A reduction over no elements is a ValueError.",
    "The index: a Python int for ``axis=None``, else an int64 array",
    "0",
    "array([0, 1])",
    axis_type="int",
    axis_what="axis",
    rounded="",
    returns_type="int or numpy.ndarray",
)
argmax.__doc__ = _doc(
    "argmax",
    "Index of the largest element",
    "The first occurrence wins, and a NaN counts as larger than any number (the "
    "first NaN's index is returned), as in NumPy. With ``axis=None`` the index is "
    "into the flattened (C-order) array. A reduction over no elements is a ValueError.",
    "The index: a Python int for ``axis=None``, else an int64 array",
    "5",
    "array([1, 2])",
    axis_type="int",
    axis_what="axis",
    rounded="",
    returns_type="int or numpy.ndarray",
)
prod.__doc__ = _doc(
    "prod",
    "Product of the elements, over all axes or some",
    "Accumulated in float64; the product of no elements is 1.0.",
    f"The product: {_VALUE_DETAIL}",
    "720.0",
    "array([15., 48.])",
    **_INTEGERS,
)
var.__doc__ = _doc(
    "var",
    "Variance of the elements, over all axes or some",
    "Computed in one pass over the data: runs of elements keep their count, mean "
    "and sum of squared deviations in float64 (the mean in two doubles), and runs "
    "are combined with Chan's formula, so data far from zero (say 1e8 plus noise) "
    "keeps its digits, as in NumPy's two passes. Where ``n - ddof <= 0`` the "
    "result is NaN or inf, with a RuntimeWarning, as in NumPy.",
    f"The variance: {_VALUE_DETAIL}",
    "2.9166666666666665",
    "array([2.66666667, 2.66666667])",
    extra=_DDOF,
)
std.__doc__ = _doc(
    "std",
    "Standard deviation of the elements, over all axes or some",
    "The square root of :func:`gpuvec.var`, computed the same way.",
    f"The standard deviation: {_VALUE_DETAIL}",
    "1.707825127659933",
    "array([1.63299316, 1.63299316])",
    extra=_DDOF,
)
nansum.__doc__ = _doc(
    "nansum",
    "Sum of the elements that are not NaN, over all axes or some",
    "NaN counts as zero, so a slice of NaN alone sums to 0.0.",
    f"The sum: {_VALUE_DETAIL}",
    "16.0",
    "array([ 4., 12.])",
    second="np.nan",
    **_INTEGERS,
)
nanmean.__doc__ = _doc(
    "nanmean",
    "Mean of the elements that are not NaN, over all axes or some",
    "A slice of NaN alone gives NaN, with a RuntimeWarning, as in NumPy.",
    f"The mean: {_VALUE_DETAIL}",
    "3.2",
    "array([2., 4.])",
    second="np.nan",
)


def any(x, axis=None, *, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["any"], x, None, axis, keepdims, None, threads_per_block, stream, own_dtype=True
    )


def all(x, axis=None, *, keepdims=False, threads_per_block=None, stream=None):
    return _core.reduce(
        REDUCE["all"], x, None, axis, keepdims, None, threads_per_block, stream, own_dtype=True
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

any.__doc__ = _TRUTH_DOC.format(
    name="any",
    summary="Whether any element is nonzero",
    empty="False",
    example_all="True",
    example_axis="array([ True, False])",
    example_bool="array([False,  True, False])",
)
all.__doc__ = _TRUTH_DOC.format(
    name="all",
    summary="Whether every element is nonzero",
    empty="True",
    example_all="False",
    example_axis="array([False, False])",
    example_bool="array([False, False, False])",
)


def count_nonzero(x, axis=None, *, keepdims=False, threads_per_block=None, stream=None):
    """The number of nonzero elements, over all axes or some, like :func:`numpy.count_nonzero`.

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
    return _core.reduce(
        REDUCE["count_nonzero"],
        x,
        None,
        axis,
        keepdims,
        None,
        threads_per_block,
        stream,
        own_dtype=True,
    )


# The DeviceArray methods (d.sum(), d.mean(axis=0), ...) are these functions.
METHODS.update(
    sum=sum,
    mean=mean,
    max=max,
    min=min,
    prod=prod,
    argmax=argmax,
    argmin=argmin,
    var=var,
    std=std,
    dot=dot,
    any=any,
    all=all,
)
