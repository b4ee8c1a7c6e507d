"""float16 DeviceArrays: stored as IEEE half, computed in float32 as NumPy's
float16 loops compute, with NumPy's result dtypes, on both backends.

Conversions are compared with NumPy bit for bit (every float16, random and
special float32 and float64 bits, integers at the edges); the exact ops
(+ - * / sqrt) bit for bit too, float32 results rounded once being NumPy's;
transcendentals within one float16 ulp; reductions within float16's
precision, with NumPy's result dtypes.
"""

import pickle
import warnings

import numpy as np
import pytest
from conftest import COMPUTED_REAL_DTYPES, LAYOUTS, make_layout, random_array
from integer_casts import numpy_cast

import gpuvec
from gpuvec._dtypes import ARRAY_DTYPE_NAMES, ARRAY_DTYPES

F16 = np.dtype(np.float16)
OTHER_DTYPES = COMPUTED_REAL_DTYPES
# Half bits that conversions get wrong first: signed zeros, the smallest and
# largest subnormals, the smallest normal, the largest finite, infinities,
# NaNs (quiet and signalling, with payloads, of both signs), 1 and 1/3.
SPECIAL_BITS = [
    0x0000,
    0x8000,
    0x0001,
    0x8001,
    0x03FF,
    0x0400,
    0x7BFF,
    0xFBFF,
    0x7C00,
    0xFC00,
    0x7C01,
    0x7E00,
    0xFE00,
    0x7D00,
    0x3C00,
    0x3555,
]


def every_half() -> np.ndarray:
    """All 65536 float16 bit patterns, NaNs and infinities included."""
    return np.arange(2**16, dtype=np.uint16).view(np.float16)


def special_halves() -> np.ndarray:
    return np.array(SPECIAL_BITS, np.uint16).view(np.float16)


def random_halves(rng, shape) -> np.ndarray:
    """Random float16 values of both signs and several magnitudes, with the
    special values among them."""
    x = (random_array(rng, shape, np.float64) * 10.0 ** rng.integers(-3, 3, shape)).astype(F16)
    flat = x.reshape(-1)
    specials = special_halves()
    if flat.size >= 2 * specials.size:
        flat[:: max(1, flat.size // specials.size)][: specials.size] = specials
    return x


def assert_same_values(result, expected) -> None:
    """Equal dtypes and equal bits, where NaNs need only be NaNs (their payloads
    come from the processor's arithmetic)."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(result), nan)
    bits = np.dtype(f"u{expected.dtype.itemsize}") if expected.dtype.kind == "f" else None
    if bits is None:
        np.testing.assert_array_equal(result, expected)
    else:
        np.testing.assert_array_equal(result.view(bits)[~nan], expected.view(bits)[~nan])


def within_half_ulp(result, expected, ulps=1) -> None:
    """float16 results within `ulps` float16 spacings of NumPy's (infinities
    and NaNs where NumPy has them)."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype == F16
    np.testing.assert_array_equal(np.isnan(result), np.isnan(expected))
    finite = np.isfinite(expected)
    infinite = ~finite & ~np.isnan(expected)
    np.testing.assert_array_equal(result[infinite], expected[infinite])
    a = result[finite].astype(np.float64)
    b = expected[finite].astype(np.float64)
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(F16)).astype(np.float64)
    assert np.all(np.abs(a - b) <= ulps * spacing), np.max(np.abs(a - b) / spacing)


def numpy_quietly(function, *args, **kwargs):
    """NumPy's result, without its warnings (overflow, invalid values)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(*args, **kwargs)


def host(value):
    return value.to_host() if isinstance(value, gpuvec.DeviceArray) else value


# -- storage ---------------------------------------------------------------------------------


def test_a_dtype_of_its_own():
    assert F16 in ARRAY_DTYPES
    assert "float16" in ARRAY_DTYPE_NAMES


def test_round_trip_keeps_every_bit(backend):
    x = every_half()
    d = gpuvec.to_device(x)
    assert d.dtype == F16
    assert d.itemsize == 2
    assert d.nbytes == x.nbytes
    np.testing.assert_array_equal(d.to_host().view(np.uint16), x.view(np.uint16))
    np.testing.assert_array_equal(gpuvec.asarray(x).to_host().view(np.uint16), x.view(np.uint16))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_round_trip_of_layouts(backend, rng, layout):
    x = make_layout(rng, layout, F16)
    d = gpuvec.to_device(x)
    assert d.dtype == F16
    assert d.shape == x.shape
    np.testing.assert_array_equal(d.to_host().view(np.uint16), x.view(np.uint16))
    # a strided device view downloads as it is, and copies keep the bits
    view = gpuvec.to_device(make_layout(rng, "2d-c", F16))[::-1, ::3]
    np.testing.assert_array_equal(view.copy().to_host(), view.to_host())


def test_read_only_and_byte_swapped_input(backend, rng):
    x = random_halves(rng, (17, 5))
    x.flags.writeable = False
    np.testing.assert_array_equal(gpuvec.to_device(x).to_host().view(np.uint16), x.view(np.uint16))
    swapped = x.astype(">f2")
    d = gpuvec.to_device(swapped)
    assert d.dtype == F16
    np.testing.assert_array_equal(d.to_host().view(np.uint16), x.view(np.uint16))


def test_empty_and_0d(backend):
    empty = gpuvec.to_device(np.zeros((0, 3), F16))
    assert empty.dtype == F16
    assert empty.shape == (0, 3)
    assert empty.to_host().shape == (0, 3)
    scalar = gpuvec.to_device(np.float16(-0.0))
    assert scalar.shape == ()
    assert scalar.dtype == F16
    assert scalar.to_host().view(np.uint16) == 0x8000


@pytest.mark.parametrize("make", ["zeros", "ones", "empty", "full", "arange"])
def test_creation(backend, make):
    if make == "full":
        d, expected = gpuvec.full((3, 2), 1 / 3, F16), np.full((3, 2), 1 / 3, F16)
    elif make == "arange":
        d, expected = gpuvec.arange(0.5, 7, 0.7, F16), np.arange(0.5, 7, 0.7, dtype=F16)
    else:
        d, expected = getattr(gpuvec, make)((4, 3), F16), getattr(np, make)((4, 3), F16)
    assert d.dtype == F16
    if make != "empty":
        assert_same_values(d.to_host(), expected)
    assert gpuvec.zeros_like(d).dtype == F16


def test_setitem_and_masks(backend, rng):
    x = random_halves(rng, (9, 7))
    d = gpuvec.to_device(x)
    mask = x > 0
    assert_same_values(d[mask].to_host(), x[mask])
    d[mask] = 1 / 3
    x[mask] = 1 / 3
    assert_same_values(d.to_host(), x)
    d[:, 2] = np.arange(9, dtype=np.float32) / 7
    x[:, 2] = np.arange(9, dtype=np.float32) / 7
    assert_same_values(d.to_host(), x)


def test_pickle(backend, rng):
    x = random_halves(rng, (5, 4))
    d = pickle.loads(pickle.dumps(gpuvec.to_device(x)))
    assert d.dtype == F16
    np.testing.assert_array_equal(d.to_host().view(np.uint16), x.view(np.uint16))


# -- conversions -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", OTHER_DTYPES)
def test_astype_from_every_half(backend, dtype):
    x = every_half()
    result = gpuvec.to_device(x).astype(dtype)
    assert result.dtype == dtype
    expected = numpy_cast(x, dtype) if np.dtype(dtype).kind in "iu" else x.astype(dtype)
    assert_same_values(result.to_host(), expected)
    if np.dtype(dtype).kind == "f":  # NaN payloads too: NumPy widens them exactly
        np.testing.assert_array_equal(
            result.to_host().view(f"u{np.dtype(dtype).itemsize}"),
            expected.view(f"u{np.dtype(dtype).itemsize}"),
        )


def _float32_bits_near_halves(rng) -> np.ndarray:
    """float32 values that round to float16 in every way: random bits, each
    float16 and its neighbours, the midpoints between float16s (ties) and
    their neighbours, the edges of overflow and underflow, and NaNs."""
    halves = every_half()
    finite = np.unique(halves[np.isfinite(halves)].astype(np.float64))
    midpoints = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)
    near = halves.astype(np.float32).view(np.uint32).astype(np.int64)[:, None] + np.arange(-2, 3)
    x = np.concatenate(
        [
            rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
            near.ravel().astype(np.uint32).view(np.float32),
            midpoints,
            np.nextafter(midpoints, np.float32(np.inf)),
            np.nextafter(midpoints, np.float32(-np.inf)),
            np.array(
                [
                    65504,
                    65519.996,
                    65520,
                    65536,
                    1e38,
                    5.9604645e-08,
                    2.9802322e-08,
                    2.9802326e-08,
                    1e-45,
                    -0.0,
                ],
                np.float32,
            ),
            (np.uint32(0x7F800000) + rng.integers(0, 2**23, 1000).astype(np.uint32)).view(
                np.float32
            ),
        ]
    )
    return np.concatenate([x, -x])


def _float64_bits_near_halves(rng) -> np.ndarray:
    """As for float32, with the doubles that float32 would round to a tie first
    (double rounding gives them the wrong float16)."""
    halves = every_half()
    finite = np.unique(halves[np.isfinite(halves)].astype(np.float64))
    midpoints = (finite[:-1] + finite[1:]) / 2
    x = np.concatenate(
        [
            rng.integers(0, 2**64, 200_000, dtype=np.uint64).view(np.float64),
            midpoints,
            np.nextafter(midpoints, np.inf),
            np.nextafter(midpoints, -np.inf),
            midpoints * (1 + 2.0**-30),
            midpoints * (1 - 2.0**-30),
            np.array([65504, 65519.99999, 65520, 1e300, 5e-324, 2.9802322387695312e-08]),
            (np.uint64(0x7FF0000000000000) + rng.integers(1, 2**52, 1000).astype(np.uint64)).view(
                np.float64
            ),
        ]
    )
    return np.concatenate([x, -x])


@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_astype_to_half_rounds_once_to_nearest_even(backend, rng, source):
    x = _float32_bits_near_halves(rng) if source == np.float32 else _float64_bits_near_halves(rng)
    expected = numpy_quietly(x.astype, F16)
    if source == np.float64:  # the set holds values that double rounding gets wrong
        assert np.any(numpy_quietly(lambda: x.astype(np.float32).astype(F16)) != expected)
    result = gpuvec.to_device(x).astype(F16)
    assert result.dtype == F16
    np.testing.assert_array_equal(result.to_host().view(np.uint16), expected.view(np.uint16))
    # the upload's conversion (to_device with a dtype) is the same one
    uploaded = gpuvec.to_device(x, dtype=F16).to_host()
    np.testing.assert_array_equal(uploaded.view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize("dtype", [t for t in OTHER_DTYPES if np.dtype(t).kind in "biu"])
def test_astype_to_half_from_integers(backend, rng, dtype):
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    if info is None:
        x = rng.integers(0, 2, 1000).astype(bool)
    else:
        edges = [0, 1, 2047, 2048, 2049, 2050, 2051, 4097, 65504, 65519, 65520, 65521, 2**24 + 1]
        edges = [v for v in edges + [-v for v in edges] if info.min <= v <= info.max]
        x = np.concatenate(
            [
                np.array([*edges, info.min, info.max], dtype),
                rng.integers(info.min, info.max, 5000, dtype=dtype, endpoint=True),
            ]
        )
    expected = numpy_quietly(x.astype, F16)
    result = gpuvec.to_device(x).astype(F16)
    np.testing.assert_array_equal(result.to_host().view(np.uint16), expected.view(np.uint16))


def test_copy_into_half_and_precision(backend, rng):
    x = random_array(rng, (33,), np.float64)
    d = gpuvec.zeros(33, F16)
    d[...] = x
    np.testing.assert_array_equal(d.to_host().view(np.uint16), x.astype(F16).view(np.uint16))
    with gpuvec.precision("float32"):  # the precision keeps its meaning: float32 results
        assert (gpuvec.to_device(x.astype(F16)) + 1).dtype == np.float32


# -- elementwise -----------------------------------------------------------------------------

EXACT = ["add", "subtract", "multiply", "divide"]


@pytest.mark.parametrize("name", EXACT)
def test_exact_binary_ops_are_numpys_bits(backend, rng, name):
    x, y = random_halves(rng, (61, 7)), random_halves(rng, (61, 7))[::-1]
    expected = numpy_quietly(getattr(np, name), x, y)
    assert expected.dtype == F16
    result = getattr(gpuvec, name)(gpuvec.to_device(x), gpuvec.to_device(y))
    assert isinstance(result, gpuvec.DeviceArray)
    assert_same_values(result.to_host(), expected)
    assert_same_values(numpy_quietly(getattr(gpuvec, name), x, y), expected)  # NumPy data


def test_every_half_through_exact_unary_ops(backend):
    x = every_half()
    d = gpuvec.to_device(x)
    assert_same_values(numpy_quietly(gpuvec.sqrt, d).to_host(), numpy_quietly(np.sqrt, x))
    assert_same_values((-d).to_host(), -x)
    assert_same_values(abs(d).to_host(), np.abs(x))
    assert_same_values((d * d).to_host(), numpy_quietly(np.multiply, x, x))


@pytest.mark.parametrize("name", ["exp", "log", "sin", "tanh", "expm1", "log1p"])
def test_transcendentals_within_an_ulp(backend, rng, name):
    x = random_halves(rng, (4099,))
    if name.startswith("log"):
        x = np.abs(x)
    expected = numpy_quietly(getattr(np, name), x)
    result = numpy_quietly(getattr(gpuvec, name), gpuvec.to_device(x))
    within_half_ulp(result.to_host(), expected)


@pytest.mark.parametrize(
    "other",
    [
        np.float32,
        np.float64,
        np.int8,
        np.uint8,
        np.int16,
        np.int64,
        np.bool_,
        "python float",
        "python int",
        "numpy float32 scalar",
        "numpy float16 scalar",
    ],
)
def test_mixed_operands_take_numpys_dtype(backend, rng, other):
    x = random_halves(rng, (31,))
    if other == "python float":
        y = 2.5
    elif other == "python int":
        y = 3
    elif other == "numpy float32 scalar":
        y = np.float32(1 / 3)
    elif other == "numpy float16 scalar":
        y = np.float16(1 / 3)
    elif other == np.bool_:
        y = rng.integers(0, 2, 31).astype(bool)
    elif np.dtype(other).kind in "iu":
        y = rng.integers(0, 100, 31).astype(other)
    else:
        y = random_array(rng, (31,), other)
    dy = gpuvec.to_device(y) if isinstance(y, np.ndarray) else y
    for name in ["add", "multiply"]:
        expected = numpy_quietly(getattr(np, name), x, y)
        result = getattr(gpuvec, name)(gpuvec.to_device(x), dy)
        assert_same_values(host(result), expected)
        reflected = getattr(gpuvec, name)(dy, gpuvec.to_device(x))
        assert_same_values(host(reflected), numpy_quietly(getattr(np, name), y, x))


def test_float_ops_of_small_integers_give_float16(backend, rng):
    x = rng.integers(-100, 100, 257).astype(np.int8)
    expected = numpy_quietly(np.sqrt, x)
    assert expected.dtype == F16
    assert_same_values(numpy_quietly(gpuvec.sqrt, gpuvec.to_device(x)).to_host(), expected)
    assert_same_values(numpy_quietly(gpuvec.sqrt, x), expected)


def test_comparisons_and_where(backend, rng):
    x, y = random_halves(rng, (40,)), random_halves(rng, (40,))
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    for name in ["less", "equal", "greater_equal", "not_equal"]:
        assert_same_values(getattr(gpuvec, name)(dx, dy).to_host(), getattr(np, name)(x, y))
    z = random_array(rng, (40,), np.float32)
    assert_same_values(gpuvec.less(dx, gpuvec.to_device(z)).to_host(), np.less(x, z))
    cond = x > y
    assert_same_values(gpuvec.where(cond, dx, dy).to_host(), np.where(cond, x, y))
    assert_same_values(gpuvec.where(cond, dx, gpuvec.to_device(z)).to_host(), np.where(cond, x, z))
    assert_same_values(np.isnan(dx).to_host(), np.isnan(x))


def test_out_of_either_dtype_rounds_to_half_first(backend, rng):
    x, y = random_halves(rng, (50,)), random_halves(rng, (50,))
    dx, dy = gpuvec.to_device(x), gpuvec.to_device(y)
    for out_dtype in [F16, np.float32, np.float64]:
        expected = np.empty(50, out_dtype)
        numpy_quietly(np.add, x, y, out=expected)
        out = gpuvec.zeros(50, out_dtype)
        assert numpy_quietly(gpuvec.add, dx, dy, out=out) is out
        assert_same_values(out.to_host(), expected)
        host_out = np.zeros(50, out_dtype)
        numpy_quietly(gpuvec.add, x, y, out=host_out)
        assert_same_values(host_out, expected)
    # float32 arithmetic into a float16 out rounds once (NumPy's same_kind cast)
    out = gpuvec.zeros(50, F16)
    gpuvec.add(dx.astype(np.float32), 1 / 3, out=out)
    expected = numpy_quietly(lambda: (x.astype(np.float32) + np.float32(1 / 3)).astype(F16))
    assert_same_values(out.to_host(), expected)
    with pytest.raises(TypeError):
        gpuvec.add(dx, dy, out=gpuvec.zeros(50, np.int16))


@pytest.mark.parametrize("layout", ["step-3-offset", "reversed", "2d-fortran", "3d-mixed", "0d"])
def test_layouts_of_ops(backend, rng, layout):
    x = make_layout(rng, layout, F16)
    d = gpuvec.to_device(x)
    assert_same_values(host(d * 3 + d), numpy_quietly(lambda a: a * 3 + a, x))
    assert_same_values(host(gpuvec.add(x, x)), numpy_quietly(np.add, x, x))


def test_numpy_scalars_of_scalars(backend):
    result = gpuvec.add(np.float16(1.5), np.float16(2.25))
    assert_same_values(result, np.add(np.float16(1.5), np.float16(2.25)))


def test_in_place_ops(backend, rng):
    x = random_halves(rng, (23,))
    d = gpuvec.to_device(x)
    d += 1.5
    d *= d
    expected = numpy_quietly(lambda a: (a + np.float16(1.5)) * (a + np.float16(1.5)), x)
    assert_same_values(d.to_host(), expected)


# -- reductions ------------------------------------------------------------------------------


def _close_to_numpy(result, expected, exact64, scale):
    """A result of NumPy's dtype (``expected``'s), within float16's rounding
    (an ulp: 2**-10 relative, and its part of a sum's magnitude) of the
    float64 reduction ``exact64``. gpuvec accumulates in float64 and rounds
    once; NumPy's own float16 var and std round every step to float16, so
    gpuvec's value is compared with the exact one, not NumPy's."""
    if not isinstance(result, float):  # a whole reduction of NumPy data is a number
        assert host(result).dtype == np.asarray(expected).dtype
    result = np.asarray(host(result)).astype(np.float64)
    np.testing.assert_allclose(result, exact64, rtol=2**-10, atol=2**-11 * scale)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "std", "var", "prod"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions_return_float16(backend, rng, name, axis):
    x = (random_array(rng, (37, 9), np.float64) / (10 if name == "prod" else 1)).astype(F16)
    if name == "prod":
        x = (1 + x / 50).astype(F16)
    d = gpuvec.to_device(x)
    expected = numpy_quietly(getattr(np, name), x, axis=axis)
    exact64 = getattr(np, name)(x.astype(np.float64), axis=axis)
    result = getattr(gpuvec, name)(d, axis=axis)
    scale = 2**-10 * float(np.max(np.abs(x))) * (x.size if name == "sum" else 1)
    if axis is None:  # a DeviceArray of 0 dimensions, of NumPy's dtype
        assert result.dtype == F16
        assert result.shape == ()
    _close_to_numpy(result, expected, exact64, scale)
    if name in ("max", "min"):  # exact
        assert_same_values(host(result), np.asarray(expected))
    kept = getattr(gpuvec, name)(d, axis=axis, keepdims=True)
    assert kept.dtype == F16
    assert kept.shape == numpy_quietly(getattr(np, name), x, axis=axis, keepdims=True).shape
    # NumPy data: an array of NumPy's dtype for an axis, a Python number for all
    on_host = getattr(gpuvec, name)(x, axis=axis)
    if axis is None:
        assert isinstance(on_host, float)
        assert on_host == float(np.float16(on_host))  # a float16 value
    else:
        assert on_host.dtype == F16
    _close_to_numpy(on_host, expected, exact64, scale)


def test_reductions_of_other_dtypes(backend, rng):
    x = random_halves(rng, (40, 6))
    x[np.isnan(x) | np.isinf(x)] = 1
    d = gpuvec.to_device(x)
    assert gpuvec.sum(d, dtype=np.float32).dtype == np.float32
    np.testing.assert_allclose(
        float(gpuvec.sum(d, dtype=np.float32)), np.sum(x, dtype=np.float32), rtol=1e-5
    )
    assert gpuvec.argmax(d) == np.argmax(x)
    assert gpuvec.argmin(x) == np.argmin(x)
    np.testing.assert_array_equal(gpuvec.argmax(d, axis=0), np.argmax(x, axis=0))
    assert bool(gpuvec.any(d)) == np.any(x)
    assert bool(gpuvec.all(d)) == np.all(x)
    np.testing.assert_array_equal(gpuvec.count_nonzero(d, axis=1), np.count_nonzero(x, axis=1))


def test_reductions_of_special_values(backend):
    x = special_halves()
    d = gpuvec.to_device(x)
    assert np.isnan(float(gpuvec.max(d)))
    finite = x[np.isfinite(x)]
    assert_same_values(gpuvec.max(gpuvec.to_device(finite)).to_host(), np.max(finite)[()])
    assert float(gpuvec.sum(gpuvec.to_device(np.full(4, 60000, F16)))) == np.inf  # overflows


def test_reductions_of_empty_and_strided(backend, rng):
    empty = gpuvec.to_device(np.zeros((0, 4), F16))
    assert_same_values(gpuvec.sum(empty, axis=0).to_host(), np.sum(np.zeros((0, 4), F16), axis=0))
    x = make_layout(rng, "3d-mixed", F16)
    exact64 = np.mean(x.astype(np.float64), axis=1)
    _close_to_numpy(gpuvec.mean(gpuvec.to_device(x), axis=1), np.mean(x, axis=1), exact64, 1.0)


def test_scans_name_float16(backend):
    d = gpuvec.to_device(np.ones(5, F16))
    with pytest.raises(TypeError, match="float16"):
        gpuvec.cumsum(d)


# -- other libraries -------------------------------------------------------------------------


def test_host_dlpack(rng):
    previous = gpuvec.set_backend("host")
    try:
        x = random_halves(rng, (6, 5))
        d = gpuvec.from_dlpack(x)
        assert d.dtype == F16
        np.testing.assert_array_equal(np.from_dlpack(d).view(np.uint16), x.view(np.uint16))
    finally:
        gpuvec.set_backend(previous)


def test_torch_and_cupy_share_float16(rng):
    from conftest import skip_without_cuda

    skip_without_cuda()
    x = random_halves(rng, (6, 5))
    d = gpuvec.to_device(x)
    assert d.__cuda_array_interface__["typestr"] == "<f2"
    shared = 0
    for module_name in ["torch", "cupy"]:
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        other = module.from_dlpack(d)
        back = gpuvec.asarray(other)
        assert back.dtype == F16
        np.testing.assert_array_equal(back.to_host().view(np.uint16), x.view(np.uint16))
        from_dlpack = gpuvec.from_dlpack(other)
        np.testing.assert_array_equal(from_dlpack.to_host().view(np.uint16), x.view(np.uint16))
        shared += 1
    if not shared:
        pytest.skip("neither torch nor cupy is importable")
