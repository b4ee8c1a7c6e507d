"""The binary ops of the op table against NumPy: every public row of two
inputs whose result has the compute dtype (gpuvec._table), so a new row is
tested here without an edit."""

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array
from tolerances import ULPS, assert_ulp_close, ulps
from tolerances import in_domain as domain

import gpuvec
from gpuvec._table import ELEMENTWISE_OPS

# name: the NumPy function of the same meaning (gpuvec's own names too:
# atan2 is an alias of arctan2).
OPS = {
    row.name: getattr(np, row.numpy)
    for row in ELEMENTWISE_OPS.values()
    if row.public and row.arity == 2 and row.result is None and "f" in row.kinds
}
OPS["atan2"] = OPS["arctan2"]
DTYPES = [np.float32, np.float64]


def in_domain(name, a, b):
    return domain(name, 0, a), domain(name, 1, b)


def operands(rng, name, shape, dtype):
    """Random inputs in the op's interesting range, never zero arrays."""
    a, b = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
    return in_domain(name, a, b)


def check(name, result, a, b, dtype):
    """Within the op's ulp budget of NumPy in float64, on the same inputs."""
    with np.errstate(all="ignore"):  # x / 0 is inf, as gpuvec's, without a warning
        reference = OPS[name](np.asarray(a, np.float64), np.asarray(b, np.float64))
    assert_ulp_close(result, reference, dtype, ulps(name, gpuvec.backend()))


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sizes(backend, rng, name, dtype, n):
    a, b = operands(rng, name, n, dtype)
    check(name, getattr(gpuvec, name)(a, b), a, b, dtype)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts(backend, rng, name, dtype, layout):
    a, b = in_domain(name, make_layout(rng, layout, dtype), make_layout(rng, layout, dtype))
    check(name, getattr(gpuvec, name)(a, b), a, b, dtype)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_maximum_minimum_are_exact_and_propagate_nan(backend, rng, name, dtype):
    a, b = random_array(rng, 1001, dtype), random_array(rng, 1001, dtype)
    a[1::11], b[1::11] = np.inf, -np.inf
    a[::7], b[::5] = np.nan, np.nan  # NaN in a, in b, and in both (every 35th)
    result = getattr(gpuvec, name)(a, b)
    np.testing.assert_array_equal(result, OPS[name](a, b))  # NaN where NumPy has NaN
    assert np.isnan(result[::5]).all()
    assert np.isnan(result[::7]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values(backend, dtype):
    inf, nan = np.inf, np.nan
    a = np.array([nan, 1.0, -8.0, 0.0, 0.0, -0.0, inf, -inf, 2.0, nan, inf, 0.5], dtype)
    b = np.array([0.0, nan, 1 / 3, -1.0, 0.0, -0.0, nan, 3.0, -inf, 1.0, inf, inf], dtype)
    with np.errstate(all="ignore"):
        for name, ufunc in OPS.items():
            result = getattr(gpuvec, name)(a, b)
            # C99's special cases, which both math libraries follow: NaN, inf
            # and exact values where NumPy has them.
            budget = ulps(name, gpuvec.backend())
            assert_ulp_close(result, ufunc(a.astype(np.float64), b), dtype, budget)
            expected = ufunc(a, b)
            numbers = ~np.isnan(expected)  # a NaN's sign bit is not specified
            np.testing.assert_array_equal(
                np.signbit(result[numbers]), np.signbit(expected[numbers])
            )


@pytest.mark.parametrize("dtype", DTYPES)
def test_power_of_two_minus_one_and_half_is_numpys_exact_result(backend, rng, dtype):
    # NumPy computes x**2, x**-1 and x**0.5 as np.square, np.reciprocal and
    # np.sqrt, correctly rounded; C's powf(x, 2) differs from x*x for about
    # one float32 in 1400, so 2**16 elements would show it.
    x = np.abs(random_array(rng, 1 << 16, dtype)) * dtype(100)
    x[:4] = [0.0, np.inf, np.nan, np.finfo(dtype).max]
    device = gpuvec.to_device(x) if backend == "cuda" else x
    with np.errstate(all="ignore"):
        for exponent, expected in [(2, x * x), (-1, 1 / x), (0.5, np.sqrt(x))]:
            np.testing.assert_array_equal(gpuvec.power(x, exponent), expected)
            result = device**exponent
            result = result.to_host() if backend == "cuda" else result
            np.testing.assert_array_equal(result, expected)
            array_exponent = np.full_like(x, exponent)  # the same, element by element
            np.testing.assert_array_equal(gpuvec.power(x, array_exponent), expected)
    # C's special values, not sqrt's, for a base of -0.0 or -inf:
    special = gpuvec.power(np.array([-0.0, -np.inf, -4.0], dtype), 0.5)
    np.testing.assert_array_equal(special, [0.0, np.inf, np.nan])
    assert not np.signbit(special[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_hypot_does_not_overflow_or_underflow(backend, dtype):
    big, tiny = np.finfo(dtype).max / 2, np.finfo(dtype).tiny * 4
    result = gpuvec.hypot(np.array([big, tiny], dtype), np.array([big, tiny], dtype))
    expected = np.array([big, tiny], np.float64) * np.sqrt(2.0)
    assert_ulp_close(result, expected, dtype, ULPS["hypot"])


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_poisoned_out_and_in_place(backend, rng, name, dtype):
    a, b = operands(rng, name, (33, 65), dtype)
    out = np.full((33, 65), np.nan, dtype)
    assert getattr(gpuvec, name)(a, b, out=out) is out
    check(name, out, a, b, dtype)
    expected = getattr(gpuvec, name)(a, b)
    getattr(gpuvec, name)(a, b, out=a)  # in place
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcasting_and_scalars(backend, rng, name, dtype):
    a = np.abs(random_array(rng, (7, 1, 5), dtype)) + dtype(0.5)
    b = (random_array(rng, (6, 1), dtype) / dtype(4)).astype(dtype)
    f = getattr(gpuvec, name)
    check(name, f(a, b), *np.broadcast_arrays(a, b), dtype)
    # A Python float is weak: float32 data stays float32.
    result = f(a, 1.5)
    assert result.dtype == dtype
    check(name, result, a, np.full_like(a, 1.5), dtype)
    check(name, f(2.0, b), np.full_like(b, 2.0), b, dtype)
    both = f(2.0, 3.0)
    assert np.ndim(both) == 0
    assert both == pytest.approx(OPS[name](2.0, 3.0), rel=1e-15)


def test_arctan2_is_atan2():
    assert gpuvec.arctan2 is gpuvec.atan2
    assert "numpy.arctan2" in gpuvec.atan2.__doc__


@pytest.mark.parametrize("name", OPS)
def test_read_only_and_strided_inputs(backend, rng, name):
    a, b = operands(rng, name, (40, 60), np.float64)
    a, b = a[::-3, 1::2], b.T.copy().T[::-3, 1::2]
    a.flags.writeable = False
    check(name, getattr(gpuvec, name)(a, b), a, b, np.float64)


@pytest.mark.parametrize("name", OPS)
def test_ints_and_bools_follow_numpy(backend, name):
    a, b = np.arange(1, 5), np.array([True, False, True, True])
    with np.errstate(divide="ignore"):  # gpuvec reads NumPy's setting: x // 0 warns in both
        result = getattr(gpuvec, name)(a, b)
        expected = OPS[name](a, b)
    assert result.dtype == expected.dtype  # int64 where NumPy's loop is, float64 else
    if expected.dtype.kind in "iu":
        np.testing.assert_array_equal(result, expected)
    else:
        check(name, result, a, [1, 0, 1, 1], np.float64)


@pytest.mark.parametrize("name", OPS)
def test_bad_input(backend, name):
    f = getattr(gpuvec, name)
    with pytest.raises(ValueError, match=r"a \(3,\) and b \(4,\) cannot be broadcast"):
        f(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match=r"b has dtype datetime64\[D\]"):
        f(np.ones(3), np.zeros(3, "datetime64[D]"))
    with pytest.raises(TypeError, match=r"a has dtype <U1"):
        f(np.array(["x"]), np.ones(1))
    out = np.full(3, 7.0)
    with pytest.raises(ValueError, match=r"out has shape \(3,\), but the result has shape \(4,\)"):
        f(np.ones(4), 1.0, out=out)
    with pytest.raises(TypeError, match="casting rule 'same_kind'"):
        f(np.ones(3, np.float32), np.float32(1), out=np.empty(3, bool))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        f(np.ones(3), 2.0, out=out)
    np.testing.assert_array_equal(out, 7.0)  # no failed call wrote to it


def test_failed_launch_leaves_out_untouched(backend):
    out = np.full(100, 7.0)
    with pytest.raises(gpuvec.CudaError, match="cudaErrorInvalidConfiguration"):
        gpuvec.power(np.ones(100), 2.0, out=out, threads_per_block=2048)
    np.testing.assert_array_equal(out, 7.0)


def test_backends_agree(rng):
    if not gpuvec.is_available():
        pytest.skip("needs the CUDA backend to compare with")
    a = np.abs(random_array(rng, (301, 77), np.float32))[::-1, ::3] + 1
    b = random_array(rng, (301, 26), np.float32) / 4
    results = {}
    for backend in ("host", "cuda"):
        previous = gpuvec.set_backend(backend)
        try:
            results[backend] = {name: getattr(gpuvec, name)(a, b) for name in OPS}
        finally:
            gpuvec.set_backend(previous)
    for name in OPS:
        host, cuda = results["host"][name], results["cuda"][name]
        # Both are within their budgets of the exact result, so of each other within the sum.
        budget = ulps(name, "host") + ulps(name, "cuda") + 1
        assert_ulp_close(cuda, host.astype(np.float64), np.float32, budget)
