"""Reductions over axes of NumPy input, in every layout, against NumPy."""

import numpy as np
import pytest
from conftest import random_array
from tolerances import INDEX_REDUCTIONS, assert_reduction_close

import gpuvec
from gpuvec._table import REDUCE_OPS

# The op table's public reductions of a number (any, all and count_nonzero
# are tests/test_truth_reductions.py's): a new row is tested without an edit.
NAMES = [row.name for row in REDUCE_OPS.values() if row.public and not row.own_dtype]
DTYPES = [np.float32, np.float64]
SHAPES = [(7,), (13, 5), (4, 6, 3)]
AXES = [0, 1, -1, (0, 1), None]
LAYOUTS = {
    "c": lambda a: a,
    "fortran": np.asfortranarray,
    "reversed": lambda a: a[(slice(None, None, -1),) * a.ndim],  # every stride negative
    "reversed-step": lambda a: a[::-1, ::2] if a.ndim > 1 else a[::-2],
}


def data(rng, name, shape, dtype):
    """Random data for ``name``: near 1 for prod, with a few NaN for the nan-ops."""
    x = random_array(rng, shape, np.float64)
    if name == "prod":
        x = 1 + x / 1000
    if REDUCE_OPS[name].skips_nan:
        x.reshape(-1)[::7] = np.nan  # 7 shares no factor with the lengths: no lane is all NaN
    return x.astype(dtype)


def numpy_error(name, x, axis, keepdims):
    """The exception type NumPy raises for this call, or None."""
    try:
        getattr(np, name)(x, axis=axis, keepdims=keepdims)
    except Exception as exc:  # any error NumPy raises, gpuvec must raise too
        return type(exc)
    return None


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis", AXES, ids=str)
def test_axis_reductions_of_numpy_input(backend, rng, name, dtype, shape, layout, axis):
    base = data(rng, name, shape, dtype)
    x = LAYOUTS[layout](base)
    if layout == "fortran" and x.ndim > 1:
        assert not x.flags.c_contiguous
    if layout.startswith("reversed"):
        assert min(x.strides) < 0
    copy = x.copy()
    for keepdims in (False, True):
        error = numpy_error(name, x, axis, keepdims)
        if error is not None:  # an axis past the end, or a tuple for argmin/argmax
            with pytest.raises(error):
                getattr(gpuvec, name)(x, axis=axis, keepdims=keepdims)
            continue
        result = getattr(gpuvec, name)(x, axis=axis, keepdims=keepdims)
        if axis is None and not keepdims:
            assert isinstance(result, int if name in INDEX_REDUCTIONS else float), type(result)
        else:
            assert isinstance(result, (np.ndarray, np.generic)), type(result)
            assert result.dtype == (np.int64 if name in INDEX_REDUCTIONS else dtype)
        assert_reduction_close(name, result, x, dtype, axis, keepdims)
    np.testing.assert_array_equal(x, copy)  # the input is untouched
