"""Every public op of gpuvec's op table against NumPy's function of the same name.

The parameters come from the op table (``csrc/include/gpuvec/op_table.h``) as
:mod:`gpuvec._table` names its rows, which the compiled core hands over
(``_core.elementwise_ops()``, ``_core.reduce_ops()``). Each elementwise row
with no parameters and arity 1 or 2 is a public function ``gpuvec.<name>``;
those of the compute dtype are compared here with NumPy's function of the
row's numpy column (``sigmoid``, which NumPy lacks, with
``1 / (1 + exp(-x))`` in float64), the truth-value ones in
tests/test_bool_arrays.py. Correctly rounded rows (rounding EXACT) must give
NumPy's bits; the others must be within the row's ulp budget of the running
backend. A new row is tested without a change here.
"""

import inspect
import math
import re

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, random_array
from tolerances import assert_ulp_close, in_domain, ulps

import gpuvec
from gpuvec import _core
from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS, TRAITS

DTYPES = [np.float32, np.float64]

ELEMENTWISE_ROWS = [tuple(row) for row in _core.elementwise_ops()]
REDUCE_ROWS = [tuple(row) for row in _core.reduce_ops()]

# The public elementwise functions of the compute dtype that compute in
# floats (the integer-only rows, bit ops and gcd, are tests/test_integer_ops.py's).
PUBLIC = [
    row
    for row in ELEMENTWISE_OPS.values()
    if row.public and row.result is None and "f" in row.kinds
]


def _params(arities):
    ops = [pytest.param(op, id=op.name) for op in PUBLIC if op.arity in arities]
    arity = "-or-".join(map(str, arities))
    return ops or [pytest.param(None, id=f"no-public-op-of-arity-{arity}")]


def _given(request):
    if request.param is None:
        pytest.fail("no such op in the table")
    return request.param


@pytest.fixture(params=_params((1, 2)))
def op(request):
    """Each public elementwise op of the table."""
    return _given(request)


@pytest.fixture(params=_params((1,)))
def unary_op(request):
    return _given(request)


@pytest.fixture(params=_params((2,)))
def binary_op(request):
    return _given(request)


def function(op):
    f = getattr(gpuvec, op.name, None)
    assert callable(f), f"the op table lists {op.name!r}, but gpuvec.{op.name} does not exist"
    return f


# -- references ----------------------------------------------------------------------------


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# The references of the rows NumPy has no function for.
TWINS = {"sigmoid": sigmoid}


def numpy_twin(name):
    row = ELEMENTWISE_OPS[name]
    if row.numpy is None:
        assert name in TWINS, f"numpy has no {name!r}: give tests/test_op_table.py a reference"
        return TWINS[name]
    twin = getattr(np, row.numpy, None)
    assert twin is not None, f"numpy has no {row.numpy!r} to compare gpuvec.{name} with"
    return twin


def check(name, result, args, dtype):
    """``result`` is NumPy's ``name`` of ``args`` (arrays or scalars) in ``dtype``.

    The inputs are first cast to the compute dtype, as gpuvec does. Correctly
    rounded ops must then equal NumPy run in that dtype; the others must be
    within their ulp budget on the running backend (the op table's host_ulps
    or cuda_ulps) of NumPy in float64.
    """
    result = np.asarray(result)
    assert result.dtype == dtype, (result.dtype, dtype)
    cast = [np.asarray(a, dtype) for a in args]
    twin = numpy_twin(name)
    with np.errstate(all="ignore"):
        if ELEMENTWISE_OPS[name].exact:
            expected = np.asarray(twin(*cast))
            assert expected.dtype == dtype
            assert result.shape == expected.shape, (result.shape, expected.shape)
            np.testing.assert_array_equal(result, expected)
        else:
            reference = twin(*[c.astype(np.float64) for c in cast])
            assert_ulp_close(result, reference, dtype, ulps(name, gpuvec.backend()))


# -- inputs ---------------------------------------------------------------------------------


def operand(rng, name, i, shape, dtype):
    """Fresh random data for operand ``i`` of op ``name``, in its domain."""
    return in_domain(name, i, random_array(rng, shape, np.float64)).astype(dtype)


def operands(rng, op, shape, dtype):
    return [operand(rng, op.name, i, shape, dtype) for i in range(op.arity)]


def scalar_in_domain(rng, name, i):
    """A Python float in the domain of operand ``i``, not 0."""
    return float(operand(rng, name, i, (), np.float64)) or 1.5


# -- the tables -----------------------------------------------------------------------------

EXISTING = {
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "maximum",
    "minimum",
    "hypot",
    "negative",
    "sqrt",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
}
NEW = {"tan", "arcsin", "arccos", "arctan", "floor", "ceil", "round", "sign", "trunc"}
REDUCTIONS = {"sum", "mean", "min", "max", "argmin", "argmax", "prod", "var", "std"}
REDUCTIONS |= {"any", "all", "count_nonzero"}
# The results that are not of the compute dtype.
RESULT_DTYPES = {
    "argmin": "int64",
    "argmax": "int64",
    "count_nonzero": "int64",
    "any": "bool",
    "all": "bool",
}
# Op codes are part of the C ABI: once given, an op keeps its code. Those of
# the first release, which no edit of the table may change.
CODES = {
    "add": 1,
    "subtract": 2,
    "multiply": 3,
    "divide": 4,
    "power": 5,
    "sqrt": 12,
    "exp": 13,
    "trunc": 29,
    "equal": 30,
    "logical_not": 39,
    "scale": 43,
    "where": 47,
}
REDUCE_CODES = {"sum": 1, "mean": 2, "argmax": 6, "var": 8, "dot": 16, "count_nonzero": 19}


@pytest.mark.parametrize("getter", ["elementwise_ops", "reduce_ops"])
def test_table_rows(getter):
    rows = {"elementwise_ops": ELEMENTWISE_ROWS, "reduce_ops": REDUCE_ROWS}[getter]
    assert rows, f"gpuvec._core.{getter}() is empty"
    for row in rows:
        assert len(row) == 16, row
        code, name, arity, params, summary, result, truth, numpy, functor = row[:9]
        exact, host_ulps, cuda_ulps, ufunc, traits, warning, kinds = row[9:]
        assert isinstance(code, int), row
        assert 0 < code < 128, row
        assert isinstance(name, str), row
        assert name.isidentifier(), row
        assert isinstance(arity, int), row
        assert arity >= 1, row
        assert isinstance(params, int), row
        assert params >= 0, row
        assert result in (None, "bool", "int64", "uint8"), row
        assert isinstance(summary, str), row
        assert summary, row
        assert summary.strip() == summary, row
        assert isinstance(truth, bool), row
        assert functor.isidentifier(), row
        assert numpy == "" or all(part.isidentifier() for part in numpy.split(".")), row
        assert isinstance(exact, bool), row
        assert host_ulps >= 0, row
        assert cuda_ulps >= 0, row
        if exact:  # correctly rounded: no ulp to spend
            assert host_ulps == cuda_ulps == 0, row
        assert ufunc == "" or ufunc.isidentifier(), row
        assert set(traits.split()) <= TRAITS, row
        assert isinstance(warning, str), row
        if getter == "elementwise_ops":
            assert kinds, row
            assert set(kinds) <= set("fiubc"), row
        else:
            assert kinds == "", row
    names = [row[1] for row in rows]
    assert len(names) == len(set(names)), f"names listed twice: {names}"
    codes = [row[0] for row in rows]
    assert len(codes) == len(set(codes)), f"codes given twice: {sorted(codes)}"


def test_codes_are_stable():
    assert {name: ELEMENTWISE_OPS[name].code for name in CODES} == CODES
    assert {name: REDUCE_OPS[name].code for name in REDUCE_CODES} == REDUCE_CODES


def test_numpy_names_are_numpys(op):
    """The numpy column names a NumPy function (its ufunc, for the plain ops)."""
    if op.numpy is None:
        assert op.name in TWINS, op.name
        return
    assert isinstance(getattr(np, op.numpy, None), np.ufunc), op.numpy


def test_reduce_rows_name_numpys_functions():
    for row in REDUCE_OPS.values():
        target = np
        for part in (row.numpy or "").split(".") if row.numpy else []:
            target = getattr(target, part, None)
        assert row.numpy is None or callable(target), (row.name, row.numpy)
        assert row.ufunc is None or isinstance(getattr(np, row.ufunc, None), np.ufunc), row
        if row.public:
            f = getattr(gpuvec, row.name, None)
            assert callable(f), f"the op table lists {row.name!r}, but gpuvec lacks it"
            assert f.__doc__.startswith(row.summary), (row.name, f.__doc__[:80])
        if row.no_empty and not row.position:
            assert row.ufunc is not None, f"{row.name}'s error for no elements names its ufunc"


def test_elementwise_table_lists_the_ops():
    public = {op.name for op in PUBLIC}
    assert EXISTING <= public, f"missing: {sorted(EXISTING - public)}"
    assert NEW <= public, f"missing: {sorted(NEW - public)}"
    assert public & {"abs", "absolute"}, "absolute value missing"
    assert public & {"atan2", "arctan2"}, "atan2 missing"
    unary = {op.name for op in PUBLIC if op.arity == 1}
    assert NEW <= unary
    for row in ELEMENTWISE_OPS.values():
        if row.name in ("where", "clip"):
            assert row.arity == 3, row


def test_reduce_table():
    names = set(REDUCE_OPS)
    assert REDUCTIONS <= names, f"missing: {sorted(REDUCTIONS - names)}"
    for row in REDUCE_ROWS:
        name, params, result = row[1], row[3], row[5]
        # int64 for positions and counts, bool for truth values, None (the
        # compute dtype) for the rest; no reduction has parameters.
        assert result == RESULT_DTYPES.get(name), (name, result)
        assert params == 0, (name, params)


# -- the public functions -------------------------------------------------------------------


def test_signature(op):
    kind, keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
    inputs = ["x"] if op.arity == 1 else ["a", "b"]
    expected = [(name, kind, inspect.Parameter.empty) for name in inputs]
    expected += [("out", kind, None), ("dtype", kind, None)]
    expected += [("threads_per_block", keyword, None), ("stream", keyword, None)]
    parameters = inspect.signature(function(op)).parameters.values()
    assert [(p.name, p.kind, p.default) for p in parameters] == expected


def test_docstring(op):
    doc = inspect.getdoc(function(op))
    assert doc, f"gpuvec.{op.name} has no docstring"
    # The summary line is the table's, then which NumPy function it follows.
    like = f", like :func:`numpy.{op.numpy}`." if op.numpy else "."
    assert doc.splitlines()[0] == op.summary + like
    for section in ("Parameters", "Returns", "Examples"):
        assert re.search(rf"^{section}\n-{{{len(section)}}}$", doc, re.M), (op.name, section)
    # The names in the Parameters section: its unindented lines, "name : type",
    # "a, b : type" or "out, dtype, stream" (as for gpuvec.add).
    section = re.split(r"\n\w[\w ]*\n-+\n", doc.split("Parameters\n----------\n", 1)[1])[0]
    lines = [line for line in section.splitlines() if line and not line[0].isspace()]
    documented = {n.strip() for line in lines for n in line.split(" :")[0].split(",")}
    inputs = {"x"} if op.arity == 1 else {"a", "b"}
    missing = (inputs | {"out", "dtype", "threads_per_block", "stream"}) - documented
    assert not missing, f"gpuvec.{op.name} does not document {sorted(missing)}"


# -- values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sizes(backend, rng, op, dtype, n):
    args = operands(rng, op, n, dtype)
    check(op.name, function(op)(*args), args, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (0, 4, 1)])
def test_zero_d_and_empty(backend, rng, op, dtype, shape):
    args = operands(rng, op, shape, dtype)
    result = function(op)(*args)
    assert np.shape(result) == shape
    check(op.name, result, args, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_d_with_arrays(backend, rng, binary_op, dtype):
    for shapes in [((), (7,)), ((5, 3), ()), ((0,), ()), ((), (0, 2))]:
        args = [operand(rng, binary_op.name, i, s, dtype) for i, s in enumerate(shapes)]
        result = function(binary_op)(*args)
        assert np.shape(result) == np.broadcast_shapes(*shapes)
        check(binary_op.name, result, args, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts(backend, rng, op, dtype, layout):
    """Negative, gapped and swapped strides, Fortran order and 0-d, in every operand."""
    view, base_shape = LAYOUTS[layout]
    args = [view(operand(rng, op.name, i, base_shape, dtype)) for i in range(op.arity)]
    if layout not in ("contiguous", "2d-c", "0d"):
        assert not any(a.flags.c_contiguous for a in args)  # the layout is really strided
    check(op.name, function(op)(*args), args, dtype)
    if op.arity == 2:  # one operand strided, the other a fresh contiguous array
        mixed = [args[0], operand(rng, op.name, 1, args[0].shape, dtype)]
        check(op.name, function(op)(*mixed), mixed, dtype)
        mixed = [operand(rng, op.name, 0, args[1].shape, dtype), args[1]]
        check(op.name, function(op)(*mixed), mixed, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_strides(backend, rng, op, dtype):
    row = operands(rng, op, (1, 9), dtype)
    column = operands(rng, op, (13, 1), dtype)
    one = operands(rng, op, (), dtype)
    for args in (
        [np.broadcast_to(a, (13, 9)) for a in row],
        [np.broadcast_to(a, (13, 9)) for a in column],
        [np.broadcast_to(a, (1001,)) for a in one],
    ):
        assert 0 in args[0].strides
        check(op.name, function(op)(*args), args, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_read_only_inputs_are_not_modified(backend, rng, op, dtype):
    args = [a[::-1] for a in operands(rng, op, (31, 9), dtype)]
    for a in args:
        a.flags.writeable = False
    copies = [a.copy() for a in args]
    check(op.name, function(op)(*args), args, dtype)
    for a, c in zip(args, copies, strict=True):
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fortran_order(backend, rng, op, dtype):
    args = [np.asfortranarray(a) for a in operands(rng, op, (37, 5, 3), dtype)]
    assert args[0].flags.f_contiguous
    assert not args[0].flags.c_contiguous
    result = function(op)(*args)
    check(op.name, result, args, dtype)


SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 1e-30, 30.0, 1e30]


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_and_inf(backend, op, dtype):
    values = np.array([*SPECIAL, np.finfo(dtype).max, -np.finfo(dtype).max], dtype)
    if op.arity == 1:
        args = [values]
    else:  # every pair of values, in both orders
        a, b = np.meshgrid(values, values)
        args = [a, b]
    result = function(op)(*args)
    check(op.name, result, args, dtype)  # NaN and inf exactly where NumPy has them


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_argument(backend, rng, op, dtype):
    other = np.float64 if dtype == np.float32 else np.float32
    args = operands(rng, op, 257, other)
    result = function(op)(*args, dtype=dtype)
    check(op.name, result, args, dtype)  # computed on the inputs cast to dtype


# -- binary ops: scalars and broadcasting ----------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["python-float", "numpy-float32"])
def test_scalars_on_either_side(backend, rng, binary_op, dtype, kind):
    f, name = function(binary_op), binary_op.name
    make = float if kind == "python-float" else np.float32
    for side in (0, 1):
        array = operand(rng, name, 1 - side, 1025, dtype)
        scalar = make(scalar_in_domain(rng, name, side))
        args = [scalar, array] if side == 0 else [array, scalar]
        # NumPy's rules: a Python float is weak, a NumPy float32 scalar counts.
        expected_dtype = np.result_type(*args)
        check(name, f(*args), args, expected_dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcasting(backend, rng, binary_op, dtype):
    f, name = function(binary_op), binary_op.name
    for shapes in [((5, 1), (1, 7)), ((13, 17), (13, 1)), ((13, 1), (13, 17)), ((3, 1, 7), (7,))]:
        args = [operand(rng, name, i, s, dtype) for i, s in enumerate(shapes)]
        result = f(*args)
        assert np.shape(result) == np.broadcast_shapes(*shapes)
        check(name, result, args, dtype)


def test_mixed_dtypes(backend, rng, binary_op):
    name = binary_op.name
    for first, second in [(np.float32, np.float64), (np.float64, np.float32)]:
        a = operand(rng, name, 0, (6, 5), first)
        b = operand(rng, name, 1, (6, 5), second)
        check(name, function(binary_op)(a, b), [a, b], np.float64)


# -- out= -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_poisoned_out(backend, rng, op, dtype):
    f = function(op)
    args = operands(rng, op, (33, 65), dtype)
    out = np.full((33, 65), np.nan, dtype)
    assert f(*args, out=out) is out
    check(op.name, out, args, dtype)
    # A strided out: the gaps between its elements keep their poison.
    base = np.full((33, 130), np.nan, dtype)
    strided = base[:, ::2]
    assert f(*args, out=strided) is strided
    np.testing.assert_array_equal(strided, out)
    assert np.isnan(base[:, 1::2]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_is_an_input(backend, rng, op, dtype):
    f = function(op)
    for i in range(op.arity):
        args = operands(rng, op, (17, 31), dtype)
        expected = f(*args)
        check(op.name, expected, args, dtype)
        assert f(*args, out=args[i]) is args[i]  # in place
        np.testing.assert_array_equal(args[i], expected)


def test_out_with_broadcasting(backend, rng, binary_op):
    name = binary_op.name
    a = operand(rng, name, 0, (5, 1), np.float64)
    b = operand(rng, name, 1, (1, 7), np.float64)
    out = np.full((5, 7), np.nan)
    assert function(binary_op)(a, b, out=out) is out
    check(name, out, [a, b], np.float64)


# -- device arrays --------------------------------------------------------------------------


def views(d):
    """A device array and strided views of it: reversed, and transposed."""
    return [d, d[::-1], d.T]


@pytest.mark.parametrize("dtype", DTYPES)
def test_device_arrays(backend, rng, op, dtype):
    f = function(op)
    hosts = operands(rng, op, (37, 11), dtype)
    devices = [gpuvec.to_device(x) for x in hosts]
    for k in range(3):
        args = [views(d)[k] for d in devices]
        expected_args = [views(x)[k] for x in hosts]
        result = f(*args)
        assert isinstance(result, gpuvec.DeviceArray), type(result)
        check(op.name, result.to_host(), expected_args, dtype)
    for x, d in zip(hosts, devices, strict=True):
        np.testing.assert_array_equal(d.to_host(), x)  # inputs untouched


@pytest.mark.parametrize("dtype", DTYPES)
def test_device_arrays_zero_d_empty_and_odd_sizes(backend, rng, op, dtype):
    for shape in [(), (0,), (1,), (127,), (4099,)]:
        hosts = operands(rng, op, shape, dtype)
        result = function(op)(*[gpuvec.to_device(x) for x in hosts])
        assert isinstance(result, gpuvec.DeviceArray)
        assert result.shape == shape
        check(op.name, result.to_host(), hosts, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_device_out_poisoned_and_in_place(backend, rng, op, dtype):
    f = function(op)
    hosts = operands(rng, op, (9, 65), dtype)
    devices = [gpuvec.to_device(x) for x in hosts]
    out = gpuvec.full((9, 65), np.nan, dtype)
    assert f(*devices, out=out) is out
    check(op.name, out.to_host(), hosts, dtype)
    expected = out.to_host()
    for i in range(op.arity):
        devices = [gpuvec.to_device(x) for x in hosts]
        assert f(*devices, out=devices[i]) is devices[i]
        np.testing.assert_array_equal(devices[i].to_host(), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_device_arrays_with_scalars_and_broadcasting(backend, rng, binary_op, dtype):
    f, name = function(binary_op), binary_op.name
    for side in (0, 1):
        x = operand(rng, name, 1 - side, 1001, dtype)
        scalar = scalar_in_domain(rng, name, side)
        d = gpuvec.to_device(x)
        result = f(scalar, d) if side == 0 else f(d, scalar)
        assert isinstance(result, gpuvec.DeviceArray)
        check(name, result.to_host(), [scalar, x] if side == 0 else [x, scalar], dtype)
    a = operand(rng, name, 0, (5, 1), dtype)
    b = operand(rng, name, 1, (1, 7), dtype)
    result = f(gpuvec.to_device(a), gpuvec.to_device(b))
    assert result.shape == (5, 7)
    check(name, result.to_host(), [a, b], dtype)
    rows = operand(rng, name, 0, (13, 17), dtype)
    kept = operand(rng, name, 1, (13, 1), dtype)  # a keepdims-shaped operand
    result = f(gpuvec.to_device(rows), gpuvec.to_device(kept))
    check(name, result.to_host(), [rows, kept], dtype)


# -- semantics worth a name -----------------------------------------------------------------


def public(name):
    f = getattr(gpuvec, name, None)
    assert callable(f), f"gpuvec.{name} does not exist"
    return f


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_is_half_to_even(backend, rng, dtype):
    k = rng.permutation(np.arange(-40, 41))
    ties = (k + 0.5).astype(dtype)
    big = 2.0 ** (np.finfo(dtype).nmant - 1)  # from here on, the halves are the last ones
    x = np.concatenate([ties, np.array([big - 0.5, big + 0.5, -big - 0.5], dtype)])
    result = public("round")(x)
    check("round", result, [x], dtype)
    # And independently of NumPy: a tie goes to the even neighbour.
    low = np.floor(x)
    even = np.where(np.fmod(low, 2) == 0, low, low + 1)
    np.testing.assert_array_equal(result, even)
    near = np.nextafter(ties, np.inf * np.sign(ties))  # just past a tie, away from zero
    away = np.where(near > 0, low[: ties.size] + 1, low[: ties.size])
    np.testing.assert_array_equal(public("round")(near), away)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sign(backend, rng, dtype):
    x = np.array([np.nan, -np.inf, np.inf, -3.0, 2.5, 1e-30, -1e-30, 0.0], dtype)
    result = public("sign")(x)
    check("sign", result, [x], dtype)
    assert np.isnan(result[0]), "sign(nan) must be nan"
    numbers = x[1:]
    np.testing.assert_array_equal(result[1:], (numbers > 0).astype(dtype) - (numbers < 0))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_maximum_minimum_propagate_nan(backend, rng, name, dtype):
    a, b = random_array(rng, 1001, dtype), random_array(rng, 1001, dtype)
    a[::7], b[::5] = np.nan, np.nan  # NaN in a, in b, and in both (every 35th)
    for x, y in ((a, b), (b, a)):
        result = public(name)(x, y)
        check(name, result, [x, y], dtype)
        nan = np.isnan(x) | np.isnan(y)
        assert np.isnan(result[nan]).all()
        assert not np.isnan(result[~nan]).any()
    scalar = public(name)(a, math.nan)
    assert np.isnan(scalar).all()
