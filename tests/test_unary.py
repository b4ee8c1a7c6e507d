"""The unary family, clip and where against NumPy."""

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array
from tolerances import ULPS, assert_ulp_close, in_domain, ulps

import gpuvec
from gpuvec._table import ELEMENTWISE_OPS


def sigmoid64(x):
    """The logistic sigmoid in float64, in the form that never overflows."""
    x = np.asarray(x, np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


# The float64 references of the ops NumPy has no function for.
TWINS = {"sigmoid": sigmoid64}


def _reference(row):
    return getattr(np, row.numpy) if row.numpy else TWINS[row.name]


# name: (the float64 reference, a map from random data into the op's domain),
# for every public unary row of the op table of the compute dtype.
UNARY = {
    row.name: (_reference(row), lambda x, name=row.name: in_domain(name, 0, x))
    for row in ELEMENTWISE_OPS.values()
    if row.public and row.arity == 1 and row.result is None and "f" in row.kinds
}
DTYPES = [np.float32, np.float64]


def data(rng, name, shape, dtype):
    """Random data of both signs (|x| mostly below 40), mapped into the op's domain."""
    return UNARY[name][1](random_array(rng, shape, dtype)).astype(dtype)


def check(name, result, x, dtype):
    """Within the op's ulp budget on the running backend of NumPy in float64."""
    with np.errstate(all="ignore"):
        reference = UNARY[name][0](np.asarray(x, np.float64))
    assert_ulp_close(result, reference, dtype, ulps(name, gpuvec.backend()))


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sizes(backend, rng, name, dtype, n):
    x = data(rng, name, n, dtype)
    check(name, getattr(gpuvec, name)(x), x, dtype)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts(backend, rng, name, dtype, layout):
    x = UNARY[name][1](make_layout(rng, layout, dtype))
    check(name, getattr(gpuvec, name)(x), x, dtype)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values(backend, name, dtype):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, -1e-30, 1e-30, 100.0], dtype)
    extremes = np.array([np.finfo(dtype).max, -np.finfo(dtype).max, np.finfo(dtype).tiny])
    x = np.concatenate([x, extremes.astype(dtype)])
    result = getattr(gpuvec, name)(x)
    check(name, result, x, dtype)  # NaN, inf and the exact values where NumPy has them
    with np.errstate(all="ignore"):
        expected = UNARY[name][0](x.astype(np.float64)).astype(dtype)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(result[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sigmoid_is_stable_far_from_zero(backend, dtype):
    x = np.array([-1e4, -745.0, -100.0, -30.0, 30.0, 100.0, 1e4], dtype)
    result = gpuvec.sigmoid(x)
    assert np.isfinite(result).all()
    check("sigmoid", result, x, dtype)
    assert result[-1] == 1.0
    assert result[0] == 0.0


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_poisoned_out_and_in_place(backend, rng, name, dtype):
    x = data(rng, name, (33, 65), dtype)
    out = np.full((33, 65), np.nan, dtype)
    assert getattr(gpuvec, name)(x, out=out) is out
    check(name, out, x, dtype)
    expected = out.copy()
    assert getattr(gpuvec, name)(x, out=x) is x
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize("name", UNARY)
def test_read_only_scalars_ints_and_dtype(backend, rng, name):
    x = data(rng, name, 257, np.float64)[::-2]
    x.flags.writeable = False
    check(name, getattr(gpuvec, name)(x), x, np.float64)
    scalar = getattr(gpuvec, name)(0.5)
    assert np.ndim(scalar) == 0
    check(name, np.asarray(scalar), np.asarray(0.5), np.float64)
    ints = getattr(gpuvec, name)([1, 2, 3])
    if ELEMENTWISE_OPS[name].computes_in(np.int64):  # integers stay integers, as in NumPy
        expected = getattr(np, ELEMENTWISE_OPS[name].numpy)(np.array([1, 2, 3]))
        assert ints.dtype == expected.dtype == np.int64
        np.testing.assert_array_equal(ints, expected)
    else:
        assert ints.dtype == np.float64
        check(name, ints, [1, 2, 3], np.float64)
    as32 = getattr(gpuvec, name)(x, dtype=np.float32)
    check(name, as32, x.astype(np.float32), np.float32)


def test_partially_overlapping_out(backend, rng):
    base = random_array(rng, 1000, np.float64)
    x = base[:-1]
    expected = np.exp(x)
    gpuvec.exp(x, out=base[1:])  # out is x shifted by one element
    assert_ulp_close(base[1:], expected, np.float64, ULPS["exp"])
    base = random_array(rng, 1000, np.float64)
    expected = np.clip(base[::-1], -1.0, 1.0)
    gpuvec.clip(base[::-1], -1.0, 1.0, out=base)  # out is x reversed
    np.testing.assert_array_equal(base, expected)


def test_thirty_two_dimensions(backend, rng):
    shape = (1,) * 27 + (2, 3, 1, 2, 3)
    x = random_array(rng, shape, np.float64)[..., ::-1, :, :, ::2]
    lo = random_array(rng, x.shape[-3:], np.float64)
    cond = np.broadcast_to(rng.random(x.shape[-1]) < 0.5, x.shape)
    assert x.ndim == 32
    check("sin", gpuvec.sin(x), x, np.float64)
    np.testing.assert_array_equal(gpuvec.clip(x, lo, 1.0), np.clip(x, lo, 1.0))
    np.testing.assert_array_equal(gpuvec.where(cond, x, lo), np.where(cond, x, lo))
    np.testing.assert_array_equal(gpuvec.maximum(x, lo), np.maximum(x, lo))


def test_aliases():
    assert gpuvec.absolute is gpuvec.abs


@pytest.mark.parametrize("name", UNARY)
def test_unary_bad_input(backend, name):
    f = getattr(gpuvec, name)
    with pytest.raises(TypeError, match="x has dtype <U1"):
        f(np.array(["x"]))
    with pytest.raises(TypeError, match=r"x has dtype datetime64\[D\]"):
        f(np.array(["2026-11-21"], dtype="datetime64[D]"))
    out = np.full(3, 7.0)
    with pytest.raises(ValueError, match=r"out has shape \(3,\), but the result has shape \(4,\)"):
        f(np.ones(4), out=out)
    with pytest.raises(TypeError, match="casting rule 'same_kind'"):
        f(np.ones(3, np.float32), out=np.empty(3, np.int32))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        f(np.ones(3), out=out)
    np.testing.assert_array_equal(out, 7.0)


# -- clip ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_clip_sizes(backend, rng, dtype, n):
    x = random_array(rng, n, dtype)
    np.testing.assert_array_equal(gpuvec.clip(x, -3.0, 4.5), np.clip(x, dtype(-3.0), 4.5))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_clip_layouts(backend, rng, dtype, layout):
    x, lo = make_layout(rng, layout, dtype), make_layout(rng, layout, dtype)
    hi = lo + dtype(5)
    result = gpuvec.clip(x, lo, hi)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, np.clip(x, lo, hi))


@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_broadcasting_nan_and_crossed_bounds(backend, rng, dtype):
    x = random_array(rng, (5, 7), dtype)
    x[1, ::2] = np.nan
    lo = random_array(rng, (5, 1), dtype)
    hi = random_array(rng, (1, 7), dtype)  # often below lo: the result is then hi
    lo[3, 0] = np.nan
    hi[0, 4] = np.nan
    result = gpuvec.clip(x, lo, hi)
    np.testing.assert_array_equal(result, np.clip(x, lo, hi))
    assert np.isnan(result[1, ::2]).all()  # NaN in x
    assert np.isnan(result[3]).all()  # NaN in lo
    assert np.isnan(result[:, 4]).all()  # NaN in hi


@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_open_sides(backend, rng, dtype):
    x = random_array(rng, 100, dtype)
    np.testing.assert_array_equal(gpuvec.clip(x, None, 1.0), np.clip(x, None, 1.0))
    np.testing.assert_array_equal(gpuvec.clip(x, -1.0, None), np.clip(x, -1.0, None))
    np.testing.assert_array_equal(gpuvec.clip(x, None, None), x)
    assert gpuvec.clip(x, None, 1.0).dtype == dtype


def test_clip_in_place_and_poisoned_out(backend, rng):
    x = random_array(rng, (20, 30), np.float64)
    expected = np.clip(x, -1.0, 1.0)
    out = np.full_like(x, np.nan)
    gpuvec.clip(x, -1.0, 1.0, out=out)
    np.testing.assert_array_equal(out, expected)
    gpuvec.clip(x, -1.0, 1.0, out=x)
    np.testing.assert_array_equal(x, expected)


def test_clip_bad_input(backend):
    with pytest.raises(
        ValueError, match=r"x \(3,\) and lo \(4,\) and hi \(\) cannot be broadcast"
    ):
        gpuvec.clip(np.ones(3), np.ones(4), 1.0)
    with pytest.raises(TypeError, match="on complex numbers yet"):
        gpuvec.clip(np.ones(3), 0.0, 1j)
    with pytest.raises(TypeError, match="x has dtype object"):
        gpuvec.clip(np.array([object()]), 0.0, 1.0)
    out = np.full(4, 7.0)
    with pytest.raises(ValueError, match=r"out has shape \(4,\), but the result has shape \(3,\)"):
        gpuvec.clip(np.ones(3), 0.0, 1.0, out=out)
    np.testing.assert_array_equal(out, 7.0)


# -- where --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_where_sizes(backend, rng, dtype, n):
    cond = rng.random(n) < 0.5
    a, b = random_array(rng, n, dtype), random_array(rng, n, dtype)
    result = gpuvec.where(cond, a, b)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, np.where(cond, a, b))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_where_layouts(backend, rng, dtype, layout):
    a, b = make_layout(rng, layout, dtype), make_layout(rng, layout, dtype)
    cond = make_layout(rng, layout, np.float64) > 0  # a fresh, contiguous mask...
    cond = np.asarray(cond)
    view = LAYOUTS[layout][0]
    strided = view(np.resize(rng.random(20000) < 0.5, LAYOUTS[layout][1]))  # ...and a strided one
    for mask in (cond, strided):
        np.testing.assert_array_equal(gpuvec.where(mask, a, b), np.where(mask, a, b))


def test_where_broadcasting_scalars_and_dtypes(backend, rng):
    cond = rng.random((4, 1, 6)) < 0.5
    a = random_array(rng, (5, 1), np.float32)
    result = gpuvec.where(cond, a, 0.0)
    assert result.dtype == np.float32  # the mask does not count, a Python float is weak
    np.testing.assert_array_equal(result, np.where(cond, a, np.float32(0.0)))
    assert gpuvec.where([True, False], 1, 2.5).dtype == np.float64
    np.testing.assert_array_equal(gpuvec.where([True, False], 1, 2.5), [1.0, 2.5])
    assert gpuvec.where(True, 1.0, 2.0) == 1.0
    with_out = np.full((4, 5, 6), np.nan, np.float32)
    gpuvec.where(cond, a, 0.0, out=with_out)
    np.testing.assert_array_equal(with_out, result)


def test_where_in_place(backend, rng):
    x = random_array(rng, 1000, np.float64)
    expected = np.where(x > 0, x, 0.0)
    gpuvec.where(x > 0, x, 0.0, out=x)  # ReLU in place
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize(
    ("cond", "dtype_text"),
    [
        (np.ones(3), "float64"),
        (np.arange(3), "int64"),
        (np.ones(3, np.uint8), "uint8"),
        ([1.0, 0.0, 1.0], "float64"),
    ],
)
def test_where_needs_a_bool_mask(backend, cond, dtype_text):
    out = np.full(3, 7.0)
    with pytest.raises(
        TypeError, match=f"cond has dtype {dtype_text}, but it must be a bool array"
    ):
        gpuvec.where(cond, np.ones(3), np.zeros(3), out=out)
    np.testing.assert_array_equal(out, 7.0)


def test_where_bad_input(backend):
    with pytest.raises(
        ValueError, match=r"cond \(3,\) and a \(4,\) and b \(\) cannot be broadcast"
    ):
        gpuvec.where(np.ones(3, bool), np.ones(4), 0.0)
    with pytest.raises(TypeError, match="compute where on complex numbers yet"):
        gpuvec.where(np.ones(3, bool), np.ones(3), 1j)
    readonly = np.zeros(3)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        gpuvec.where(np.ones(3, bool), 1.0, 2.0, out=readonly)
    np.testing.assert_array_equal(readonly, 0.0)


def test_failed_launch_leaves_out_untouched(backend):
    out = np.full(100, 7.0)
    for call in (
        lambda: gpuvec.exp(np.ones(100), out=out, threads_per_block=2048),
        lambda: gpuvec.clip(np.ones(100), 0.0, 1.0, out=out, threads_per_block=2048),
        lambda: gpuvec.where(np.ones(100, bool), 1.0, 0.0, out=out, threads_per_block=2048),
    ):
        with pytest.raises(gpuvec.CudaError, match="cudaErrorInvalidConfiguration"):
            call()
        np.testing.assert_array_equal(out, 7.0)


def test_backends_agree(rng):
    if not gpuvec.is_available():
        pytest.skip("needs the CUDA backend to compare with")
    x = random_array(rng, (301, 77), np.float32)[::-1, ::3]
    results = {}
    for backend in ("host", "cuda"):
        previous = gpuvec.set_backend(backend)
        try:
            results[backend] = {name: getattr(gpuvec, name)(UNARY[name][1](x)) for name in UNARY}
        finally:
            gpuvec.set_backend(previous)
    for name in UNARY:
        host, cuda = results["host"][name], results["cuda"][name]
        budget = ulps(name, "host") + ulps(name, "cuda") + 1
        assert_ulp_close(cuda, host.astype(np.float64), np.float32, budget)
