"""Fuzz test: random sequences of gpuvec calls, each checked against NumPy.

A Hypothesis state machine keeps arrays as pairs: gpuvec's value (a NumPy
array on the host side, a DeviceArray on the device side) and its NumPy
mirror, which holds what gpuvec's value must hold. Each rule calls gpuvec on
the values and NumPy on the mirrors, and compares the results (shape, dtype,
values, NaN positions) or the exception classes. Views share memory in both
worlds the same way, so an op writing into a view changes the arrays it
aliases on both sides, and an invariant checks after every step that every
value still equals its mirror: a write that went astray, or an out= that
overlaps an input and was read after it was written, shows up there.

The reference is NumPy after gpuvec's documented dtype policy
(docs/numpy-differences.md, docs/dtypes.rst): an op computes in the dtype of
NumPy's own loop for its operands (``ufunc.resolve_dtypes``, Python numbers
weak), except that a loop of a kind the op has no kernel for computes in the
float NumPy would promote to; a float16 loop computes in float32 and its
result is rounded to float16, as NumPy's float16 loops compute. Inputs are
cast to the dtype computed in, then NumPy computes (and the result is
rounded to float16 where that is NumPy's result dtype). Integer and bool results
(which wrap as NumPy's) and correctly rounded ops must give NumPy's bits; the
math library functions must be within the ulp budgets of tolerances.py.
Reductions of integers sum in int64 or uint64 and choose (max, argmin) in
their own dtype, exactly as NumPy; means, variances and reductions of floats,
which gpuvec accumulates in float64 and rounds once, must be within the
error of a float64 accumulation.

Bool arrays live on both sides. Comparisons, logical ops, isnan and its
kin, ``~ & | ^``, any/all/count_nonzero and boolean masks (``d[mask]``,
``d[mask] = v``) must give NumPy's bools, counts and elements exactly.

HYPOTHESIS_PROFILE=gpu runs more and longer sequences (see conftest.py). A
failure prints the steps that reproduce it and a @reproduce_failure blob.
"""

from __future__ import annotations

import math
import operator
import os
import warnings
from contextlib import contextmanager

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)
from tolerances import ULPS, assert_ulp_close

import gpuvec as gv
from gpuvec import DeviceArray
from gpuvec._table import ELEMENTWISE_OPS

# -- how long a run is ----------------------------------------------------------------------------

# "ci" (the default) keeps the run to a few seconds on a small machine; "gpu"
# runs many more and longer sequences. Both keep the profile's other settings
# (deadline=None: the first call of a kernel may compile it).
RUNS = {
    "ci": {"max_examples": 12, "stateful_step_count": 30},
    "gpu": {"max_examples": 200, "stateful_step_count": 80},
}
RUN_SETTINGS = settings(
    **RUNS.get(os.environ.get("HYPOTHESIS_PROFILE", "ci"), RUNS["ci"]),
    print_blob=True,  # the @reproduce_failure blob of a failing sequence
    # Arrays of a thousand elements are drawn on purpose, and the filtered
    # bundles (C-contiguous arrays, arrays of two rows or more) may be empty.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

# -- the ops and their NumPy twins ----------------------------------------------------------------


def np_sigmoid(x, out=None):
    """NumPy's 1 / (1 + exp(-x)): NumPy's checks of out= for gpuvec.sigmoid."""
    return np.divide(1.0, 1.0 + np.exp(-np.asarray(x)), out=out)


def sigmoid64(x):
    """The sigmoid in float64 without overflow: the reference of gpuvec.sigmoid."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


UNARY = {
    "negative": np.negative,
    "abs": np.abs,
    "sqrt": np.sqrt,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,  # halves to even, as gpuvec's round and numpy.round
    "sign": np.sign,
    "trunc": np.trunc,
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
    "sigmoid": np_sigmoid,
}
BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "power": np.power,
    "hypot": np.hypot,
    "atan2": np.arctan2,
}
# Truth-value ops: bool results, from the operands compared in the policy's
# dtype (in bool when every operand is a bool, as NumPy compares bools).
TRUTH_UNARY = {
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "logical_not": np.logical_not,
}
TRUTH_BINARY = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
}
TRUTH = {*TRUTH_UNARY, *TRUTH_BINARY}
UNARY |= TRUTH_UNARY
BINARY |= TRUTH_BINARY
NUMPY = {**UNARY, **BINARY}
# Correctly rounded (or a choice of elements, or a truth value): gpuvec must
# give NumPy's bits, the sign of zero included.
EXACT = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "where"}
EXACT |= {"negative", "abs", "sqrt", "floor", "ceil", "round", "sign", "trunc", *TRUTH}
# The float64 references of the others, which must be within ULPS[name].
REFERENCE64 = {**NUMPY, "sigmoid": sigmoid64}

# The op table's names of the ops this test names as NumPy does.
ALIASES = {"abs": "absolute", "atan2": "arctan2"}

# The operators of DeviceArrays, the ops they are, and the calls.
OPERATORS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "**": "power"}
OPERATORS |= {"==": "equal", "!=": "not_equal", "<": "less", "<=": "less_equal"}
OPERATORS |= {">": "greater", ">=": "greater_equal"}
CALL = {"+": operator.add, "-": operator.sub, "*": operator.mul}
CALL |= {"/": operator.truediv, "**": operator.pow}
CALL |= {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le}
CALL |= {">": operator.gt, ">=": operator.ge}
# The logical operators: NumPy's bitwise ops, which on bools are the logic and
# which refuse floats; gpuvec takes bool operands only (a TypeError for floats,
# as NumPy's).
LOGICAL_OPERATORS = {"&": operator.and_, "|": operator.or_, "^": operator.xor}
LOGICAL_IN_PLACE = {"&": operator.iand, "|": operator.ior, "^": operator.ixor}
IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul}
IN_PLACE |= {"/": operator.itruediv, "**": operator.ipow}

REDUCTIONS = ["sum", "mean", "max", "min", "prod", "var", "std", "argmax", "argmin"]
INDEX_REDUCTIONS = {"argmax", "argmin"}
# Read in the input's own dtype; bool results (any, all) or int64 counts.
TRUTH_REDUCTIONS = ["any", "all", "count_nonzero"]
# NumPy's warnings for rows of no elements (or too few for ddof), which
# gpuvec gives too; it gives none of NumPy's floating-point warnings.
EMPTY_WARNINGS = ("Mean of empty slice", "Degrees of freedom <= 0")

# -- what gpuvec does differently, not on purpose ----------------------------------------------

# Discrepancies this test found, with reproducers; the machine steps around
# each where the comment names it, so that it checks everything else. Remove
# the entry and its step-around when gpuvec is fixed.
KNOWN_DISCREPANCIES = {
    "where's order": (
        "gv.where(np.ones((15, 1, 17), bool), 1.5, np.asfortranarray(np.ones((15, 1, 17)))) "
        "is Fortran-ordered; NumPy's np.where takes the condition's layout into its "
        "order='K' too, and gives C order here"
    ),
    "other orders": (
        "x = np.ones((5, 4, 6)).transpose(1, 2, 0); gv.add(x, 1.0) is C-ordered (strides "
        "(240, 40, 8)); NumPy's order='K' keeps x's order of axes (strides (48, 8, 192)). "
        "gpuvec gives C or Fortran order only; so for inputs of different orders, "
        "np.add(np.ones((5, 2, 6)), np.asfortranarray(np.ones((5, 5, 2, 6)))) has "
        "NumPy's mixed strides (8, 480, 240, 40) and gpuvec's Fortran ones"
    ),
    "max and min of bools": (
        "gv.max(np.array([True, False])) is 1.0 and gv.max(b, axis=0) a float64 array; "
        "NumPy's are bools (np.True_)"
    ),
    "where of a Python int with bools or unsigned ints": (
        "b = np.array([True, False]); gv.where(b, b, 0) is float64, np.where's int64; "
        "gv.where(b, np.ones(2, np.uint8), -1) is int16, np.where's uint8"
    ),
    "a float NaN written into integers through a mask": (
        "d = gv.to_device(np.arange(4)); d[d > 1] = np.nan writes INT64_MIN; NumPy's "
        "a[a > 1] = np.nan raises ValueError (cannot convert float NaN to integer)"
    ),
    "a number out of an integer dtype's range written through a mask": (
        "d = gv.to_device(np.zeros(2, np.uint8)); d[d == 0] = -1 writes 255 (wrapping); "
        "NumPy's raises OverflowError (Python integer -1 out of bounds for uint8)"
    ),
    "np.asarray(d) is a view on the host backend": (
        "on the host backend np.asarray(d) shares d's memory (through "
        "__array_interface__), so writing into it changes d; on cuda it is a copy"
    ),
}

# -- data -----------------------------------------------------------------------------------------

FLOATS = [np.float32, np.float64]
# The dtypes DeviceArrays hold (integers compute as integers, as NumPy's).
DEVICE_DTYPES = [np.float32, np.float64, np.bool_, np.int64, np.int32, np.uint8]
# The largest result an op may make: broadcasting (a[..., None] * b) multiplies
# sizes, and the results are operands of the steps that follow.
MAX_RESULT = 20_000
# Host data: gpuvec takes any real dtype (float16 computes in float32).
HOST_DTYPES = [np.float64, np.float32, np.float64, np.float32, np.int64, np.int32, np.int16]
HOST_DTYPES += [np.uint8, np.bool_, np.float16]
# Odd lengths: empty, one, primes, powers of two and their neighbours.
ODD_SIDES = [0, 1, 2, 3, 5, 7, 15, 16, 17, 31, 33, 63, 65, 127, 257, 1023, 1025]
ODD_SHAPES = [(31, 33), (17, 1, 15), (1, 1025), (65, 2), (2, 3, 5, 7), (0, 5), (3, 0, 2)]


def shapes():
    """0-d, empty, odd 1-d lengths and small N-d shapes: a few thousand elements at most."""
    return st.one_of(
        st.just(()),
        st.sampled_from(ODD_SIDES).map(lambda n: (n,)),
        hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7),
        st.sampled_from(ODD_SHAPES),
    )


def elements(dtype):
    """Values Hypothesis picks: moderate floats with NaN, inf and -0.0; small ints."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(max(info.min, -1000), min(info.max, 1000))
    finite = st.floats(-1e4, 1e4, width=dtype.itemsize * 8)
    return st.one_of(finite, st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.5]))


@st.composite
def host_arrays(draw, dtypes=HOST_DTYPES):
    """A new NumPy array, C- or Fortran-ordered, filled with Hypothesis' values,
    seeded random ones (many distinct values, for the reductions) or small
    integers (ties, for argmax)."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(shapes())
    fill = draw(st.sampled_from(["drawn", "random", "integers"]))
    if fill == "drawn":
        array = draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
    else:
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        if dtype.kind == "b":
            array = rng.random(shape) < 0.5
        elif fill == "integers" or dtype.kind in "iu":
            array = rng.integers(0 if dtype.kind == "u" else -3, 4, shape).astype(dtype)
        else:
            scale = draw(st.sampled_from([1.0, 1e-3, 1e3]))
            array = (rng.standard_normal(shape) * scale).astype(dtype)
    if array.ndim >= 2 and draw(st.booleans()):
        array = np.asfortranarray(array)
    return np.asarray(array)  # a 0-d array, not the NumPy scalar some paths give for shape ()


def scalars():
    """Operands that are numbers: Python ones (weak) and NumPy ones (strong)."""
    return st.one_of(
        st.sampled_from([0.0, 1.0, -1.0, 2, 3, 0.5, -2.5, True, np.nan, np.inf]),
        st.floats(-1e3, 1e3),
        st.integers(-5, 5),
        st.sampled_from([np.float32(1.5), np.float64(-0.25), np.float32(3)]),
    )


@st.composite
def index_keys(draw, shape):
    """Basic indices: slices with steps (negative ones, rarely a zero step),
    ints (rarely out of range), None and ``...``; rarely too many."""
    sides = list(shape[: draw(st.integers(0, len(shape)))])
    if draw(st.integers(0, 9)) == 0:
        sides.append(1)  # perhaps one index too many: IndexError
    parts = []
    for n in sides:
        kind = draw(st.sampled_from(["slice", "slice", "slice", "int", "new"]))
        if kind == "int":
            parts.append(draw(st.integers(-n - 1, n)))
        elif kind == "new":
            parts.append(None)
        else:
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = st.sampled_from([None, 1, 2, 3, -1, -2, -3, 0] if n else [None, 1, -1])
            parts.append(slice(draw(bound), draw(bound), draw(step)))
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), Ellipsis)
    return tuple(parts)


@st.composite
def reshapes(draw, size):
    """Shapes of ``size`` elements, perhaps with a -1; rarely of the wrong size."""
    ndim = draw(st.integers(0, 3))
    dims, left = [], size
    for _ in range(max(ndim - 1, 0)):
        divisors = [d for d in range(1, left + 1) if left % d == 0] or [0, 1, 2]
        dims.append(draw(st.sampled_from(divisors)))
        left = left // dims[-1] if dims[-1] else left
    if ndim:
        dims.append(left if math.prod(dims) else draw(st.integers(0, 3)))
    if dims and draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    if dims and draw(st.integers(0, 9)) == 0:
        dims[0] += 2  # the wrong number of elements: ValueError
    return tuple(dims)


@st.composite
def axes(draw, ndim):
    """axis= values: mostly valid (None, ints counted from either end, tuples of
    distinct axes), one in five not (out of range, repeated, on a 0-d array)."""
    if draw(st.integers(0, 4)) == 0:
        return draw(
            st.sampled_from([ndim, -ndim - 1])
            | st.lists(st.integers(-ndim - 1, ndim), min_size=2, max_size=3).map(tuple)
        )
    if not ndim:
        return draw(st.sampled_from([None, 0, -1, ()]))
    one = st.integers(-ndim, ndim - 1)
    some = st.lists(one, max_size=ndim, unique_by=lambda a: a % ndim).map(tuple)
    return draw(st.none() | one | some)


# Pairs of views of one array that overlap without being the same view: an
# input view and an out view of the same shape.
OVERLAPS = {
    "shift-up": (lambda a: a[:-1], lambda a: a[1:]),
    "shift-down": (lambda a: a[1:], lambda a: a[:-1]),
    "reversed": (lambda a: a, lambda a: a[::-1]),
    # disjoint elements whose extents overlap
    "interleaved": (lambda a: a[: a.shape[0] // 2 * 2 : 2], lambda a: a[1::2]),
    "transposed": (lambda a: a, lambda a: a.T),  # square matrices only
}


# -- pairs and checks -----------------------------------------------------------------------------


class Pair:
    """One array of the machine: gpuvec's ``value`` and the NumPy ``mirror``
    holding what the value must hold (same shape, dtype and aliasing)."""

    __slots__ = ("mirror", "value")

    def __init__(self, value, mirror):
        self.value = value
        self.mirror = mirror

    @property
    def on_device(self) -> bool:
        return isinstance(self.value, DeviceArray)

    def __repr__(self) -> str:
        side = "device" if self.on_device else "host"
        return f"Pair({side}, {self.mirror.dtype}, {self.mirror.shape})"


def two_rows(pair: Pair) -> bool:
    return pair.mirror.ndim >= 1 and pair.mirror.shape[0] >= 2


def host_copy(x) -> np.ndarray:
    """x's values as a NumPy array (a copy of a DeviceArray)."""
    return x.to_host() if isinstance(x, DeviceArray) else np.asarray(x)


def is_weak(x) -> bool:
    return type(x) in (bool, int, float)


def device_dtype(array: np.ndarray, dtype=None) -> np.dtype:
    """The dtype of gv.to_device(array, dtype=dtype): ``dtype``, else the
    array's own for bools and integers, else the policy's float dtype."""
    if dtype is not None:
        return np.dtype(dtype)
    return array.dtype if array.dtype.kind in "biu" else policy_dtype(array)


def policy_dtype(*operands) -> np.dtype:
    """The float dtype gpuvec returns where an op needs a float (an integer
    ``dtype``'s data): NumPy's promotion of the operands (Python numbers
    weak) with float16 (float16 itself computing in float32: ``computed``)."""
    strong = [np.asarray(x).dtype for x in operands if not is_weak(x)]
    weak = [x for x in operands if is_weak(x)]
    common = np.result_type(*strong, *weak) if strong else np.result_type(*weak or [0.0])
    return float_of(common)


def float_of(dtype: np.dtype) -> np.dtype:
    """The float result of an op with no kernel of ``dtype``'s kind: NumPy's
    promotion with float16 (float16 computing in float32: ``computed``)."""
    return np.promote_types(dtype, np.float16)


def computed(dtype: np.dtype) -> np.dtype:
    """The dtype gpuvec computes a result of ``dtype`` in: float32 for float16,
    as NumPy's float16 loops compute."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def loop_dtypes(ufunc, operands) -> tuple:
    """NumPy's loop for the operands (NEP 50: Python int and float weak; a
    Python bool is a bool); raises NumPy's TypeError where it has none."""
    dtypes = [type(x) if type(x) in (int, float) else np.asarray(x).dtype for x in operands]
    if all(type(x) in (int, float) for x in operands):
        dtypes = [np.asarray(x).dtype for x in operands]  # numbers alone: NumPy's defaults
    return ufunc.resolve_dtypes((*dtypes, *[None] * ufunc.nout))


def compute_dtype(name, operands):
    """The dtype of op ``name``'s loop: NumPy's loop's input dtype where the op
    has a kernel of its kind; else the float of float_of (float16 computing
    in float32: ``computed``). None where NumPy has no loop (it raises, as
    gpuvec must)."""
    row = ELEMENTWISE_OPS[ALIASES.get(name, name)]
    if row.numpy is None:  # sigmoid: NumPy's result type
        strong = [np.asarray(x).dtype for x in operands if not is_weak(x)]
        dtype = np.result_type(*strong, *[x for x in operands if is_weak(x)])
    else:
        try:
            dtype = loop_dtypes(getattr(np, row.numpy), operands)[0]
        except TypeError:
            return None
    if dtype == np.float16 or not row.computes_in(dtype):
        return float_of(dtype)  # (a float16 loop is float16's: float_of keeps it)
    return np.dtype(dtype)


def where_dtype(operands) -> np.dtype:
    """The dtype where chooses: NumPy's result type of the two values (Python
    numbers weak)."""
    strong = [np.asarray(x).dtype for x in operands if not is_weak(x)]
    weak = [x for x in operands if is_weak(x)]
    return np.result_type(*strong, *weak) if strong else np.result_type(*weak)


def cast(x, dtype):
    """An operand as the reference's NumPy call gets it: arrays and NumPy numbers
    as copies in ``dtype``; Python numbers as they are, which NumPy keeps weak
    (as floats where the op computes in floats: 2 ** -1 is 0.5 there)."""
    if is_weak(x):
        return float(x) if dtype is not None and dtype.kind == "f" else x
    return np.asarray(x) if dtype is None else np.asarray(x).astype(dtype)


def rounded_to(numpy_call, dtype):
    """numpy_call with its result rounded to ``dtype`` (float16) before it is
    returned or cast into ``out=``, as NumPy's float16 loops give it."""

    def call(*inputs, out=None):
        result = np.asarray(numpy_call(*inputs)).astype(dtype)
        if out is None:
            return result[()] if result.ndim == 0 else result
        np.copyto(out, result, casting="same_kind")
        return out

    return call


def reference64(name, inputs, compute):
    """The float64 reference of a math library op on inputs in ``compute``.

    The inputs are copied into full arrays first: for a scalar (or a
    broadcast) exponent NumPy's power takes shortcuts (0.5 is sqrt, so
    np.power(-inf, 0.5) is NaN) that its elementwise path, C's pow and
    gpuvec do not take (inf)."""
    arrays = np.broadcast_arrays(*[np.asarray(i, compute).astype(np.float64) for i in inputs])
    shape = arrays[0].shape
    return REFERENCE64[name](*[np.array(a, ndmin=1) for a in arrays]).reshape(shape)


def public_class(error: BaseException) -> type:
    """The class users catch: NumPy's private subclasses (UFuncTypeError, ...)
    count as their public base (TypeError, ...)."""
    for cls in type(error).__mro__:
        if cls.__module__ in ("builtins", "numpy", "numpy.exceptions"):
            return cls
    raise AssertionError(f"no public class for {error!r}")


@contextmanager
def quiet(record=None):
    """Floating-point warnings off; other warnings go into ``record`` (a list)."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        yield
    if record is not None:
        record.extend(str(w.message) for w in caught)


def attempt(call, record=None):
    """(result, None), or (None, the exception) when ``call`` raises."""
    with quiet(record):
        try:
            return call(), None
        except Exception as error:  # compared by class with NumPy's
            return None, error


def same_errors(np_error, gv_error) -> bool:
    """Asserts that both raised, gpuvec an exception of NumPy's public class, or
    that neither did; True when both did."""
    if np_error is None and gv_error is None:
        return False
    assert gv_error is not None, f"NumPy raised {np_error!r}; gpuvec gave a result"
    assert np_error is not None, f"gpuvec raised {gv_error!r}; NumPy gave a result"
    expected = public_class(np_error)
    assert isinstance(gv_error, expected), (
        f"gpuvec raised {type(gv_error).__name__}({gv_error}); "
        f"NumPy raised {expected.__name__}({np_error})"
    )
    return True


def assert_same_values(got, expected, *, zero_sign=True):
    """Same shape, dtype and values, NaN where NumPy has NaN, and (``zero_sign``)
    the same sign of zero."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)
    if zero_sign and expected.dtype.kind == "f":
        zeros = expected == 0
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(expected[zeros]))


def layout(a: np.ndarray) -> tuple:
    """The strides that say an array's order: those of dimensions longer than one."""
    return tuple(s for n, s in zip(a.shape, a.strides, strict=True) if n > 1)


def c_or_f(a: np.ndarray) -> bool:
    """Whether ``a`` is C- or Fortran-ordered, with two or more elements."""
    return a.size > 1 and (a.flags.c_contiguous or a.flags.f_contiguous)


def coarser(a: np.dtype, b: np.dtype) -> np.dtype:
    return a if a.itemsize <= b.itemsize else b


# -- reductions' tolerances -----------------------------------------------------------------------


def order_independent(name, x64: np.ndarray, axis) -> bool:
    """Whether every order of the float64 operations gives the same inf and NaN.

    NumPy and gpuvec add (and multiply) in different orders. Where partial
    sums or products could overflow (or products underflow), the result
    depends on the order, which is no parity property: NumPy's own loops
    differ there. Values are compared only where no order can; shapes,
    dtypes and exceptions always are."""
    with np.errstate(all="ignore"):
        finite = np.where(np.isfinite(x64), np.abs(x64), 0.0)
        if name == "prod":
            logs = np.log2(np.where(finite > 0, finite, 1.0))
            high = np.sum(np.maximum(logs, 0), axis=axis)
            low = np.sum(np.minimum(logs, 0), axis=axis)
            return bool(np.all(high < 1000) and np.all(low > -1000))
        bound = np.sum(finite**2 if name in ("var", "std") else finite, axis=axis)
        return bool(np.all(bound * max(x64.size, 1) < 1e300))


def assert_reduction_close(name, got, x64, expected64, dtype, axis, keepdims):
    """gpuvec's float64 accumulation rounded once to ``dtype``, against NumPy's
    float64 result: non-finite where the rounded reference is, else within the
    error of a float64 accumulation (n eps64 times the sum of magnitudes) plus
    a few ulp of ``dtype``."""
    got = np.asarray(got, np.float64)
    with np.errstate(all="ignore"):
        rounded = expected64.astype(dtype).astype(np.float64)
    special = ~np.isfinite(rounded)
    np.testing.assert_array_equal(got[special], rounded[special])
    n = x64.size // max(expected64.size, 1)
    eps, eps64 = float(np.finfo(dtype).eps), float(np.finfo(np.float64).eps)
    kw = {"axis": axis, "keepdims": keepdims}
    with np.errstate(all="ignore"):
        finite = np.where(np.isfinite(x64), x64, 0.0)
        if name in ("sum", "mean"):
            magnitude = np.sum(np.abs(finite), **kw) / (max(n, 1) if name == "mean" else 1)
            slack = 4 * n * eps64 * magnitude
        elif name == "prod":
            slack = 4 * n * eps64 * np.abs(expected64)
        else:  # var, std: rounding errors scale with the mean square, not the spread
            slack = 8 * (n + 1) * eps64 * np.sum(finite**2, **kw) / max(n, 1)
            slack = np.sqrt(slack) if name == "std" else slack
        tolerance = 4 * eps * np.abs(expected64) + slack + float(np.finfo(dtype).tiny)
        bad = ~special & ~(np.abs(got - expected64) <= tolerance)
    assert not bad.any(), (
        f"{name}: {bad.sum()} of {bad.size} results off; got {got[bad][:5]}, "
        f"expected {expected64[bad][:5]} within {np.broadcast_to(tolerance, bad.shape)[bad][:5]}"
    )


# -- the machine ----------------------------------------------------------------------------------


class NumPyParity(RuleBasedStateMachine):
    """Random sequences of gpuvec calls on host data (NumPy arrays of any real
    dtype) and device data (DeviceArrays), each compared with NumPy.

    The bundles ``host`` and ``device`` hold Pairs. Rules make new pairs
    (creation, transfers, views, results) or write into existing ones (out=,
    in-place operators); ``pairs`` lists them all, for the invariant."""

    host = Bundle("host")
    device = Bundle("device")

    def __init__(self):
        super().__init__()
        self.pairs: list[Pair] = []

    def keep(self, value, mirror) -> Pair:
        """A new pair (of one shape and dtype), kept for the invariant."""
        assert value.shape == mirror.shape, (value.shape, mirror.shape)
        assert value.dtype == mirror.dtype, (value.dtype, mirror.dtype)
        if isinstance(value, DeviceArray) and value.size and value.is_c_contiguous:
            # Then NumPy's reshape and ravel of the mirror are views, as gpuvec's are.
            assert mirror.flags.c_contiguous, mirror.strides
        pair = Pair(value, mirror)
        self.pairs.append(pair)
        return pair

    def keep_host(self, array: np.ndarray) -> Pair:
        """A pair of a NumPy array and a copy with the same layout."""
        return self.keep(array, array.copy(order="K"))

    @invariant()
    def values_equal_mirrors(self):
        """Every value holds exactly its mirror: nothing was written that NumPy
        did not write, through whichever alias."""
        for pair in self.pairs:
            assert_same_values(host_copy(pair.value), pair.mirror)

    # -- creation -------------------------------------------------------------------------------

    @initialize(target=host, array=host_arrays())
    def first_host_array(self, array):
        """A NumPy array to start with, so that the rules on host data can run."""
        return self.keep_host(array)

    @initialize(target=device, array=host_arrays(DEVICE_DTYPES))
    def first_device_array(self, array):
        """A DeviceArray to start with."""
        return self.keep(gv.to_device(array), array.copy())

    @rule(target=host, array=host_arrays())
    def new_host_array(self, array):
        """NumPy data of any real dtype, C or Fortran order; gpuvec takes it as it is."""
        return self.keep_host(array)

    @rule(
        target=device,
        array=host_arrays(),
        dtype=st.sampled_from([None, np.float32, np.float64, "float32"]),
        how=st.sampled_from(["to_device", "asarray"]),
    )
    def new_device_array(self, array, dtype, how):
        """gv.to_device / gv.asarray of new data: bools and integers keep their
        dtype, floats take the policy's (or ``dtype``); the copy is C-ordered
        (difference 7)."""
        with quiet():  # float64 beyond float32's range overflows, with NumPy's warning
            value = getattr(gv, how)(array, dtype=dtype)
            mirror = array.astype(device_dtype(array, dtype), order="C")
        assert value.is_c_contiguous
        return self.keep(value, mirror)

    @rule(
        target=device,
        shape=shapes(),
        kind=st.sampled_from(["zeros", "ones", "full"]),
        fill=st.sampled_from([2.5, -0.0, np.nan, np.inf, 7, 1e300, True, False]),
        dtype=st.sampled_from([None, np.float32, np.float64, np.bool_]),
    )
    def new_filled(self, shape, kind, fill, dtype):
        """gv.zeros / gv.ones / gv.full: float64 unless ``dtype`` says otherwise or
        the fill is a bool (NumPy's full of an int is int64: difference 1)."""
        full_of_bools = kind == "full" and isinstance(fill, bool)
        dt = np.dtype(dtype or (np.bool_ if full_of_bools else np.float64))
        kwargs = {} if dtype is None else {"dtype": dtype}
        with quiet():  # 1e300 overflows float32, with NumPy's warning
            if kind == "full":
                value, mirror = gv.full(shape, fill, **kwargs), np.full(shape, fill, dt)
            else:
                value, mirror = getattr(gv, kind)(shape, **kwargs), getattr(np, kind)(shape, dt)
        return self.keep(value, mirror)

    @rule(
        target=device,
        start=st.integers(-40, 40),
        stop=st.none() | st.integers(-40, 40),
        step=st.sampled_from([1, 2, 3, -1, -2, 0.5, -0.25, 0]),
        dtype=st.sampled_from([None, np.float32, np.float64]),
    )
    def new_arange(self, start, stop, step, dtype):
        """gv.arange: NumPy's values and dtype (and errors: a zero step), or ``dtype``'s."""
        expected, np_error = attempt(lambda: np.arange(start, stop, step, dtype=dtype))
        got, gv_error = attempt(lambda: gv.arange(start, stop, step, dtype=dtype))
        if same_errors(np_error, gv_error):
            return multiple()
        return self.keep(got, expected)

    # -- transfers and casts --------------------------------------------------------------------

    @rule(target=device, x=host, dtype=st.sampled_from([None, np.float32, np.float64]))
    def upload(self, x, dtype):
        """gv.to_device of existing host data, strided views included: a C-ordered copy."""
        with quiet():  # as in new_device_array
            value = gv.to_device(x.value, dtype=dtype)
            mirror = x.mirror.astype(device_dtype(x.mirror, dtype), order="C")
        assert value.is_c_contiguous
        return self.keep(value, mirror)

    @rule(target=host, x=device, how=st.sampled_from(["to_host", "asnumpy", "np.asarray"]))
    def download(self, x, how):
        """d.to_host(), gv.asnumpy(d), np.asarray(d): a new NumPy array, not a view."""
        calls = {"to_host": lambda v: v.to_host(), "asnumpy": gv.asnumpy}
        value = calls.get(how, np.asarray)(x.value)
        assert isinstance(value, np.ndarray)
        if how == "np.asarray" and np.may_share_memory(value, x.value):
            # KNOWN_DISCREPANCIES["np.asarray(d) is a view on the host backend"]: the
            # value aliases d there (and is a copy on cuda); so does the mirror.
            return self.keep(value, x.mirror)
        mirror = np.empty_like(value)  # the value's layout, which the host rules check
        mirror[...] = x.mirror
        return self.keep(value, mirror)

    @rule(x=host)
    def asnumpy_of_host_data(self, x):
        """gv.asnumpy of a NumPy array is that array, as np.asarray's is."""
        assert gv.asnumpy(x.value) is x.value

    @rule(x=device, dtype=st.sampled_from([None, np.float32, np.float64]))
    def round_trip(self, x, dtype):
        """to_device(asnumpy(d)) gives d's values back; to_device of a DeviceArray is
        that array when the dtype does not change, as np.asarray's is."""
        if dtype is None or np.dtype(dtype) == x.value.dtype:
            assert gv.to_device(x.value, dtype=dtype) is x.value
        with quiet():  # float64 beyond float32's range overflows, with NumPy's warning
            back = gv.to_device(gv.asnumpy(x.value), dtype=dtype)
            expected = x.mirror.astype(dtype or x.mirror.dtype)
        assert_same_values(back.to_host(), expected)

    @rule(target=device, x=device, dtype=st.sampled_from([*DEVICE_DTYPES, "copy"]))
    def astype(self, x, dtype):
        """d.astype(float32, float64 or bool) and d.copy(): C-ordered copies, rounded
        as NumPy rounds (to bool: nonzero, NaN included, is True)."""
        if dtype == "copy":
            value, mirror = x.value.copy(), x.mirror.copy()
        else:
            value, mirror = x.value.astype(dtype), x.mirror.astype(dtype, order="C")
        assert value.is_c_contiguous
        return self.keep(value, mirror)

    @rule(target=device, x=device, dtype=st.sampled_from([np.int64, np.int32, np.uint8]))
    def astype_integer(self, x, dtype):
        """d.astype(an integer dtype): NumPy's integers, also for the values
        that the dtype cannot hold (NaN, inf, out of its range), where NumPy
        warns and gives what x86-64 gives."""
        value = x.value.astype(dtype)
        with quiet():
            mirror = x.mirror.astype(dtype, order="C")
        assert value.dtype == dtype
        assert value.is_c_contiguous
        return self.keep(value, mirror)

    # -- views ----------------------------------------------------------------------------------

    def view(self, x: Pair, make):
        """``make`` applied to the value and to the mirror: the same view, or the
        same exception."""
        expected, np_error = attempt(lambda: make(x.mirror))
        got, gv_error = attempt(lambda: make(x.value))
        if same_errors(np_error, gv_error):
            return multiple()
        assert isinstance(got, DeviceArray) == x.on_device, type(got)
        return self.keep(got, expected)

    def sliced(self, x, data):
        key = data.draw(index_keys(x.mirror.shape), label="key")
        # An all-int index of a DeviceArray is a 0-d view (NumPy's is a scalar, a
        # copy); with `...` added it is a view on both sides, to write through.
        key = key if Ellipsis in key else (*key, Ellipsis)
        return self.view(x, lambda a: a[key])

    @rule(target=device, x=device, data=st.data())
    def slice_device(self, x, data):
        """Basic indexing of a DeviceArray: NumPy's views, or its IndexError / ValueError."""
        return self.sliced(x, data)

    @rule(target=host, x=host, data=st.data())
    def slice_host(self, x, data):
        """Strided and reversed NumPy views, for gpuvec to read and write."""
        return self.sliced(x, data)

    @rule(target=device, x=device, where=st.sampled_from(["end", "front"]))
    def new_axis(self, x, where):
        """d[..., None] and d[None]: a dimension of length 1, for broadcasting."""
        return self.view(x, (lambda a: a[..., None]) if where == "end" else (lambda a: a[None]))

    @rule(target=device, x=device, data=st.data())
    def transpose(self, x, data):
        """d.T, or d.transpose(axes) with a permutation (rarely not one)."""
        ndim = x.mirror.ndim
        order = data.draw(
            st.none()
            | st.permutations(range(ndim)).map(tuple)
            | st.lists(st.integers(-ndim - 1, ndim), max_size=ndim + 1).map(tuple),
            label="axes",
        )
        if order is None:
            return self.view(x, lambda a: a.T)
        return self.view(x, lambda a: a.transpose(order))

    @rule(target=device, x=device.filter(lambda p: p.value.is_c_contiguous), data=st.data())
    def reshape(self, x, data):
        """d.reshape of C-contiguous data: a view, as NumPy's of C-contiguous data is."""
        shape = data.draw(reshapes(x.mirror.size), label="shape")
        return self.view(x, lambda a: a.reshape(shape))

    @rule(target=device, x=device)
    def ravel(self, x):
        """d.ravel(): a view of C-contiguous data, else a copy (as documented; NumPy
        may view some strided data too, so the mirror copies then)."""
        value = x.value.ravel()
        mirror = x.mirror.ravel() if x.value.is_c_contiguous else x.mirror.flatten()
        return self.keep(value, mirror)

    # -- elementwise ----------------------------------------------------------------------------

    def elementwise(self, name, operands, out=None, call=None, numpy_call=None, order=True):
        """Runs gpuvec's op ``name`` on the operands' values (Pairs or numbers) and
        NumPy's on the mirrors cast to gpuvec's compute dtype, and compares.

        ``call`` is how gpuvec is called (default ``gv.<name>(*values, out=...)``),
        ``numpy_call`` how NumPy is (default its ufunc of that name); ``order``:
        whether a NumPy result's order must be NumPy's. With ``out``
        (a Pair) the result must be written into it; else it is a new pair,
        which is returned (None after an exception or for a number)."""
        values = [x.value if isinstance(x, Pair) else x for x in operands]
        mirrors = [x.mirror if isinstance(x, Pair) else x for x in operands]
        if math.prod(self.result_shape(*mirrors) or ()) > MAX_RESULT:
            return None  # an outer product of outer products would grow without end
        loop = where_dtype(mirrors) if name == "where" else compute_dtype(name, mirrors)
        result_dtype = np.dtype(np.bool_) if name in TRUTH else loop
        compute = None if loop is None else computed(loop)
        # Copies taken before NumPy writes into out, which may alias an input:
        # NumPy's answer for overlapping operands is that of copies.
        inputs = [cast(m, compute) for m in mirrors]
        if loop is not None and loop != compute and name not in TRUTH:
            # a float16 result: computed in float32, rounded to float16 (then into out)
            numpy_call = rounded_to(numpy_call or NUMPY[name], loop)
        kwargs = {} if out is None else {"out": out.mirror}
        numpy_call = numpy_call or NUMPY[name]
        expected, np_error = attempt(lambda: numpy_call(*inputs, **kwargs))
        if call is None:

            def call(*args):
                return getattr(gv, name)(*args, **({} if out is None else {"out": out.value}))

        got, gv_error = attempt(lambda: call(*values))
        if (
            name == "power"
            and isinstance(gv_error, ValueError)
            and isinstance(np_error, TypeError)
        ):
            # Documented: a negative integer exponent raises ValueError before out='s
            # casting is checked (NumPy checks the casting first: TypeError).
            _, np_error = attempt(lambda: numpy_call(*inputs))
        if same_errors(np_error, gv_error):
            return None
        on_device = any(isinstance(v, DeviceArray) for v in values)
        if out is not None:
            assert got is out.value, "the result is not out"
            dtype = out.mirror.dtype
        else:
            assert isinstance(got, DeviceArray if on_device else (np.ndarray, np.generic))
            dtype = result_dtype
        host = host_copy(got)
        assert host.shape == np.shape(expected), (host.shape, np.shape(expected))
        assert host.dtype == dtype, (host.dtype, dtype)
        if name in EXACT or compute.kind in "biu":  # integers and bools wrap as NumPy's
            assert_same_values(host, np.asarray(expected).astype(dtype))
        else:
            with np.errstate(all="ignore"):
                # (broadcast to out's shape, which may be larger than the inputs')
                exact64 = np.broadcast_to(reference64(name, inputs, compute), host.shape)
            # A float32 out of a float64 result, or the reverse: the coarser's ulps
            # (float16's where NumPy's loop is float16, into an out of any dtype).
            tolerance_dtype = coarser(loop, dtype)
            assert_ulp_close(host.astype(tolerance_dtype), exact64, tolerance_dtype, ULPS[name])
        if out is not None:
            out.mirror[...] = host  # within ulps of NumPy's: go on from gpuvec's bits
            return None
        if on_device:
            assert got.is_c_contiguous  # difference 7: device results are C-ordered
        elif order and isinstance(got, np.ndarray) and c_or_f(expected):
            # NumPy in, NumPy out, in the inputs' order (NumPy's order='K'), where
            # that is C or Fortran order (KNOWN_DISCREPANCIES["other orders"]).
            assert layout(got) == layout(expected), (
                f"result strides {got.strides}, NumPy's {expected.strides}; inputs "
                f"{[(np.shape(v), np.asarray(v).strides) for v in values]}"
            )
        if not isinstance(got, (DeviceArray, np.ndarray)):
            return None  # a number
        return self.keep(got, host.copy(order="K"))

    def pick_out(self, data, bundle, first, shape):
        """out= for an op whose first operand is ``first``: none, a new array of
        the result's shape, ``first`` itself (in place), or any pair of the same
        side, of any shape and dtype (perhaps a view overlapping an input)."""
        mode = data.draw(st.sampled_from(["none", "none", "new", "in place", "any"]), label="out")
        if mode == "in place" and isinstance(first, Pair):
            return first
        if mode == "any":
            return data.draw(bundle, label="out pair")
        if mode == "new" and shape is not None:
            on_device = bundle is self.device
            host_dtypes = [*FLOATS, np.int64, np.float16, np.bool_, np.uint8]
            dtype = data.draw(st.sampled_from(DEVICE_DTYPES if on_device else host_dtypes))
            # NaN (or -1, 255, True) where gpuvec must write: a missed element shows.
            fill = {np.int64: -1, np.int32: -1, np.uint8: 255, np.bool_: True}.get(dtype, np.nan)
            mirror = np.full(shape, fill, dtype)
            value = gv.full(shape, fill, dtype) if on_device else mirror.copy()
            return self.keep(value, mirror)
        return None

    @staticmethod
    def result_shape(*operands):
        try:
            return np.broadcast_shapes(*(np.shape(getattr(x, "mirror", x)) for x in operands))
        except ValueError:
            return None

    def unary(self, bundle, x, name, data):
        out = self.pick_out(data, bundle, x, x.mirror.shape)
        return self.elementwise(name, [x], out) or multiple()

    @rule(target=device, x=device, name=st.sampled_from(sorted(UNARY)), data=st.data())
    def unary_on_device(self, x, name, data):
        """gv.exp(d), gv.sqrt(d, out=...), ...: a DeviceArray, or out."""
        return self.unary(self.device, x, name, data)

    @rule(target=host, x=host, name=st.sampled_from(sorted(UNARY)), data=st.data())
    def unary_on_host(self, x, name, data):
        """gv.exp(a), ... on NumPy data of any dtype and layout."""
        return self.unary(self.host, x, name, data)

    def binary(self, bundle, a, b, name, swap, data):
        if swap:
            a, b = b, a  # the number (or the other array) first
        out = self.pick_out(data, bundle, a, self.result_shape(a, b))
        return self.elementwise(name, [a, b], out) or multiple()

    @rule(
        target=device,
        a=device,
        b=device | scalars(),
        name=st.sampled_from(sorted(BINARY)),
        swap=st.booleans(),
        data=st.data(),
    )
    def binary_on_device(self, a, b, name, swap, data):
        """gv.add(d, e), gv.maximum(2.0, d), ...: broadcast, or NumPy's ValueError."""
        return self.binary(self.device, a, b, name, swap, data)

    @rule(
        target=host,
        a=host,
        b=host | scalars(),
        name=st.sampled_from(sorted(BINARY)),
        swap=st.booleans(),
        data=st.data(),
    )
    def binary_on_host(self, a, b, name, swap, data):
        """gv.add(a, b), ... on NumPy data: mixed dtypes follow the dtype policy."""
        return self.binary(self.host, a, b, name, swap, data)

    @rule(a=scalars(), b=scalars(), name=st.sampled_from(sorted(BINARY)))
    def numbers_only(self, a, b, name):
        """gv.add(2, 0.5), ...: a NumPy scalar, float64 unless NumPy float32s say otherwise."""
        self.elementwise(name, [a, b])

    @rule(
        target=device,
        a=device,
        b=device | scalars(),
        op=st.sampled_from(sorted(OPERATORS)),
        swap=st.booleans(),
    )
    def operator_on_device(self, a, b, op, swap):
        """d + e, 2.5 * d, d ** 2, 1 / d, ...: numbers on either side."""
        operands = [b, a] if swap else [a, b]
        return self.elementwise(OPERATORS[op], operands, call=CALL[op]) or multiple()

    @rule(target=device, x=device, op=st.sampled_from(["-", "abs", "+", "~"]))
    def unary_operator_on_device(self, x, op):
        """-d, abs(d), +d (a copy) and ~d (a bool array's logical not; a
        TypeError for floats, as NumPy's)."""
        if op == "~":
            return self.logical_operator(x, None, operator.invert, in_place=False)
        if op == "+":
            value = +x.value
            assert value is not x.value
            assert value.is_c_contiguous
            return self.keep(value, x.mirror.copy())
        name, call = ("negative", operator.neg) if op == "-" else ("abs", abs)
        return self.elementwise(name, [x], call=call) or multiple()

    def logical_operator(self, a, b, call, in_place):
        """``call`` (~, &, |, ^, or their in-place forms) on the values and on the
        mirrors as NumPy has them: NumPy's bools, or NumPy's TypeError."""
        mirrors = [o.mirror if isinstance(o, Pair) else o for o in (a, b) if o is not None]
        values = [o.value if isinstance(o, Pair) else o for o in (a, b) if o is not None]
        expected, np_error = attempt(lambda: call(*mirrors))
        got, gv_error = attempt(lambda: call(*values))
        if same_errors(np_error, gv_error):
            return multiple()
        if in_place:
            assert got is a.value, "the result is not the left operand"
            return multiple()  # the mirror was written in place; the invariant compares
        assert isinstance(got, DeviceArray), type(got)
        assert got.is_c_contiguous, got.strides
        host = host_copy(got)
        assert_same_values(host, expected)
        return self.keep(got, host)

    @rule(
        target=device,
        a=device,
        b=device | st.sampled_from([True, False, np.True_, np.False_, 1.5]),
        op=st.sampled_from(sorted(LOGICAL_OPERATORS)),
        swap=st.booleans(),
        in_place=st.booleans(),
    )
    def logical_operator_on_device(self, a, b, op, swap, in_place):
        """d & e, True | d, d ^= e, ...: bool arrays give NumPy's logic; float
        operands NumPy's TypeError."""
        if in_place:
            return self.logical_operator(a, b, LOGICAL_IN_PLACE[op], in_place=True)
        operands = (b, a) if swap else (a, b)
        return self.logical_operator(*operands, LOGICAL_OPERATORS[op], in_place=False)

    @rule(x=device, other=device | scalars(), op=st.sampled_from(sorted(IN_PLACE)))
    def in_place_operator(self, x, other, op):
        """d += e, d *= 2, d32 += d64 (NumPy's same_kind casting keeps float32), ...,
        written into d, which may alias ``other``."""
        self.elementwise(OPERATORS[op], [x, other], out=x, call=IN_PLACE[op])

    def overlapping_out(self, x, name, second, data):
        kinds = sorted(OVERLAPS)
        if x.mirror.ndim != 2 or x.mirror.shape[0] != x.mirror.shape[1]:
            kinds.remove("transposed")
        make_in, make_out = OVERLAPS[data.draw(st.sampled_from(kinds), label="overlap")]
        inp = Pair(make_in(x.value), make_in(x.mirror))
        out = Pair(make_out(x.value), make_out(x.mirror))
        if name in UNARY:
            self.elementwise(name, [inp], out=out)
        else:
            self.elementwise(name, [inp, {"in": inp, "out": out}.get(second, second)], out=out)

    @rule(
        x=device.filter(two_rows),
        name=st.sampled_from(sorted(NUMPY)),
        second=st.sampled_from(["in", "out"]) | scalars(),
        data=st.data(),
    )
    def overlapping_out_on_device(self, x, name, second, data):
        """gv.negative(d[:-1], out=d[1:]), gv.add(d, d, out=d[::-1]), ...: NumPy's
        answer is that of copies of the inputs: gpuvec must not read what it wrote."""
        self.overlapping_out(x, name, second, data)

    @rule(
        x=host.filter(two_rows),
        name=st.sampled_from(sorted(NUMPY)),
        second=st.sampled_from(["in", "out"]) | scalars(),
        data=st.data(),
    )
    def overlapping_out_on_host(self, x, name, second, data):
        """The same on NumPy data (an int or bool array cannot take the float
        result: NumPy's TypeError)."""
        self.overlapping_out(x, name, second, data)

    def where(self, cond, threshold, a, b, swap):
        strong = [v.mirror.dtype.kind for v in (a, b) if isinstance(v, Pair)]
        if type(b) is int and {"b", "u"} & set(strong):
            # KNOWN_DISCREPANCIES["where of a Python int with bools or unsigned ints"]
            return multiple()
        if swap:
            a, b = b, a
        # The condition is a bool pair's own value (a NumPy array or a bool
        # DeviceArray), or a comparison made on the condition's side.
        if cond.mirror.dtype == np.bool_:
            cond_value, cond_mirror = cond.value, cond.mirror
        else:
            cond_value, cond_mirror = cond.value > threshold, cond.mirror > threshold
            assert host_copy(cond_value).dtype == np.bool_
        result = self.elementwise(
            "where",
            [a, b],
            call=lambda a_, b_: gv.where(cond_value, a_, b_),
            numpy_call=lambda a_, b_: np.where(cond_mirror, a_, b_),
            # KNOWN_DISCREPANCIES["where's order"]: NumPy's follows the condition too.
            order=cond_mirror.size <= 1,
        )
        return result or multiple()

    @rule(
        target=device,
        cond=host | device,
        threshold=st.sampled_from([0.0, 1.0, np.nan]),
        a=device,
        b=device | scalars(),
        swap=st.booleans(),
    )
    def where_on_device(self, cond, threshold, a, b, swap):
        """gv.where(mask, d, e) with a NumPy or device bool mask: broadcast, or ValueError."""
        return self.where(cond, threshold, a, b, swap)

    @rule(
        target=host,
        cond=host,
        threshold=st.sampled_from([0.0, 1.0]),
        a=host,
        b=host | scalars(),
        swap=st.booleans(),
    )
    def where_on_host(self, cond, threshold, a, b, swap):
        """gv.where(mask, a, b) on NumPy data."""
        return self.where(cond, threshold, a, b, swap)

    # -- reductions -----------------------------------------------------------------------------

    def reduce(self, x, name, data):
        """gpuvec's reduction ``name`` (the function, or the DeviceArray method)
        against NumPy's float64 one on the same (cast) data. Returns gpuvec's
        result as a new pair when it is an array of ``x``'s side."""
        axis = data.draw(axes(x.mirror.ndim), label="axis")
        keepdims = data.draw(st.booleans(), label="keepdims")
        kwargs = {"axis": axis, "keepdims": keepdims}
        if name in ("var", "std"):
            kwargs["ddof"] = data.draw(st.sampled_from([0, 1]), label="ddof")
        if x.on_device and data.draw(st.booleans(), label="method"):
            target = getattr(x.value, name)
        else:
            target = lambda **kw: getattr(gv, name)(x.value, **kw)  # noqa: E731
        dtype = x.mirror.dtype
        # Integers and bools: NumPy's own reduction, of NumPy's dtype (sums in
        # int64 or uint64, max in the data's dtype, means in float64), exactly
        # where it is an integer or a bool; floats (float16 as float32) and
        # means of integers: NumPy's float64 reduction, within tolerance.
        index = name in INDEX_REDUCTIONS
        integral = dtype.kind in "biu"
        compute = (
            np.asarray(getattr(np, name)(np.zeros(1, dtype))).dtype
            if integral and not index
            else float_of(dtype)
        )
        if dtype == np.bool_ and name in ("max", "min"):
            compute = np.dtype(np.float64)  # KNOWN_DISCREPANCIES["max and min of bools"]
        exact = integral and (index or compute.kind in "biu" or name in ("max", "min"))
        x64 = x.mirror if exact else x.mirror.astype(float_of(dtype)).astype(np.float64)
        np_warnings, gv_warnings = [], []
        expected, np_error = attempt(lambda: getattr(np, name)(x64, **kwargs), np_warnings)
        got, gv_error = attempt(lambda: target(**kwargs), gv_warnings)
        if same_errors(np_error, gv_error):
            return multiple()
        for message in EMPTY_WARNINGS:
            np_warned = any(w.startswith(message) for w in np_warnings)
            assert np_warned == any(w.startswith(message) for w in gv_warnings), message
        expected = np.asarray(expected)
        if axis is None and not keepdims and (index or not x.on_device):
            # Difference 3: a reduction of everything is a Python number (.item()).
            number = {"b": bool, "i": int, "u": int}.get(compute.kind, float)
            assert type(got) is (int if index else number), type(got)
        elif x.on_device and not index:
            assert isinstance(got, DeviceArray), type(got)
        else:  # positions come back to the host, as NumPy arrays or scalars
            assert isinstance(got, (np.ndarray, np.generic)), type(got)
        host = np.asarray(host_copy(got))
        assert host.shape == expected.shape, (host.shape, expected.shape)
        if not isinstance(got, (int, float)):
            assert host.dtype == (np.int64 if index else compute), (host.dtype, compute)
        if index or exact or name in ("max", "min"):
            # A chosen element or its position: exactly NumPy's.
            assert_same_values(host.astype(expected.dtype), expected, zero_sign=False)
        elif order_independent(name, x64, axis):
            assert_reduction_close(name, host, x64, expected, compute, axis, keepdims)
        if isinstance(got, DeviceArray):
            return self.keep(got, host)  # within tolerance: go on from gpuvec's bits
        if isinstance(got, np.ndarray) and not x.on_device:
            return self.keep_host(got)
        return multiple()

    @rule(target=device, x=device, name=st.sampled_from(REDUCTIONS), data=st.data())
    def reduce_on_device(self, x, name, data):
        """d.sum(axis=..., keepdims=...), gv.var(d, ddof=1), ... (argmax and argmin give
        NumPy positions); empty rows raise NumPy's ValueError, bad axes its AxisError."""
        return self.reduce(x, name, data)

    @rule(target=host, x=host, name=st.sampled_from(REDUCTIONS), data=st.data())
    def reduce_on_host(self, x, name, data):
        """gv.sum(a, axis=...), ... on NumPy data of any dtype, 0-d and empty included."""
        return self.reduce(x, name, data)

    def truth_reduce(self, x, name, data):
        """gv.any / gv.all / gv.count_nonzero (or d.any(), d.all()) against NumPy's
        on the data as it is: the same bools and counts, exactly."""
        axis = data.draw(axes(x.mirror.ndim), label="axis")
        keepdims = data.draw(st.booleans(), label="keepdims")
        if x.on_device and name != "count_nonzero" and data.draw(st.booleans(), label="method"):
            target = getattr(x.value, name)
        else:
            target = lambda **kw: getattr(gv, name)(x.value, **kw)  # noqa: E731
        kwargs = {"axis": axis, "keepdims": keepdims}
        expected, np_error = attempt(lambda: getattr(np, name)(x.mirror, **kwargs))
        got, gv_error = attempt(lambda: target(**kwargs))
        if same_errors(np_error, gv_error):
            return multiple()
        expected = np.asarray(expected)
        if name == "count_nonzero" and axis is None and not keepdims:
            assert type(got) is int, type(got)  # a count of everything is a Python int
        elif name == "count_nonzero" or not x.on_device:
            # Counts come to the host, as NumPy arrays (or, of no dimensions, scalars).
            assert isinstance(got, (np.ndarray, np.generic)), type(got)
        else:
            assert isinstance(got, DeviceArray), type(got)  # 0-d for everything
        host = np.asarray(host_copy(got))
        assert_same_values(host, expected.astype(host.dtype))
        assert host.dtype == (np.int64 if name == "count_nonzero" else np.bool_), host.dtype
        if isinstance(got, DeviceArray):
            return self.keep(got, host)
        if isinstance(got, np.ndarray) and not x.on_device:
            return self.keep_host(got)
        return multiple()

    @rule(target=device, x=device, name=st.sampled_from(TRUTH_REDUCTIONS), data=st.data())
    def truth_reduce_on_device(self, x, name, data):
        """d.any(axis=...), gv.count_nonzero(d, axis=...), ...: bool DeviceArrays
        (counts come back as NumPy int64 arrays)."""
        return self.truth_reduce(x, name, data)

    @rule(target=host, x=host, name=st.sampled_from(TRUTH_REDUCTIONS), data=st.data())
    def truth_reduce_on_host(self, x, name, data):
        """gv.all(a, axis=...), ... on NumPy data of any dtype."""
        return self.truth_reduce(x, name, data)

    # -- boolean masks --------------------------------------------------------------------------

    def mask_of(self, x, source, threshold, device_mask):
        """A mask for x: x's own comparison with ``threshold``, or the bool pair
        ``source`` (of any shape: NumPy's IndexError where it does not fit);
        a DeviceArray (``device_mask``) or a NumPy array."""
        if source is None or source.mirror.dtype != np.bool_:
            mirror = np.asarray(x.mirror > threshold)
            value = x.value > threshold if device_mask else mirror.copy()
        else:
            mirror = source.mirror
            value = source.value if device_mask else host_copy(source.value)
        return value, mirror

    @rule(
        target=device,
        x=device,
        source=st.none() | device,
        threshold=st.sampled_from([0.0, 0.5, np.nan]),
        device_mask=st.booleans(),
    )
    def mask_select(self, x, source, threshold, device_mask):
        """d[mask] is NumPy's x[mask]: the selected elements, copied, in C order."""
        value, mirror = self.mask_of(x, source, threshold, device_mask)
        expected, np_error = attempt(lambda: x.mirror[mirror])
        got, gv_error = attempt(lambda: x.value[value])
        if same_errors(np_error, gv_error):
            return multiple()
        assert isinstance(got, DeviceArray), type(got)
        assert got.is_c_contiguous, got.strides
        assert_same_values(host_copy(got), expected)
        return self.keep(got, expected)

    @rule(
        x=device,
        source=st.none() | device,
        threshold=st.sampled_from([0.0, 0.5]),
        device_mask=st.booleans(),
        values=st.sampled_from(["number", "host", "device", "wrong length"]),
        number=scalars(),
    )
    def mask_assign(self, x, source, threshold, device_mask, values, number):
        """d[mask] = v, in place: NumPy's writes (through every alias of d), or
        its errors (a mask that does not fit, values of the wrong length)."""
        if x.mirror.dtype.kind in "biu" and values == "number" and not np.isfinite(number):
            # KNOWN_DISCREPANCIES["a float NaN written into integers through a mask"]
            return
        if x.mirror.dtype.kind in "iu" and values == "number" and np.isfinite(number):
            limits = np.iinfo(x.mirror.dtype)
            if not limits.min <= number <= limits.max:
                # KNOWN_DISCREPANCIES["a number out of an integer dtype's range written
                # through a mask"]
                return
        value, mirror = self.mask_of(x, source, threshold, device_mask)
        count = int(np.count_nonzero(mirror)) if mirror.shape == x.mirror.shape else 1
        if values == "number":
            v_value = v_mirror = number
        else:
            length = count + 1 if values == "wrong length" else count
            v_mirror = np.linspace(-1.0, 1.0, length).astype(x.mirror.dtype)
            v_value = gv.to_device(v_mirror) if values == "device" else v_mirror.copy()

        def assign(target, mask, v):
            target[mask] = v

        _, np_error = attempt(lambda: assign(x.mirror, mirror, v_mirror))
        _, gv_error = attempt(lambda: assign(x.value, value, v_value))
        same_errors(np_error, gv_error)  # else the invariant compares what both wrote

    # -- what gpuvec documents as different -----------------------------------------------------

    @rule(x=device, other=host)
    def documented_refusals(self, x, other):
        """The deliberate differences of docs/numpy-differences.md, on any device
        array: no index arrays (6), numbers only (4), and no NumPy arrays in device calls
        (README): each a TypeError."""
        for call in (
            lambda: x.value[np.zeros(x.mirror.shape, np.intp)],
            lambda: x.value.astype("datetime64[D]"),
            lambda: gv.add(x.value, other.value),
        ):
            _, error = attempt(call)
            assert isinstance(error, TypeError), error


def test_numpy_parity_state_machine(backend):
    """The machine, on each backend (the cuda run skips where CUDA cannot run)."""
    run_state_machine_as_test(NumPyParity, settings=RUN_SETTINGS)
