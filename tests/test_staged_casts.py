"""Host data of one float dtype in ops that compute in the other.

float64 NumPy data in a float32 op (``dtype=np.float32`` or
``gpuvec.precision("float32")``), and float32 data in a float64 op. On the
cuda backend the conversion happens in the copy that stages the data for the
device (gpuvec/staged.h), so only compute-dtype bytes cross the bus; on the
host backend the core converts the data before it computes. Either way the
result must be NumPy's on the converted data.
"""

import numpy as np
import pytest
from conftest import LAYOUTS, random_array
from tolerances import ULPS, assert_sum_close, assert_ulp_close

import gpuvec
from gpuvec import _core

f32, f64 = np.float32, np.float64

# (dtype of the data, dtype of the op, how the op's dtype is asked for)
CONVERSIONS = [
    (f64, f32, "dtype"),
    (f64, f32, "precision"),
    (f32, f64, "dtype"),
    (f32, f64, "precision"),
]

# Odd sizes: empty, one element, a prime, 2^k - 1 and 2^k + 1, and more than
# one 4 MiB staging chunk (1_048_576 float32 or 524_288 float64 elements),
# ending in a partial chunk.
SIZES = [0, 1, 2, 31, 1023, 1025, 65537, 1_500_007]

# More chunks than staging slots (3), so that slots are reused.
MANY_CHUNKS = (1 << 22) + 7

# conftest's layouts, and broadcast operands (stride 0).
ALL_LAYOUTS = {
    **LAYOUTS,
    "broadcast-rows": (lambda a: np.broadcast_to(a, (7, len(a))), (301,)),
    "broadcast-column": (lambda a: np.broadcast_to(a[::-1, None], (len(a), 5)), (203,)),
    "fortran-reversed-step": (lambda a: np.asfortranarray(a)[::-1, ::-2], (37, 41)),
}


@pytest.fixture(params=CONVERSIONS, ids=lambda c: f"{np.dtype(c[0])}-in-{np.dtype(c[1])}-{c[2]}")
def conversion(request):
    """(dtype of the data, dtype of the op, "dtype" or "precision")."""
    return request.param


def call(op, compute, how, *args, **kwargs):
    """``op(*args, **kwargs)`` computing in ``compute``: by ``dtype=``, or in a precision block."""
    if how == "dtype":
        return op(*args, dtype=compute, **kwargs)
    with gpuvec.precision(np.dtype(compute).name):
        return op(*args, **kwargs)


def strided(rng, layout, dtype, domain=lambda a: a):
    """Random data of ``dtype``, mapped by ``domain``, seen through ``layout``."""
    view, base_shape = ALL_LAYOUTS[layout]
    return view(domain(random_array(rng, base_shape, dtype)))


def row_of(rng, like, dtype):
    """Random data that broadcasts along the rows of ``like``: one reversed row (0-d for 0-d)."""
    if like.ndim == 0:
        return random_array(rng, (), dtype)
    return random_array(rng, like.shape[-1], dtype)[::-1]


def poisoned(shape, dtype):
    """An ``out=`` array that shows any element the op leaves unwritten."""
    return np.full(shape, np.nan, dtype)


# -- the unary family ---------------------------------------------------------------------------

# name: (the float64 reference, a map from random data into a range where the op is finite)
UNARY = {
    "sqrt": (np.sqrt, np.abs),
    "exp": (np.exp, lambda x: x / x.dtype.type(4)),
}


def check_unary(name, result, x, compute):
    reference = UNARY[name][0](np.asarray(x).astype(compute).astype(f64))
    assert_ulp_close(result, reference, compute, ULPS[name])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("n", SIZES)
def test_unary_sizes(backend, rng, conversion, name, n):
    source, compute, how = conversion
    x = UNARY[name][1](random_array(rng, n, source))
    out = poisoned(n, compute)
    assert call(getattr(gpuvec, name), compute, how, x, out=out) is out
    check_unary(name, out, x, compute)
    check_unary(name, call(getattr(gpuvec, name), compute, how, x), x, compute)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_unary_layouts(backend, rng, conversion, name, layout):
    source, compute, how = conversion
    x = strided(rng, layout, source, UNARY[name][1])
    check_unary(name, call(getattr(gpuvec, name), compute, how, x), x, compute)


# -- axpby ---------------------------------------------------------------------------------------


def axpby_reference(alpha, x, beta, y, compute):
    """Both products and the sum rounded to ``compute``, as the kernels do (never fused)."""
    x, y = np.asarray(x).astype(compute), np.asarray(y).astype(compute)
    return compute(alpha) * x + compute(beta) * y


@pytest.mark.parametrize("n", SIZES)
def test_axpby_sizes(backend, rng, conversion, n):
    source, compute, how = conversion
    x, y = random_array(rng, n, source), random_array(rng, n, source)
    out = poisoned(n, compute)
    assert call(gpuvec.axpby, compute, how, 1.5, x, -0.25, y, out=out) is out
    np.testing.assert_array_equal(out, axpby_reference(1.5, x, -0.25, y, compute))


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_axpby_layouts(backend, rng, conversion, layout):
    source, compute, how = conversion
    x, y = strided(rng, layout, source), strided(rng, layout, source)
    result = call(gpuvec.axpby, compute, how, 2.0, x, 3.0, y)
    assert np.asarray(result).dtype == compute
    np.testing.assert_array_equal(result, axpby_reference(2.0, x, 3.0, y, compute))


def test_axpby_broadcast_operands_of_both_dtypes(backend, rng, conversion):
    source, compute, how = conversion
    x = random_array(rng, (7, 1), source)[::-1]
    y = random_array(rng, 2 * 301, compute)[::2]  # already in the compute dtype
    out = poisoned((7, 301), compute)
    call(gpuvec.axpby, compute, how, -1.0, x, 0.5, y, out=out)
    np.testing.assert_array_equal(out, axpby_reference(-1.0, x, 0.5, y, compute))


# -- clip and where ------------------------------------------------------------------------------


def clip_reference(x, lo, hi, compute):
    as_compute = [np.asarray(v).astype(compute) for v in (x, lo, hi)]
    return np.minimum(np.maximum(as_compute[0], as_compute[1]), as_compute[2])


@pytest.mark.parametrize("n", SIZES)
def test_clip_sizes(backend, rng, conversion, n):
    source, compute, how = conversion
    x = random_array(rng, n, source)
    out = poisoned(n, compute)
    assert call(gpuvec.clip, compute, how, x, -5.0, 5.0, out=out) is out
    np.testing.assert_array_equal(out, clip_reference(x, -5.0, 5.0, compute))


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_clip_layouts(backend, rng, conversion, layout):
    source, compute, how = conversion
    x = strided(rng, layout, source)
    lo = -np.abs(row_of(rng, x, source))
    hi = np.asarray(3.0, source)
    result = call(gpuvec.clip, compute, how, x, lo, hi)
    assert np.asarray(result).dtype == compute
    np.testing.assert_array_equal(result, clip_reference(x, lo, hi, compute))


@pytest.mark.parametrize("n", SIZES)
def test_where_sizes(backend, rng, conversion, n):
    source, compute, how = conversion
    cond = rng.random(n) < 0.5
    a, b = random_array(rng, n, source), random_array(rng, n, source)
    out = poisoned(n, compute)
    assert call(gpuvec.where, compute, how, cond, a, b, out=out) is out
    np.testing.assert_array_equal(out, np.where(cond, a.astype(compute), b.astype(compute)))


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_where_layouts(backend, rng, conversion, layout):
    source, compute, how = conversion
    a = strided(rng, layout, source)
    cond = strided(rng, layout, f64) > 0
    b = row_of(rng, a, source)
    result = call(gpuvec.where, compute, how, cond, a, b)
    assert np.asarray(result).dtype == compute
    np.testing.assert_array_equal(result, np.where(cond, a.astype(compute), b.astype(compute)))


@pytest.mark.parametrize(("source", "compute"), [(f64, f32), (f32, f64)])
def test_many_chunks(backend, rng, source, compute):
    x = random_array(rng, MANY_CHUNKS, source)
    check_unary("exp", gpuvec.exp(x / source(4), dtype=compute), x / source(4), compute)
    np.testing.assert_array_equal(
        gpuvec.clip(x, -5.0, 5.0, dtype=compute), clip_reference(x, -5.0, 5.0, compute)
    )
    np.testing.assert_array_equal(gpuvec.to_device(x, compute).to_host(), x.astype(compute))


# -- reductions over axes ------------------------------------------------------------------------

REDUCTIONS = ["sum", "mean", "max", "argmax"]


def check_reduction(name, result, x, axis, keepdims, compute):
    """Against NumPy in float64 on the data converted to ``compute``."""
    x64 = np.asarray(x).astype(compute).astype(f64)
    expected = np.asarray(getattr(np, name)(x64, axis=axis, keepdims=keepdims))
    if axis is None and not keepdims:
        assert isinstance(result, int if name == "argmax" else float), type(result)
    else:
        assert np.asarray(result).dtype == (np.int64 if name == "argmax" else compute)
    result = np.asarray(result)
    assert result.shape == expected.shape
    if name in ("max", "argmax"):  # exact: ties broken by the converted values, as here
        np.testing.assert_array_equal(result, expected)
        return
    n = x64.size // max(expected.size, 1)
    magnitude = np.sum(np.abs(x64), axis=axis, keepdims=keepdims)
    if name == "mean":
        magnitude = magnitude / max(n, 1)
    assert_sum_close(result, expected, magnitude, compute, n)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (37, 41), (1031, 1459)])
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(backend, rng, conversion, name, shape, axis, keepdims):
    source, compute, how = conversion
    x = random_array(rng, shape, source)
    result = call(getattr(gpuvec, name), compute, how, x, axis=axis, keepdims=keepdims)
    check_reduction(name, result, x, axis, keepdims, compute)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("layout", [k for k in ALL_LAYOUTS if k != "0d"])
def test_reduction_layouts(backend, rng, conversion, name, layout):
    source, compute, how = conversion
    x = strided(rng, layout, source)
    for axis, keepdims in [(0, False), (-1, False), (None, False), (0, True)]:
        result = call(getattr(gpuvec, name), compute, how, x, axis=axis, keepdims=keepdims)
        check_reduction(name, result, x, axis, keepdims, compute)


def test_reductions_of_nothing_and_of_one(backend, conversion):
    source, compute, how = conversion
    empty = np.zeros((0, 5), source)
    for axis in (0, 1):
        result = call(gpuvec.sum, compute, how, empty, axis=axis)
        assert result.dtype == compute
        np.testing.assert_array_equal(result, np.zeros(5 if axis == 0 else 0))
    one = np.full((1, 1), 1 / 3, source)
    for name in REDUCTIONS:
        for axis in (0, None):
            result = call(getattr(gpuvec, name), compute, how, one, axis=axis)
            check_reduction(name, result, one, axis, False, compute)


# -- to_device -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_to_device_sizes(backend, rng, conversion, n):
    source, compute, how = conversion
    x = random_array(rng, n, source)
    d = call(gpuvec.to_device, compute, how, x)
    assert (d.dtype, d.shape) == (compute, x.shape)
    np.testing.assert_array_equal(d.to_host(), x.astype(compute))


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
def test_to_device_layouts(backend, rng, conversion, layout):
    source, compute, how = conversion
    x = strided(rng, layout, source)
    d = call(gpuvec.to_device, compute, how, x)
    host = d.to_host()
    assert (host.dtype, host.shape) == (compute, x.shape)
    assert host.flags.c_contiguous
    np.testing.assert_array_equal(host, x.astype(compute))


@pytest.mark.parametrize("compute", [f32, f64])
def test_to_device_converts_other_dtypes_first(backend, compute):
    for x in (np.arange(-3, 4), np.array([True, False]), np.linspace(0, 1, 5, dtype=np.float16)):
        d = gpuvec.to_device(x[::-1], compute)
        assert d.dtype == compute
        np.testing.assert_array_equal(d.to_host(), x[::-1].astype(compute))


# -- what crosses the bus ------------------------------------------------------------------------


def moved(run):
    """``run()``, and the bytes it copied (to the device, to the host)."""
    before = _core.transfer_counts()
    result = run()
    after = _core.transfer_counts()
    return result, (after[0] - before[0], after[1] - before[1])


def test_only_compute_dtype_bytes_cross_the_bus(backend, rng, conversion):
    if backend != "cuda":
        pytest.skip("only the cuda backend copies data between host and device")
    source, compute, how = conversion
    size = np.dtype(compute).itemsize
    n = 1_500_007
    x = random_array(rng, n, source)

    d, bytes_moved = moved(lambda: call(gpuvec.to_device, compute, how, x))
    assert bytes_moved == (n * size, 0)
    # A strided source is gathered on the host: only its elements cross.
    view = x[::-2]
    _, bytes_moved = moved(lambda: call(gpuvec.to_device, compute, how, view))
    assert bytes_moved == (view.size * size, 0)
    _, bytes_moved = moved(d.to_host)
    assert bytes_moved == (0, n * size)

    # Streamed through the staging pipeline: x in, the result out.
    _, bytes_moved = moved(lambda: call(gpuvec.exp, compute, how, x))
    assert bytes_moved == (n * size, n * size)
    # Streamed too: x in, the result out; the two bounds travel as kernel
    # arguments, not as memory.
    _, bytes_moved = moved(lambda: call(gpuvec.clip, compute, how, x, -1.0, 1.0))
    assert bytes_moved == (n * size, n * size)
    # A reduction over an axis: the matrix in, one value per row out.
    m = random_array(rng, (1031, 1459), source)
    _, bytes_moved = moved(lambda: call(gpuvec.sum, compute, how, m, axis=1))
    assert bytes_moved == (m.size * size, 1031 * size)
