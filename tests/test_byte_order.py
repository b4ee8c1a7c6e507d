"""NumPy data in the other byte order (``">f8"`` on a little-endian machine).

Such an array holds the same numbers as its native twin, and NumPy computes
on it as on the twin. So must gpuvec, on both backends: every op of the op
table, the reductions, dot and norm, copies to and from the device, mask
selection, users' kernels and fused functions. An ``out=`` array in the
other byte order gets the result; an array a user's kernel writes must be
native (a TypeError says so).

Each property draws, for every array operand, the native or the swapped
byte order, and checks the result twice on fresh random data with NaN in
it: bit for bit against the same call on the native twins (the bytes read
as native numbers would be garbage), and against NumPy's function, which
reads either byte order.
"""

import functools
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import random_array
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tolerances import assert_ulp_close, in_domain

import gpuvec
from gpuvec import _core
from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS

# The backend fixture holds for every example of a property.
PROPERTY = settings(
    max_examples=min(12, settings().max_examples),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

DTYPES = [np.dtype(np.float32), np.dtype(np.float64)]
ORDERS = ["native", "swapped"]

# The ops that are plain functions of NumPy's name; those with signatures of
# their own follow below, against references of theirs.
PUBLIC = [row for row in ELEMENTWISE_OPS.values() if row.public and "f" in row.kinds]


def in_order(x, order):
    """``x`` (an array of native byte order) in the byte order ``order``."""
    x = np.asarray(x)
    return x if order == "native" else x.astype(x.dtype.newbyteorder("S"))


def native(x):
    """The native twin of ``x``: the same numbers and layout (a native ``x`` itself:
    another layout may sum in another order)."""
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


def swapped_dtype(dtype):
    return np.dtype(dtype).newbyteorder("S")


@st.composite
def arrays(draw, dtype=None, shape=None, name=None, index=0):
    """Fresh random data (NaN in some), of a drawn dtype, shape, layout and
    byte order; ``name``'s operand ``index`` is mapped into the op's domain."""
    dtype = dtype if dtype is not None else draw(st.sampled_from(DTYPES))
    shape = shape if shape is not None else draw(st.sampled_from([(), (7,), (3, 5)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    data = random_array(rng, shape, np.float64)
    if name is not None:
        data = in_domain(name, index, data)
    data = np.asarray(data).astype(dtype)
    if data.size and draw(st.booleans()):
        data.reshape(-1)[rng.integers(data.size)] = np.nan
    order = draw(st.sampled_from(ORDERS))
    if data.ndim and draw(st.booleans()):  # a strided view: reversed along the last axis
        return in_order(data[..., ::-1].copy(), order)[..., ::-1]
    return in_order(data, order)


def assert_same(result, expected):
    """Bit for bit the same values, dtype and type."""
    assert type(result) is type(expected), (type(result), type(expected))
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.dtype.isnative
    np.testing.assert_array_equal(result, expected)


def assert_close_to_numpy(result, reference, dtype):
    """Within a loose bound of NumPy's reference (rounding order aside), NaN where it is."""
    result, reference = np.asarray(result), np.asarray(reference)
    assert result.shape == reference.shape, (result.shape, reference.shape)
    if result.dtype.kind in "bi":
        np.testing.assert_array_equal(result, reference)
        return
    tol = 1e-4 if dtype == np.float32 else 1e-10
    scale = np.max(np.abs(reference[np.isfinite(reference)]), initial=1.0)
    np.testing.assert_allclose(result, reference, rtol=tol, atol=tol * scale, equal_nan=True)


# -- the elementwise ops of the table ----------------------------------------------------------


@pytest.fixture(params=[pytest.param(row, id=row.name) for row in PUBLIC])
def op(request):
    return request.param


@PROPERTY
@given(data=st.data())
def test_every_op(backend, op, data):
    """Each public op of the table on operands of drawn byte orders, shapes and
    layouts, with or without an ``out=`` of either byte order."""
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(st.sampled_from([(), (7,), (3, 5)]))
    shapes = [data.draw(st.sampled_from([shape, shape[-1:]])) for _ in range(op.arity)]
    args = [data.draw(arrays(dtype, s, op.name, i)) for i, s in enumerate(shapes)]
    function = getattr(gpuvec, op.name)
    with np.errstate(all="ignore"):
        result = function(*args)
        expected = function(*[native(a) for a in args])
        assert_same(result, expected)
        if op.numpy is not None:
            reference = getattr(np, op.numpy)(*args)
            if op.result == "bool":
                np.testing.assert_array_equal(result, reference)
            else:
                float64 = [a.astype(np.float64) for a in args]
                assert_ulp_close(result, getattr(np, op.numpy)(*float64), dtype, op.ulps(backend))
        out_order = data.draw(st.sampled_from([None, *ORDERS]))
        if out_order is not None:
            # A float out takes a truth-value result too (NumPy's same_kind cast).
            out = in_order(np.zeros(np.shape(expected), dtype), out_order)
            assert function(*args, out=out) is out
            np.testing.assert_array_equal(out, np.asarray(expected).astype(dtype))


# The rows with signatures of their own: (gpuvec's call, NumPy's reference),
# each taking the drawn arrays in the row's order of inputs.
OWN_SIGNATURES = {
    "where": (
        lambda c, a, b: gpuvec.where(c > 0, a, b),
        lambda c, a, b: np.where(c > 0, a, b),
    ),
    "clip": (
        lambda x, lo, hi: gpuvec.clip(x, lo, hi),
        lambda x, lo, hi: np.clip(x, lo, hi),
    ),
    "scale": (lambda x: gpuvec.scale(x, 1.5), lambda x: x * 1.5),
    "axpy": (lambda x, y: gpuvec.axpy(1.5, x, y), lambda x, y: 1.5 * x + y),
    "axpby": (
        lambda x, y: gpuvec.axpby(1.5, x, -0.5, y),
        lambda x, y: 1.5 * x - 0.5 * y,
    ),
}


@pytest.mark.parametrize("name", [row.name for row in ELEMENTWISE_OPS.values() if not row.public])
@PROPERTY
@given(data=st.data())
def test_ops_of_their_own_signature(backend, name, data):
    """where, clip and the BLAS-like rows, on operands of drawn byte orders."""
    assert name in OWN_SIGNATURES, f"give tests/test_byte_order.py a reference for {name!r}"
    call, reference = OWN_SIGNATURES[name]
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(st.sampled_from([(7,), (3, 5)]))
    args = [data.draw(arrays(dtype, shape)) for _ in range(ELEMENTWISE_OPS[name].arity)]
    result = call(*args)
    assert_same(result, call(*[native(a) for a in args]))
    assert_close_to_numpy(result, reference(*args), dtype)


# -- reductions, dot and norm ------------------------------------------------------------------

REDUCTIONS = [row for row in REDUCE_OPS.values() if row.public]


@pytest.mark.parametrize("row", [pytest.param(row, id=row.name) for row in REDUCTIONS])
@PROPERTY
@given(data=st.data())
def test_reductions(backend, row, data):
    """Each public reduction of the table, over every axis or one or two."""
    x = data.draw(arrays(shape=data.draw(st.sampled_from([(11,), (4, 6)]))))
    axes = [None, 0, -1] if row.position else [None, 0, -1, (0, -1)]
    axis = data.draw(st.sampled_from(axes if x.ndim > 1 else [None, 0]))
    function = getattr(gpuvec, row.name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN slices warn, as in NumPy
        result = function(x, axis=axis)
        assert_same(result, function(native(x), axis=axis))
        reference = getattr(np, row.numpy)(x, axis=axis)
    assert_close_to_numpy(result, reference, native(x).dtype)


@PROPERTY
@given(data=st.data())
def test_dot_norm_asum(backend, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    x = data.draw(arrays(dtype, (4, 6)))
    y = data.draw(arrays(dtype, (4, 6)))
    axis = data.draw(st.sampled_from([None, 0, 1]))
    cases = [
        (lambda a, b: gpuvec.dot(a, b), lambda a, b: np.vdot(a, b)),
        (lambda a, b: gpuvec.norm(a, axis=axis), lambda a, b: np.linalg.norm(a, axis=axis)),
        (lambda a, b: gpuvec.asum(a, axis=axis), lambda a, b: np.sum(np.abs(a), axis=axis)),
    ]
    for call, reference in cases:
        result = call(x, y)
        assert_same(result, call(native(x), native(y)))
        assert_close_to_numpy(result, reference(x, y), dtype)


# -- copies and masks --------------------------------------------------------------------------


@PROPERTY
@given(x=arrays(), to=st.sampled_from([None, *DTYPES]))
def test_to_device_asarray_to_host(backend, x, to):
    """Copies hold the numbers, in native byte order, whatever the layout."""
    for d in (gpuvec.to_device(x, dtype=to), gpuvec.asarray(x, dtype=to)):
        expected = native(x) if to is None else x.astype(to)
        assert d.dtype == expected.dtype
        host = d.to_host()
        assert host.dtype.isnative
        np.testing.assert_array_equal(host, expected)
        np.testing.assert_array_equal(np.asarray(d), expected)


@PROPERTY
@given(data=st.data())
def test_device_arrays_with_swapped_data(backend, data):
    """A device array made from swapped data computes as NumPy does; so does
    one assigned swapped data."""
    x = data.draw(arrays(shape=(3, 5)))
    d = gpuvec.to_device(x)
    np.testing.assert_array_equal((d * 2 + 1).to_host(), native(x) * 2 + 1)
    y = data.draw(arrays(x.dtype.newbyteorder("="), (3, 5)))
    d[...] = y
    np.testing.assert_array_equal(d.to_host(), y)


@PROPERTY
@given(data=st.data())
def test_mask_select(backend, data):
    """x[mask] and x[mask] = values, where x, the mask's source and the
    values come in drawn byte orders."""
    x = data.draw(arrays(shape=(4, 6)))
    mask = data.draw(arrays(shape=(4, 6))) > 0
    d = gpuvec.to_device(x)
    np.testing.assert_array_equal(d[mask].to_host(), x[mask])
    np.testing.assert_array_equal(d[gpuvec.to_device(mask)].to_host(), x[mask])
    np.testing.assert_array_equal(_core.compress(x, mask), x[mask])
    values = data.draw(arrays(x.dtype.newbyteorder("="), (int(mask.sum()),)))
    expected = native(x).copy()
    expected[mask] = values
    d[mask] = values
    np.testing.assert_array_equal(d.to_host(), expected)
    target = x.copy()  # in its own byte order: written in place
    _core.expand(target, mask, values)
    assert target.dtype == x.dtype
    np.testing.assert_array_equal(target, expected)


def test_dtype_argument_of_either_byte_order(backend):
    """``dtype=">f4"`` names float32: results are native."""
    x = np.arange(5.0)
    assert gpuvec.add(x, 1.0, dtype=">f4").dtype == np.float32
    assert gpuvec.to_device(x, dtype=">f4").dtype == np.float32
    assert gpuvec.zeros(3, dtype=swapped_dtype(np.float64)).dtype == np.float64


# -- users' kernels and fused functions --------------------------------------------------------

_RAW_SOURCE = r"""
extern "C" __global__ void affine(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
"""


@functools.cache
def kernels():
    """The users' kernels of these tests, made once (compiled at their first call)."""
    return SimpleNamespace(
        affine=gpuvec.RawKernel(_RAW_SOURCE, "affine"),
        fma=gpuvec.ElementwiseKernel("T x, T y", "T z", "z = x * y + x", "byte_order_fma"),
        sum_of_squares=gpuvec.ReductionKernel(
            "T x", "T y", "x * x", "a + b", "y = a", "0", "byte_order_sum_of_squares"
        ),
    )


@PROPERTY
@given(x=arrays(np.float32, (33,)))
def test_raw_kernel_reads_swapped_input(backend, x):
    """A const pointer takes a byte-swapped array (read through its native twin)."""
    x = np.ascontiguousarray(x)
    y = np.zeros(x.shape, np.float32)
    kernels().affine(x, y, np.int32(x.size), grid=1, block=64)
    np.testing.assert_array_equal(y, native(x) * np.float32(2) + np.float32(1))


def test_raw_kernel_refuses_swapped_output(backend):
    """A pointer the kernel writes cannot be a converted copy: a TypeError names it."""
    x = np.ones(4, np.float32)
    y = np.zeros(4, swapped_dtype(np.float32))
    with pytest.raises(TypeError, match=r"'y'.*written by the kernel"):
        kernels().affine(x, y, np.int32(4), grid=1, block=4)


@PROPERTY
@given(data=st.data())
def test_elementwise_and_reduction_kernels(backend, data):
    """A user's ElementwiseKernel and ReductionKernel on drawn byte orders."""
    dtype = data.draw(st.sampled_from(DTYPES))
    x = data.draw(arrays(dtype, (3, 5)))
    y = data.draw(arrays(dtype, (5,)))
    k = kernels()
    result = k.fma(x, y)
    assert_same(result, k.fma(native(x), native(y)))
    assert_close_to_numpy(result, x * y + x, dtype)
    axis = data.draw(st.sampled_from([None, 0, 1]))
    total = k.sum_of_squares(x, axis=axis)
    assert_same(total, k.sum_of_squares(native(x), axis=axis))
    assert_close_to_numpy(total, np.sum(native(x) ** 2, axis=axis), dtype)


def test_elementwise_kernel_refuses_swapped_out(backend):
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match=r"out .*byte order"):
        kernels().fma(x, x, out=np.zeros(3, swapped_dtype(np.float32)))


@gpuvec.fuse
def _fused(x, y):
    return gpuvec.exp(x / 8) * y + gpuvec.sqrt(gpuvec.abs(y))


@PROPERTY
@given(data=st.data())
def test_fuse(backend, data):
    """A fused function on drawn byte orders computes as on native data (which
    runs fused, where swapped data may run op by op: the bits of exp may differ)."""
    dtype = data.draw(st.sampled_from(DTYPES))
    x = data.draw(arrays(dtype, (3, 5)))
    y = data.draw(arrays(dtype, (3, 5)))
    result = _fused(x, y)
    assert result.dtype == dtype
    with np.errstate(all="ignore"):
        reference = np.exp(x / 8) * y + np.sqrt(np.abs(y))
    assert_close_to_numpy(result, _fused(native(x), native(y)), dtype)
    assert_close_to_numpy(result, reference, dtype)
