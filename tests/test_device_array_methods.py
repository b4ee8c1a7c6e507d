"""DeviceArray operators and NumPy-style methods against NumPy on the host copy."""

import operator

import numpy as np
import pytest
from conftest import random_array
from tolerances import ULPS, assert_reduction_close, assert_sum_close, assert_ulp_close

import gpuvec

DTYPES = [np.float32, np.float64]


def host(result):
    """A result as a NumPy array: a DeviceArray's host copy, else the value itself."""
    return result.to_host() if isinstance(result, gpuvec.DeviceArray) else np.asarray(result)


def positive(rng, shape, dtype):
    return (np.abs(random_array(rng, shape, np.float64)) / 5 + 0.05).astype(dtype)


def near_one(rng, shape, dtype):
    """Data whose products stay finite."""
    return (1 + random_array(rng, shape, np.float64) / 1000).astype(dtype)


# -- arithmetic operators -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_power_operators(backend, rng, dtype):
    x = positive(rng, (33, 7), dtype)
    y = (random_array(rng, (33, 7), np.float64) / 4).astype(dtype)
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    for result, a, b in [(dx**dy, x, y), (dx**2.0, x, 2.0), (2.0**dy, 2.0, y)]:
        assert isinstance(result, gpuvec.DeviceArray)
        assert result.shape == (33, 7)
        reference = np.power(np.asarray(a, np.float64), np.asarray(b, np.float64))
        assert_ulp_close(result.to_host(), reference, dtype, ULPS["power"])
    np.testing.assert_array_equal(dx.to_host(), x)  # the operands are untouched


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 31, 1025, 65537])
def test_matmul_of_vectors(backend, rng, dtype, n):
    x, y = random_array(rng, n, dtype), random_array(rng, n, dtype)
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    for result in (dx @ dy, dx.dot(dy)):
        assert isinstance(result, gpuvec.DeviceArray)
        assert result.shape == ()
        assert result.dtype == dtype
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        exact = np.dot(x64, y64)
        assert_sum_close(host(result), exact, np.sum(np.abs(x64 * y64)), dtype, n)
    strided = dx[::-2] @ dy[::-2]  # views work too
    x64, y64 = x[::-2].astype(np.float64), y[::-2].astype(np.float64)
    assert_sum_close(host(strided), np.dot(x64, y64), np.sum(np.abs(x64 * y64)), dtype, x64.size)


def signed_specials(rng, dtype):
    x = random_array(rng, (9, 13), dtype)
    x[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["abs", "negative"])
def test_abs_and_negative(backend, rng, dtype, op):
    x = signed_specials(rng, dtype)
    d = gpuvec.to_device(x)
    apply = abs if op == "abs" else operator.neg
    for view in (lambda a: a, lambda a: a[::-1, ::2], lambda a: a.T):
        result = apply(view(d))
        expected = apply(view(x))
        assert isinstance(result, gpuvec.DeviceArray)
        assert result.dtype == dtype
        assert result.shape == expected.shape
        np.testing.assert_array_equal(result.to_host(), expected)
        numbers = ~np.isnan(expected)  # a NaN's sign bit is not specified
        np.testing.assert_array_equal(
            np.signbit(result.to_host()[numbers]), np.signbit(expected[numbers])
        )
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalars_on_either_side(backend, rng, dtype):
    x, y = random_array(rng, 1001, dtype), random_array(rng, 1001, dtype)
    d, e = gpuvec.to_device(x), gpuvec.to_device(y)
    # Correctly rounded and never fused: NumPy's result in the same dtype, bit for bit.
    for result, expected in [
        (d + 1.0, x + 1.0),
        (1.0 - d, 1.0 - x),
        (2.5 * d * e + d - 0.5, 2.5 * x * y + x - 0.5),
        (d / 3.0 - e * 0.1, x / 3.0 - y * 0.1),
    ]:
        assert isinstance(result, gpuvec.DeviceArray)
        assert result.dtype == expected.dtype == dtype  # a Python float keeps the dtype
        np.testing.assert_array_equal(result.to_host(), expected)


def test_mixed_precision(backend, rng):
    x32 = random_array(rng, (7, 9), np.float32)
    y64 = random_array(rng, (7, 9), np.float64)
    d32, d64 = gpuvec.to_device(x32), gpuvec.to_device(y64)
    for result, expected in [(d32 + d64, x32 + y64), (d64 * d32, y64 * x32)]:
        assert result.dtype == np.float64
        np.testing.assert_array_equal(result.to_host(), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_operators(backend, rng, dtype):
    x, y = random_array(rng, (11, 6), dtype), random_array(rng, (11, 6), dtype)
    d, e = gpuvec.to_device(x), gpuvec.to_device(y)
    before = d
    d += 1.0
    assert d is before
    np.testing.assert_array_equal(d.to_host(), x + 1.0)
    d *= e
    assert d is before
    np.testing.assert_array_equal(d.to_host(), (x + 1.0) * y)
    np.testing.assert_array_equal(e.to_host(), y)


@pytest.mark.parametrize("via", ["method", "function"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_pattern(backend, rng, dtype, via):
    x = random_array(rng, (13, 17), dtype)
    d = gpuvec.to_device(x)
    if via == "method":
        row_max = d.max(axis=1, keepdims=True)
    else:
        row_max = gpuvec.max(d, axis=1, keepdims=True)
    assert row_max.shape == (13, 1)
    z = d - row_max  # (13, 17) minus a keepdims-shaped (13, 1)
    np.testing.assert_array_equal(z.to_host(), x - x.max(axis=1, keepdims=True))
    p = gpuvec.exp(z)
    ph = p.to_host()
    assert_ulp_close(ph, np.exp(z.to_host().astype(np.float64)), dtype, ULPS["exp"])
    if via == "method":
        total = p.sum(axis=1, keepdims=True)
    else:
        total = gpuvec.sum(p, axis=1, keepdims=True)
    th = host(total)
    assert th.shape == (13, 1)
    assert_reduction_close("sum", th, ph, dtype, axis=1, keepdims=True)
    q = p / total
    assert isinstance(q, gpuvec.DeviceArray)
    np.testing.assert_array_equal(q.to_host(), ph / th)  # division is correctly rounded
    np.testing.assert_allclose(q.to_host().sum(axis=1, dtype=np.float64), 1.0, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_normalise_by_row_sums(backend, rng, dtype):
    x = positive(rng, (8, 33), dtype)
    d = gpuvec.to_device(x)
    sums = d.sum(axis=1, keepdims=True)
    assert_reduction_close("sum", host(sums), x, dtype, axis=1, keepdims=True)
    result = d / sums
    np.testing.assert_array_equal(result.to_host(), x / host(sums))


# -- comparisons: bool DeviceArrays, as NumPy's (tests/test_bool_arrays.py has the rest) -----

COMPARISONS = {
    "d < e": lambda d, e: d < e,
    "d <= 1": lambda d, e: d <= 1,
    "d > e": lambda d, e: d > e,
    "d >= e": lambda d, e: d >= e,
    "d == e": lambda d, e: d == e,
    "d != e": lambda d, e: d != e,
    "1.0 > d": lambda d, e: 1.0 > d,
}


@pytest.mark.parametrize("expression", COMPARISONS)
def test_comparisons_give_bool_arrays(backend, rng, expression):
    x = random_array(rng, 10, np.float64)
    d, e = gpuvec.to_device(x), gpuvec.to_device(x[::-1].copy())
    result = COMPARISONS[expression](d, e)
    assert isinstance(result, gpuvec.DeviceArray)
    assert result.dtype == np.bool_
    np.testing.assert_array_equal(result.to_host(), COMPARISONS[expression](x, x[::-1]))


# -- reductions as methods ------------------------------------------------------------------

VALUE_METHODS = ["sum", "mean", "max", "min", "std", "var", "prod"]
AXES = [None, 0, 1, -1, (0, 2), (0, 1, 2)]


def method_data(rng, name, shape, dtype):
    return near_one(rng, shape, dtype) if name == "prod" else random_array(rng, shape, dtype)


def assert_like_the_function(result, function_result):
    """A method gives what the function of the same name gives, in kind."""
    assert type(result) is type(function_result), (type(result), type(function_result))
    if isinstance(result, (gpuvec.DeviceArray, np.ndarray)):
        assert result.shape == function_result.shape
        assert result.dtype == function_result.dtype


@pytest.mark.parametrize("name", VALUE_METHODS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_methods(backend, rng, name, dtype, axis, keepdims):
    x = method_data(rng, name, (4, 6, 5), dtype)
    d = gpuvec.to_device(x)
    for view, expected_input in [(d, x), (d[:, ::-2], x[:, ::-2])]:
        result = getattr(view, name)(axis=axis, keepdims=keepdims)
        assert_like_the_function(result, getattr(gpuvec, name)(view, axis=axis, keepdims=keepdims))
        assert host(result).dtype == dtype
        assert_reduction_close(name, host(result), expected_input, dtype, axis, keepdims)
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("ddof", [0, 1, 2.5])
@pytest.mark.parametrize("axis", [None, 1])
def test_std_var_ddof(backend, rng, name, ddof, axis):
    x = random_array(rng, (6, 11), np.float64)
    result = getattr(gpuvec.to_device(x), name)(axis=axis, ddof=ddof)
    assert_reduction_close(name, host(result), x, np.float64, axis, ddof=ddof)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_arg_methods(backend, rng, name, dtype, axis, keepdims):
    x = rng.integers(-3, 4, (7, 9)).astype(dtype)  # many ties: the first one wins
    x[2, 4] = np.nan  # NaN wins, as in NumPy
    d = gpuvec.to_device(x)
    result = getattr(d, name)(axis=axis, keepdims=keepdims)
    assert_like_the_function(result, getattr(gpuvec, name)(d, axis=axis, keepdims=keepdims))
    assert not isinstance(result, gpuvec.DeviceArray)  # indices come back as NumPy ints
    assert np.asarray(result).dtype == np.int64
    expected = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    assert np.shape(result) == np.shape(expected)
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_methods_without_arguments(backend, rng, dtype):
    x = random_array(rng, (5, 7), dtype)
    d = gpuvec.to_device(x)
    for name in VALUE_METHODS:
        data = near_one(rng, (5, 7), dtype) if name == "prod" else x
        dd = gpuvec.to_device(data)
        result = getattr(dd, name)()
        assert_like_the_function(result, getattr(gpuvec, name)(dd))
        assert_reduction_close(name, host(result), data, dtype)
    for name in ("argmax", "argmin"):
        assert getattr(d, name)() == getattr(np, name)(x)


# -- fill, ravel, flat ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [2.5, -0.1, 7, np.float32(1.25)])
def test_fill(backend, rng, dtype, value):
    x = random_array(rng, (6, 10), dtype)
    d = gpuvec.to_device(x)
    assert d.fill(value) is None  # in place, like ndarray.fill
    expected = np.empty_like(x)
    expected.fill(value)
    np.testing.assert_array_equal(d.to_host(), expected)
    # On a view, only the view's elements change.
    d = gpuvec.to_device(x)
    view = d[1::2, ::-3]
    assert view.fill(value) is None
    expected = x.copy()
    expected[1::2, ::-3] = value
    np.testing.assert_array_equal(d.to_host(), expected)
    np.testing.assert_array_equal(view.to_host(), expected[1::2, ::-3])


@pytest.mark.parametrize("dtype", DTYPES)
def test_ravel_of_contiguous_data_is_a_view(backend, rng, dtype):
    x = random_array(rng, (4, 5, 3), dtype)
    d = gpuvec.to_device(x)
    flat = d.ravel()
    assert isinstance(flat, gpuvec.DeviceArray)
    assert flat.shape == (60,)
    assert flat.dtype == dtype
    np.testing.assert_array_equal(flat.to_host(), x.ravel())
    flat[7] = 99.0  # writing through the view changes the original...
    expected = x.copy()
    expected.reshape(-1)[7] = 99.0
    np.testing.assert_array_equal(d.to_host(), expected)
    d[0, 0, 0] = -5.0  # ...and the other way round
    assert float(flat[0]) == -5.0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", ["transposed", "reversed", "gapped"])
def test_ravel_of_strided_data_is_a_copy(backend, rng, dtype, view):
    x = random_array(rng, (4, 6), dtype)
    d = gpuvec.to_device(x)
    take = {
        "transposed": lambda a: a.T,
        "reversed": lambda a: a[::-1],
        "gapped": lambda a: a[:, ::2],
    }
    strided = take[view](d)
    flat = strided.ravel()
    assert flat.ndim == 1
    np.testing.assert_array_equal(host(flat), take[view](x).ravel())  # C order, as in NumPy
    flat[0] = 99.0
    np.testing.assert_array_equal(d.to_host(), x)  # a copy: the original is untouched


@pytest.mark.parametrize("dtype", DTYPES)
def test_flat_is_a_one_dimensional_copy(backend, rng, dtype):
    # Unlike NumPy's flatiter, DeviceArray.flat is a 1-D copy (documented).
    x = random_array(rng, (5, 4, 3), dtype)
    d = gpuvec.to_device(x)
    for source, expected in [(d, x), (d.T, x.T), (d[::-1, ::2], x[::-1, ::2])]:
        flat = source.flat
        values = host(flat)
        assert values.shape == (expected.size,)
        assert values.dtype == dtype
        np.testing.assert_array_equal(values, expected.ravel())
        flat[0] = 123.0
        np.testing.assert_array_equal(d.to_host(), x)
