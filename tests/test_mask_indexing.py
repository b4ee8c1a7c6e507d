"""Boolean masks: d[mask] and d[mask] = values, against NumPy, on both backends.

The mask is a NumPy bool array or a bool DeviceArray; the data is float32 or
float64 in every layout (C, Fortran, reversed, strided, 0-d); the results are
NumPy's, bit for bit, and so are the errors.
"""

import numpy as np
import pytest
from conftest import random_array

import gpuvec
from gpuvec import DeviceArray, _core

DTYPES = [np.float32, np.float64]

# Odd sizes: empty, one element, primes and powers of two plus and minus one.
SIZES = [0, 1, 2, 3, 31, 32, 33, 127, 1023, 1025, 4099, 65537]

# How often a mask is true: never, sometimes, about half the time, always.
DENSITIES = [0.0, 0.01, 0.5, 1.0]

# Device views of a NumPy array x (same shape and values, another layout),
# made with DeviceArray's own views: to_device copies into C order.
DEVICE_LAYOUTS = {
    "c": lambda x: gpuvec.to_device(x),
    "fortran": lambda x: gpuvec.to_device(x.T).T,
    "reversed": lambda x: gpuvec.to_device(x[(slice(None, None, -1),) * x.ndim])[
        (slice(None, None, -1),) * x.ndim
    ],
    "strided": lambda x: _strided_view(x),
}


def _strided_view(x):
    """A device view of x's values with a step of 2 in its last dimension."""
    base = np.zeros((*x.shape[:-1], 2 * x.shape[-1]), x.dtype)
    base[..., ::2] = x
    return gpuvec.to_device(base)[..., ::2]


def random_mask(rng, shape, density):
    return rng.random(shape) < density


def bool_device_array(mask):
    """A bool DeviceArray holding mask, on the active backend."""
    return gpuvec.to_device(np.asarray(mask, dtype=bool))


@pytest.fixture(params=["numpy", "device"])
def mask_kind(request):
    """Whether a test's masks are NumPy arrays or bool DeviceArrays."""
    return request.param


def as_kind(mask, kind):
    return bool_device_array(mask) if kind == "device" else mask


def assert_same_bits(result, expected):
    """Equal element for element, NaN payloads and signs of zero included."""
    result = np.asarray(result)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype
    unsigned = {4: np.uint32, 8: np.uint64}[expected.dtype.itemsize]
    np.testing.assert_array_equal(result.view(unsigned), expected.view(unsigned))


# -- d[mask] --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("density", DENSITIES)
def test_getitem_1d(backend, rng, mask_kind, dtype, size, density):
    x = random_array(rng, size, dtype)
    mask = random_mask(rng, size, density)
    result = gpuvec.to_device(x)[as_kind(mask, mask_kind)]
    assert isinstance(result, DeviceArray)
    assert_same_bits(result.to_host(), x[mask])


def test_getitem_large(backend, rng):
    x = random_array(rng, 1_000_003, np.float32)
    mask = random_mask(rng, x.shape, 0.3)
    assert_same_bits(gpuvec.to_device(x)[mask].to_host(), x[mask])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4), (31, 33), (5, 1, 7), (4, 9, 17), (2, 0, 3)])
@pytest.mark.parametrize("layout", DEVICE_LAYOUTS)
def test_getitem_nd_layouts_in_c_order(backend, rng, mask_kind, dtype, shape, layout):
    x = random_array(rng, shape, dtype)
    mask = random_mask(rng, shape, 0.5)
    d = DEVICE_LAYOUTS[layout](x) if x.size else gpuvec.to_device(x)
    np.testing.assert_array_equal(d.to_host(), x)
    assert_same_bits(d[as_kind(mask, mask_kind)].to_host(), x[mask])


def test_getitem_mask_layouts(backend, rng):
    """A mask of any layout: Fortran, reversed, a transposed view."""
    x = random_array(rng, (13, 17), np.float64)
    d = gpuvec.to_device(x)
    base = random_mask(rng, (17, 13), 0.5)
    for mask in (np.asfortranarray(base.T), base.T, base[::-1, ::-1].T):
        assert_same_bits(d[mask].to_host(), x[mask])


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_keeps_nan_inf_and_signed_zero(backend, dtype):
    x = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -np.nan], dtype)
    mask = np.array([True, True, False, True, True, False, True])
    assert_same_bits(gpuvec.to_device(x)[mask].to_host(), x[mask])


def test_getitem_of_leading_dimensions(backend, rng, mask_kind):
    """A mask of the first dimensions selects rows, as in NumPy."""
    x = random_array(rng, (6, 5, 4), np.float64)
    d = gpuvec.to_device(x)
    for shape in [(6,), (6, 5)]:
        mask = random_mask(rng, shape, 0.5)
        assert_same_bits(d[as_kind(mask, mask_kind)].to_host(), x[mask])
    rows = np.array([True, False, True, True, False, False])
    assert_same_bits(d[(rows,)].to_host(), x[(rows,)])  # a tuple of one mask
    empty = gpuvec.to_device(np.zeros((3, 0)))
    assert empty[np.array([True, False, True])].shape == (2, 0)


def test_getitem_bool_scalars(backend):
    """d[True] is d[None] (a copy) and d[False] is empty, as in NumPy; on a 0-d
    array a bool scalar is a mask of its shape."""
    x = np.arange(6.0).reshape(2, 3)
    d = gpuvec.to_device(x)
    for key in (True, False, np.True_, np.False_, np.array(True)):
        assert_same_bits(d[key].to_host(), x[key])
    z = gpuvec.to_device(np.array(2.5))
    for key in (True, False, np.True_, np.array(False)):
        result = z[key]
        assert result.shape == np.array(2.5)[key].shape
        assert_same_bits(result.to_host(), np.array(2.5)[key])


def test_getitem_list_of_bools(backend):
    x = np.arange(4.0)
    assert_same_bits(
        gpuvec.to_device(x)[[True, False, True, True]].to_host(), x[[True, False, True, True]]
    )


def test_getitem_read_only(backend, rng):
    """Reading through a mask needs no write access."""
    x = random_array(rng, 7, np.float64)
    view = gpuvec.to_device(x)._broadcast_to((3, 7))
    mask = random_mask(rng, (3, 7), 0.5)
    assert_same_bits(view[mask].to_host(), np.broadcast_to(x, (3, 7))[mask])


def test_getitem_result_is_a_copy(backend):
    x = np.arange(5.0)
    d = gpuvec.to_device(x)
    selected = d[x > 1]
    selected += 100.0
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize(
    ("shape", "mask_shape", "message"),
    [
        (
            (3,),
            (4,),
            "boolean index did not match indexed array along axis 0; size of axis is 3 but "
            "size of corresponding boolean axis is 4",
        ),
        (
            (3, 4),
            (3, 5),
            "boolean index did not match indexed array along axis 1; size of axis is 4 but "
            "size of corresponding boolean axis is 5",
        ),
        ((4,), (4, 1), "too many indices for array: array is 1-dimensional, but 2 were indexed"),
    ],
)
def test_mask_of_wrong_shape(backend, mask_kind, shape, mask_shape, message):
    x = np.zeros(shape)
    mask = np.ones(mask_shape, bool)
    d = gpuvec.to_device(x)
    for index in (lambda a, m: a[m], lambda a, m: a.__setitem__(m, 1.0)):
        with pytest.raises(IndexError) as numpy_error:
            index(x, mask)
        with pytest.raises(IndexError) as error:
            index(d, as_kind(mask, mask_kind))
        assert str(error.value) == str(numpy_error.value) == message


@pytest.mark.parametrize(
    ("shape", "mask_shape"),
    [((65,), (0,)), ((1,), (0,)), ((2, 3), (0,)), ((2, 3), (0, 3)), ((2, 3), (2, 0))],
)
def test_mask_of_no_elements_fits_any_length(backend, rng, mask_kind, shape, mask_shape):
    """NumPy takes a mask axis of length 0 for an axis of any length: nothing is
    selected or written (values must still fit the empty selection)."""
    x = random_array(rng, shape, np.float64)
    d = gpuvec.to_device(x)
    mask = np.zeros(mask_shape, bool)
    expected = x[mask]
    result = d[as_kind(mask, mask_kind)]
    assert result.shape == expected.shape
    d[as_kind(mask, mask_kind)] = 7.0
    assert_same_bits(d.to_host(), x)
    with pytest.raises(ValueError, match=r"2 input values|value array of shape"):
        x[mask] = np.ones(2)
    with pytest.raises(ValueError, match=r"2 input values|value array of shape"):
        d[as_kind(mask, mask_kind)] = np.ones(2)
    assert_same_bits(d.to_host(), x)


def test_other_indices_still_refused(backend):
    d = gpuvec.ones(5)
    with pytest.raises(TypeError, match="basic indexing only"):
        d[[0, 1]]
    with pytest.raises(TypeError, match="basic indexing only"):
        d[np.array([True, False, True, False, True]), None]  # a mask with another index
    with pytest.raises(TypeError, match="basic indexing only"):
        d[gpuvec.ones(5)]  # a float DeviceArray is no mask


# -- d[mask] = values -----------------------------------------------------------------------------


def values_of(kind, values, dtype):
    """values as a test passes them: a number, a NumPy array, a list or a DeviceArray."""
    if kind == "list":
        return values.tolist()
    if kind == "device":
        return gpuvec.to_device(values, dtype=dtype)
    return values


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("values_kind", ["numpy", "list", "device"])
def test_setitem_one_value_each(backend, rng, mask_kind, dtype, size, density, values_kind):
    x = random_array(rng, size, dtype)
    mask = random_mask(rng, size, density)
    values = random_array(rng, int(mask.sum()), dtype)
    d = gpuvec.to_device(x)
    d[as_kind(mask, mask_kind)] = values_of(values_kind, values, dtype)
    x[mask] = values
    assert_same_bits(d.to_host(), x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "value",
    [
        2.5,
        -1,
        True,
        np.float32(0.1),
        np.float64(-0.0),
        np.nan,
        -np.inf,
        np.array(7.0),
        [3.0],
        np.array([[4.0]])[0],
    ],
)
def test_setitem_one_value_everywhere(backend, rng, mask_kind, dtype, value):
    x = random_array(rng, 1025, dtype)
    mask = random_mask(rng, x.shape, 0.5)
    d = gpuvec.to_device(x)
    d[as_kind(mask, mask_kind)] = value
    x[mask] = value
    assert_same_bits(d.to_host(), x)


def test_setitem_device_value_everywhere(backend, rng):
    """A 0-d or one-element DeviceArray is one value, of either float dtype."""
    x = random_array(rng, 33, np.float64)
    mask = random_mask(rng, x.shape, 0.5)
    d = gpuvec.to_device(x)
    d[mask] = gpuvec.full((), 1.1, np.float32)
    x[mask] = np.float32(1.1)
    assert_same_bits(d.to_host(), x)
    d[~mask] = gpuvec.full((1,), -2.0)
    x[~mask] = -2.0
    assert_same_bits(d.to_host(), x)


def test_setitem_converts_values(backend, rng):
    """Values of another dtype are converted to the array's, as NumPy converts them."""
    x = random_array(rng, 40, np.float32)
    mask = random_mask(rng, x.shape, 0.5)
    values = random_array(rng, int(mask.sum()), np.float64)
    for given in (values, gpuvec.to_device(values), np.arange(mask.sum()), "1.5"):
        d = gpuvec.to_device(x)
        d[mask] = given
        expected = x.copy()
        expected[mask] = given.to_host() if isinstance(given, DeviceArray) else given
        assert_same_bits(d.to_host(), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4), (31, 33), (4, 9, 17)])
@pytest.mark.parametrize("layout", DEVICE_LAYOUTS)
def test_setitem_nd_layouts_in_c_order(backend, rng, mask_kind, dtype, shape, layout):
    x = random_array(rng, shape, dtype)
    mask = random_mask(rng, shape, 0.5)
    values = random_array(rng, int(mask.sum()), dtype)
    d = DEVICE_LAYOUTS[layout](x)
    d[as_kind(mask, mask_kind)] = values
    x[mask] = values
    assert_same_bits(d.to_host(), x)


def test_setitem_writes_only_the_view(backend, rng):
    """A masked write into a view leaves the rest of the base array alone."""
    base = np.full((9, 12), -7.25)  # poison: no value a test writes
    d = gpuvec.to_device(base)
    view, expected = d[1:-1, 2::3], base.copy()
    mask = random_mask(rng, view.shape, 0.5)
    view[mask] = np.arange(mask.sum(), dtype=np.float64)
    expected[1:-1, 2::3][mask] = np.arange(mask.sum(), dtype=np.float64)
    assert_same_bits(d.to_host(), expected)


def test_setitem_of_leading_dimensions(backend, rng, mask_kind):
    """Values broadcast to the shape of d[mask], as in NumPy."""
    x = random_array(rng, (6, 5), np.float64)
    rows = np.array([True, False, True, True, False, True])
    for value in (
        3.0,
        np.arange(5.0),
        np.arange(4.0).reshape(4, 1),
        np.ones((1, 4, 5)),
        gpuvec.to_device(np.arange(5.0)),
    ):
        d = gpuvec.to_device(x)
        d[as_kind(rows, mask_kind)] = value
        expected = x.copy()
        expected[rows] = value.to_host() if isinstance(value, DeviceArray) else value
        assert_same_bits(d.to_host(), expected)
    d = gpuvec.to_device(x)
    d[True] = 9.0
    assert_same_bits(d.to_host(), np.full_like(x, 9.0))
    d[False] = 1.0
    assert_same_bits(d.to_host(), np.full_like(x, 9.0))


def test_setitem_0d(backend):
    z = gpuvec.to_device(np.array(1.0))
    z[np.False_] = 5.0
    assert float(z) == 1.0
    z[np.array(True)] = 5.0
    assert float(z) == 5.0


@pytest.mark.parametrize(
    ("shape", "mask", "values"),
    [
        ((4,), [True, False, True, True], np.ones(2)),
        ((4,), [True, False, True, True], np.ones(4)),
        ((4,), [False] * 4, [1.0, 2.0]),
        ((2, 3), [[True, False, True], [True, True, False]], np.ones(5)),
    ],
)
def test_setitem_wrong_number_of_values(backend, mask_kind, shape, mask, values):
    x = np.zeros(shape)
    mask = np.array(mask)
    d = gpuvec.to_device(x)
    with pytest.raises(ValueError, match="cannot assign") as numpy_error:
        x[mask] = values
    with pytest.raises(ValueError, match="cannot assign") as error:
        d[as_kind(mask, mask_kind)] = values
    assert str(error.value) == str(numpy_error.value)
    np.testing.assert_array_equal(d.to_host(), 0.0)  # nothing written


def test_setitem_values_of_two_dimensions(backend):
    x = np.zeros(4)
    mask = np.array([True, False, True, True])
    d = gpuvec.to_device(x)
    for values in (np.ones((3, 1)), gpuvec.ones((1, 1))):
        with pytest.raises(TypeError) as numpy_error:
            x[mask] = np.asarray(values)
        with pytest.raises(TypeError) as error:
            d[mask] = values
        assert str(error.value) == str(numpy_error.value)


def test_setitem_values_that_do_not_broadcast(backend):
    x = np.zeros((3, 4))
    rows = np.array([True, False, True])
    d = gpuvec.to_device(x)
    for values in (np.ones((3, 4)), np.ones(3)):
        with pytest.raises(ValueError, match="shape mismatch") as numpy_error:
            x[rows] = values
        with pytest.raises(ValueError, match="shape mismatch") as error:
            d[rows] = values
        assert str(error.value) == str(numpy_error.value)


def test_setitem_read_only(backend):
    view = gpuvec.to_device(np.arange(3.0))._broadcast_to((2, 3))
    with pytest.raises(ValueError, match="read-only"):
        view[np.ones((2, 3), bool)] = 1.0


# -- the core's functions on NumPy arrays ---------------------------------------------------------
# compress and expand take NumPy arrays too (the ABI's host path, on either
# backend), in any layout: the C++ boundary makes dense copies of the others.

NUMPY_LAYOUTS = {
    "c": lambda a: a,
    "fortran": np.asfortranarray,
    "reversed": lambda a: a[::-1, ::-1],
    "transposed": lambda a: a.T.copy().T,
}


@pytest.mark.parametrize("dtype", [*DTYPES, np.bool_])
@pytest.mark.parametrize("x_layout", NUMPY_LAYOUTS)
@pytest.mark.parametrize("mask_layout", NUMPY_LAYOUTS)
def test_core_on_numpy_layouts(backend, rng, dtype, x_layout, mask_layout):
    x = NUMPY_LAYOUTS[x_layout](random_array(rng, (7, 9), np.float64).astype(dtype))
    mask = NUMPY_LAYOUTS[mask_layout](random_mask(rng, (7, 9), 0.5))
    result = _core.compress(x, mask)
    assert isinstance(result, np.ndarray)
    np.testing.assert_array_equal(result, x[mask])
    values = random_array(rng, int(mask.sum()), np.float64).astype(dtype)
    expected = x.copy()
    expected[mask] = values
    _core.expand(x, mask, values)
    np.testing.assert_array_equal(x, expected)


def test_core_broadcast_mask(backend, rng):
    """A mask may broadcast (stride 0): the boundary copies it densely."""
    x = random_array(rng, (5, 6), np.float64)
    row = random_mask(rng, 6, 0.5)
    mask = np.broadcast_to(row, x.shape)
    np.testing.assert_array_equal(_core.compress(x, mask), x[mask])


def test_core_overlapping_values(backend, rng):
    """values that overlap x are read before x is written, as in NumPy."""
    x = random_array(rng, 50, np.float64)
    mask = random_mask(rng, 50, 0.5)
    count = int(mask.sum())
    expected = x.copy()
    expected[mask] = expected[::-1][:count].copy()
    _core.expand(x, mask, x[::-1][:count])
    np.testing.assert_array_equal(x, expected)


def test_core_bool_data(backend, rng):
    """Bool arrays are selected and assigned too, a mask overlapping them (b[b] = False)."""
    b = random_mask(rng, 101, 0.5)
    np.testing.assert_array_equal(_core.compress(b, ~b), b[~b])
    expected = b.copy()
    expected[expected] = False
    _core.expand(b, b, False)
    np.testing.assert_array_equal(b, expected)
    b2 = random_mask(rng, 101, 0.5)
    _core.expand(b2, b2[::-1].copy(), np.nan)  # NaN is true, as NumPy converts it
    assert b2.dtype == np.bool_


def test_core_counts(backend, rng):
    mask = random_mask(rng, (17, 19), 0.3)
    assert _core.count_true(mask) == np.count_nonzero(mask)
    assert _core.count_true(bool_device_array(mask)) == np.count_nonzero(mask)
    assert _core.count_true(bool_device_array(mask[:0])) == 0


def test_core_checks(backend):
    """The ABI checks what the Python layer would not let through."""
    x = np.zeros(4)
    with pytest.raises(ValueError, match="shape"):
        _core.compress(x, np.ones(3, bool))
    with pytest.raises(ValueError, match="bool was expected"):
        _core.compress(x, np.ones(4))
    with pytest.raises(ValueError, match="mask has 1 true elements"):
        _core.expand(x, np.array([True, False, False, False]), np.ones(2))
    readonly = np.zeros(3)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _core.expand(readonly, np.ones(3, bool), 1.0)


def test_device_mask_for_host_data_is_refused():
    """A device mask is not copied back to index host data in silence."""
    from conftest import skip_without_cuda

    skip_without_cuda()
    previous = gpuvec.set_backend("cuda")
    try:
        mask = bool_device_array(np.ones(3, bool))
        with pytest.raises(TypeError, match="mask is on the device"):
            _core.compress(np.zeros(3), mask)
    finally:
        gpuvec.set_backend(previous)
