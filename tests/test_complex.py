"""complex64 and complex128 DeviceArrays, on both backends, against NumPy.

Storage (round trips, conversions to and from every dtype, creation, DLPack,
pickling) is compared bit for bit; + - * /, negative, conj, real, imag and
square bit for bit too; abs and angle (hypot and arctan2 of the parts)
within 3 ulps, exp, log and sqrt within the normwise budget of
docs/dtypes.rst. Ops NumPy does not
define for complex numbers raise NumPy's TypeError.
"""

import pickle
import warnings

import numpy as np
import pytest
from conftest import COMPLEX_DTYPES, REAL_DTYPES
from numpy.exceptions import ComplexWarning

import gpuvec

COMPLEX = COMPLEX_DTYPES
REAL = REAL_DTYPES
# The normwise budget of exp, log and sqrt (docs/dtypes.rst): the error of
# either part, in ulps of the larger part of NumPy's result.
NORMWISE_ULPS = 4


def random_complex(rng, shape, dtype):
    """Random complex values of both signs in both parts."""
    parts = rng.standard_normal((2, *np.atleast_1d(shape))) * 10
    z = (parts[0] + 1j * parts[1]).astype(dtype)
    return z.reshape(shape)


def same_bits(actual, expected):
    """Equal bits, NaN payloads and signs of zero included."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape
    part = np.dtype(f"u{expected.dtype.itemsize // 2}") if expected.dtype.kind == "c" else None
    if part is None:
        part = np.dtype(f"u{expected.dtype.itemsize}")
    np.testing.assert_array_equal(
        np.ascontiguousarray(actual).view(part), np.ascontiguousarray(expected).view(part)
    )


def normwise_close(actual, expected, ulps):
    """Each part within `ulps` ulps of the larger part of NumPy's value."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype
    part = np.finfo(expected.real.dtype)
    scale = np.maximum(np.abs(expected.real), np.abs(expected.imag))
    limit = ulps * part.eps * np.maximum(scale, part.tiny)
    assert np.all(np.abs(actual.real - expected.real) <= limit)
    assert np.all(np.abs(actual.imag - expected.imag) <= limit)


# -- storage ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
def test_round_trip_is_bit_exact(backend, rng, dtype):
    z = random_complex(rng, (7, 5), dtype)
    z[0, 0] = complex(np.nan, -0.0)
    z[1, 1] = complex(np.inf, -np.inf)
    d = gpuvec.to_device(z)
    assert d.dtype == dtype
    assert d.shape == z.shape
    same_bits(d.to_host(), z)
    same_bits(np.asarray(d), z)
    same_bits(gpuvec.to_device(z[::-2, 1::2]).to_host(), z[::-2, 1::2])


@pytest.mark.parametrize("source", COMPLEX)
@pytest.mark.parametrize("target", COMPLEX + REAL)
def test_astype_from_complex_as_numpy(backend, rng, source, target):
    z = random_complex(rng, 101, source)
    d = gpuvec.to_device(z)
    if np.dtype(target).kind == "c":
        same_bits(d.astype(target).to_host(), z.astype(target))
        return
    finite = z.real.astype(np.float64)
    if np.dtype(target).kind in "iu":  # in range: out-of-range casts differ by processor
        info = np.iinfo(target)
        z = (np.clip(finite, info.min, info.max) + 1j * z.imag).astype(source)
        d = gpuvec.to_device(z)
    with pytest.warns(ComplexWarning, match="discards the imaginary part"):
        result = d.astype(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ComplexWarning)
        expected = z.astype(target)
    same_bits(result.to_host(), expected)


def test_complex_to_bool_reads_both_parts(backend):
    z = np.array([0j, 1j, 1 + 0j, complex(-0.0, -0.0), complex(np.nan, 0)], np.complex64)
    with pytest.warns(ComplexWarning):
        result = gpuvec.to_device(z).astype(bool).to_host()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ComplexWarning)
        np.testing.assert_array_equal(result, z.astype(bool))


@pytest.mark.parametrize("target", COMPLEX)
@pytest.mark.parametrize("source", REAL)
def test_astype_to_complex_as_numpy(backend, rng, source, target):
    x = (rng.standard_normal(64) * 50).astype(source)
    same_bits(gpuvec.to_device(x).astype(target).to_host(), x.astype(target))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_creation(backend, dtype):
    same_bits(gpuvec.zeros((2, 3), dtype=dtype).to_host(), np.zeros((2, 3), dtype))
    same_bits(gpuvec.ones(4, dtype=dtype).to_host(), np.ones(4, dtype))
    assert gpuvec.empty(3, dtype=dtype).dtype == dtype
    same_bits(gpuvec.full(5, 1.5 - 2j, dtype=dtype).to_host(), np.full(5, 1.5 - 2j, dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_fill_and_setitem(backend, rng, dtype):
    d = gpuvec.zeros(6, dtype=dtype)
    d.fill(3 - 4j)
    same_bits(d.to_host(), np.full(6, 3 - 4j, dtype))
    z = random_complex(rng, 3, dtype)
    d[1:4] = z
    expected = np.full(6, 3 - 4j, dtype)
    expected[1:4] = z
    same_bits(d.to_host(), expected)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_pickle_and_repr(backend, rng, dtype):
    z = random_complex(rng, 4, dtype)
    d = gpuvec.to_device(z)
    same_bits(pickle.loads(pickle.dumps(d)).to_host(), z)
    assert repr(d).endswith(f"dtype={np.dtype(dtype)})")


@pytest.mark.parametrize("dtype", COMPLEX)
def test_dlpack_keeps_the_dtype(backend, rng, dtype):
    if backend != "cuda":
        pytest.skip("DLPack and the CUDA array interface export device memory")
    d = gpuvec.to_device(random_complex(rng, 5, dtype))
    assert d.__cuda_array_interface__["typestr"] == np.dtype(dtype).str
    back = gpuvec.from_dlpack(d)
    same_bits(back.to_host(), d.to_host())


# -- elementwise -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
@pytest.mark.parametrize("dtype", COMPLEX)
def test_arithmetic_is_bit_exact(backend, rng, name, dtype):
    """Contiguous data: NumPy's vector loops, whose product fuses one
    multiply-add (its scalar loop, for negative strides, does not)."""
    a, b = random_complex(rng, 257, dtype), random_complex(rng, 257, dtype)
    b[:3] = [0j, 1e-30 + 0j, complex(0, -2)]
    function = getattr(gpuvec, name)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a, b)
    same_bits(function(gpuvec.to_device(a), gpuvec.to_device(b)).to_host(), expected)
    same_bits(function(a, b), expected)  # NumPy data


@pytest.mark.parametrize("dtype", COMPLEX)
def test_operators_and_promotion(backend, rng, dtype):
    z = random_complex(rng, 33, dtype)
    x = rng.standard_normal(33).astype(np.float32)
    d = gpuvec.to_device(z)
    same_bits((d + 1j).to_host(), z + 1j)  # a weak Python complex keeps complex64
    same_bits((2.5 * d).to_host(), 2.5 * z)
    same_bits((d - gpuvec.to_device(x)).to_host(), z - x)
    same_bits((gpuvec.to_device(x) / d).to_host(), x / z)
    same_bits((-d).to_host(), -z)
    same_bits((d * np.complex128(1 - 2j)).to_host(), z * np.complex128(1 - 2j))
    same_bits(gpuvec.add(gpuvec.to_device(x), 2j).to_host(), x + 2j)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_parts_and_conjugate(backend, rng, dtype):
    z = random_complex(rng, (6, 7), dtype)[:, ::2]
    d = gpuvec.to_device(z)
    same_bits(d.real.to_host(), z.real)
    same_bits(d.imag.to_host(), z.imag)
    same_bits(gpuvec.real(d).to_host(), np.real(z))
    same_bits(gpuvec.imag(d).to_host(), np.imag(z))
    same_bits(d.conj().to_host(), np.conj(z))
    same_bits(gpuvec.conjugate(d).to_host(), np.conjugate(z))
    same_bits(gpuvec.square(d).to_host(), np.square(z))
    # abs and angle: hypot and arctan2 of the parts, the hypot and arctan2
    # rows' budgets (NumPy's vector loop of abs scales the smaller part by
    # the larger one: not correctly rounded either)
    eps = np.finfo(z.real.dtype).eps
    for result, expected in [(abs(d), np.abs(z)), (gpuvec.angle(d), np.angle(z))]:
        result = result.to_host()
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result, expected, rtol=3 * eps, atol=0)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt"])
@pytest.mark.parametrize("dtype", COMPLEX)
def test_functions_within_budget(backend, rng, name, dtype):
    z = random_complex(rng, 513, dtype)
    if name == "exp":
        z = (z / 10).astype(dtype)  # no overflow
    z[:4] = [1 + 0j, -4 + 0j, complex(0.999, 0.03), complex(-0.6, 0.8)]
    result = getattr(gpuvec, name)(gpuvec.to_device(z)).to_host()
    normwise_close(result, getattr(np, name)(z), NORMWISE_ULPS)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_truth_values(backend, rng, dtype):
    z = random_complex(rng, 40, dtype)
    w = z.copy()
    w[::3] += 1j
    z[1], z[2], z[4] = complex(np.nan, 1), complex(1, np.inf), complex(np.nan, np.inf)
    d, e = gpuvec.to_device(z), gpuvec.to_device(w)
    for name in ["equal", "not_equal"]:
        np.testing.assert_array_equal(
            getattr(gpuvec, name)(d, e).to_host(), getattr(np, name)(z, w)
        )
    for name in ["isnan", "isinf", "isfinite"]:
        np.testing.assert_array_equal(getattr(gpuvec, name)(d).to_host(), getattr(np, name)(z))


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "bitwise_and", "left_shift"])
def test_ops_numpy_lacks_raise_its_type_error(backend, name):
    z = np.array([1 + 1j, 2 - 1j])
    with pytest.raises(TypeError) as numpy_error:
        getattr(np, name)(z, z)
    with pytest.raises(TypeError) as gpuvec_error:
        getattr(gpuvec, name)(gpuvec.to_device(z), gpuvec.to_device(z))
    assert str(gpuvec_error.value) == str(numpy_error.value)


def test_ops_without_complex_kernels_say_so(backend):
    z = gpuvec.to_device(np.array([1 + 1j, 2 - 1j]))
    with pytest.raises(TypeError, match="does not compute maximum on complex"):
        gpuvec.maximum(z, z)


# -- reductions ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("dtype", COMPLEX)
def test_sum_and_mean(backend, rng, name, axis, dtype):
    z = random_complex(rng, (33, 17), dtype)
    result = getattr(gpuvec, name)(gpuvec.to_device(z), axis=axis)
    expected = getattr(np, name)(z.astype(np.complex128), axis=axis)
    assert result.dtype == getattr(np, name)(z, axis=axis).dtype
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-5, atol=1e-4)
    numpy_result = getattr(gpuvec, name)(z, axis=axis)  # NumPy data
    np.testing.assert_allclose(numpy_result, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_dot_and_vdot(backend, rng, dtype):
    x, y = random_complex(rng, 301, dtype), random_complex(rng, 301, dtype)
    wide = x.astype(np.complex128), y.astype(np.complex128)
    d, e = gpuvec.to_device(x), gpuvec.to_device(y)
    dot, vdot = gpuvec.dot(d, e), gpuvec.vdot(d, e)
    assert np.asarray(dot).dtype == np.dot(x, y).dtype
    np.testing.assert_allclose(np.asarray(dot), np.dot(*wide), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(vdot), np.vdot(*wide), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(np.vdot(d, e)), np.vdot(*wide), rtol=1e-5)


def test_other_reductions_refuse_complex(backend):
    with pytest.raises(TypeError, match="complex"):
        gpuvec.max(gpuvec.to_device(np.array([1 + 1j, 2j])))
