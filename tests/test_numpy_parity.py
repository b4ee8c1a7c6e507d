"""NumPy's behaviour where a user could notice a difference: masks never
dropped, NumPy's exception classes for the same mistakes, out= casting,
the sign of zero, and reductions of 0-d arrays."""

import numpy as np
import pytest

import gpuvec


def on(backend_side, x):
    """x as the test's side sees it: a NumPy array, or a DeviceArray."""
    return gpuvec.to_device(x) if backend_side == "device" else x


SIDES = ["host", "device"]


# --- masked arrays: never a silently dropped mask ---------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda m: gpuvec.sum(m),
        lambda m: gpuvec.add(m, 1.0),
        lambda m: gpuvec.sqrt(m),
        lambda m: gpuvec.mean(m, axis=0),
        lambda m: gpuvec.to_device(m),
        lambda m: gpuvec.asarray(m),
        lambda m: gpuvec.where(np.ones(3, bool), m, 0.0),
    ],
)
def test_masked_arrays_are_refused(backend, call):
    masked = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    with pytest.raises(TypeError, match=r"masked array.*\.filled\(.*\.compressed\(\)"):
        call(masked)


def test_a_masked_array_as_out_or_assigned_is_refused(backend):
    d = gpuvec.zeros(3)
    with pytest.raises(TypeError, match="masked array"):
        d[...] = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    assert float(gpuvec.sum(d)) == 0.0  # nothing written


def test_np_matrix_keeps_working(backend):
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(gpuvec.add(m, 1.0), np.asarray(m) + 1.0)
    assert gpuvec.sum(m) == 10.0


# --- NumPy's exception classes --------------------------------------------------------------


def test_ragged_lists_raise_value_error(backend):
    with pytest.raises(ValueError, match="a cannot be turned into an array"):
        gpuvec.add([[1.0, 2.0], [3.0]], 1.0)
    with pytest.raises(ValueError, match="inhomogeneous"):  # NumPy's class for the same list
        np.add([[1.0, 2.0], [3.0]], 1.0)


@pytest.mark.parametrize("side", SIDES)
def test_out_casts_same_kind_as_numpy(backend, rng, side):
    x = rng.standard_normal(1001)
    out = on(side, np.full(1001, np.nan, np.float32))
    result = gpuvec.multiply(on(side, x), 3.0, out=out)
    assert result is out
    expected = np.multiply(x, 3.0, out=np.empty(1001, np.float32))
    got = out.to_host() if side == "device" else out
    np.testing.assert_array_equal(got, expected)


def test_out_that_cannot_hold_the_result_is_a_type_error(backend):
    a = np.ones(4)
    for dtype in (np.int64, np.int32, bool):
        with pytest.raises(TypeError, match="casting rule 'same_kind'"):
            gpuvec.add(a, a, out=np.zeros(4, dtype))
        with pytest.raises(TypeError):
            np.add(a, a, out=np.zeros(4, dtype))


def test_in_place_add_of_float64_into_float32_casts(backend, rng):
    x32 = rng.standard_normal(257).astype(np.float32)
    x64 = rng.standard_normal(257)
    d32, d64 = gpuvec.to_device(x32), gpuvec.to_device(x64)
    d32 += d64
    x32 += x64
    assert d32.dtype == np.float32
    np.testing.assert_array_equal(d32.to_host(), x32)


def test_index_and_assignment_errors(backend):
    d = gpuvec.to_device(np.arange(5.0))
    with pytest.raises(IndexError, match="valid indices"):
        d[1.5]
    with pytest.raises(IndexError):  # NumPy's class for the same index
        np.arange(5.0)[1.5]
    with pytest.raises(ValueError, match="could not convert string to float: 'x'"):
        d[0] = "x"
    d[1] = "2.5"  # NumPy parses numeric text
    assert d.to_host()[1] == 2.5


def test_argument_errors_name_the_argument(backend):
    with pytest.raises(TypeError, match=r"shape must be an int or a tuple of ints, got 3\.5"):
        gpuvec.zeros(3.5)
    with pytest.raises(ValueError, match="threads_per_block"):
        gpuvec.add(np.ones(3), 1.0, threads_per_block=2**70)


def test_huge_python_ints_compute_in_float64(backend):
    assert gpuvec.add(2**70, 1.0) == np.add(float(2**70), 1.0)


# --- the sign of zero, and 0-d reductions ---------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_and_minimum_of_signed_zeros_as_numpy(backend, side, name):
    a = np.array([-0.0, 0.0, -0.0, 0.0, np.nan, 1.0])
    b = np.array([0.0, -0.0, -0.0, 0.0, 1.0, np.nan])
    got = getattr(gpuvec, name)(on(side, a), on(side, b))
    got = got.to_host() if side == "device" else got
    expected = getattr(np, name)(a, b)
    np.testing.assert_array_equal(got, expected)  # NaN where NumPy's is NaN
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("axis", [0, -1, (0,), 1])
@pytest.mark.parametrize("name", ["sum", "max", "prod", "argmax", "nansum", "mean", "std"])
def test_reductions_of_a_0d_array_follow_numpys_axis_rules(backend, side, axis, name):
    # NumPy's ufunc reductions take an int axis of 0 or -1 on a 0-d array;
    # mean and std, and every tuple axis, raise AxisError.
    x = np.array(2.5)
    try:
        expected = getattr(np, name)(x, axis=axis)
    except (np.exceptions.AxisError, TypeError) as error:
        with pytest.raises(type(error)):
            getattr(gpuvec, name)(on(side, x), axis=axis)
        return
    got = getattr(gpuvec, name)(on(side, x), axis=axis)
    got = got.to_host() if side == "device" and hasattr(got, "to_host") else got
    np.testing.assert_array_equal(got, expected)


# --- the layout of results: NumPy's order='K' -----------------------------------------------

LAYOUT_CASES = {
    "fortran": lambda f, c: (f, 1.0),
    "c": lambda f, c: (c, 1.0),
    "fortran-step": lambda f, c: (f[::2], f[::2]),
    "transposed": lambda f, c: (f.T, 2.0),
    "fortran-and-column": lambda f, c: (f, f[:, :1]),
    "fortran-and-c": lambda f, c: (f, c),
    "c-and-fortran": lambda f, c: (c, f),
}


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_numpy_results_take_the_inputs_order(backend, rng, case):
    c = rng.standard_normal((37, 41, 3))
    f = np.asfortranarray(c)
    a, b = LAYOUT_CASES[case](f, c)
    got, expected = gpuvec.add(a, b), np.add(a, b)
    assert got.strides == expected.strides
    np.testing.assert_array_equal(got, expected)


def test_where_with_a_condition_of_another_shape_is_a_value_error(backend):
    # Found by tests/test_fuzz_numpy.py: on the cuda backend the host condition,
    # once uploaded, had no shape to name in the message (an AttributeError).
    d = gpuvec.to_device(np.ones(15, np.float32))
    with pytest.raises(ValueError, match=r"cond \(0,\) and a \(15,\) and b \(15,\)"):
        gpuvec.where(np.zeros(0, bool), d, d)
    with pytest.raises(ValueError, match="could not be broadcast"):
        np.where(np.zeros(0, bool), np.ones(15), np.ones(15))


# --- found by the fuzz test ----------------------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
def test_out_larger_than_the_inputs_is_filled_by_broadcasting(backend, rng, side):
    """NumPy broadcasts the inputs to a larger out: every row of it is written."""
    row = rng.standard_normal(5)
    expected = np.add(row, 1.5, out=np.full((3, 5), np.nan))
    out = on(side, np.full((3, 5), np.nan))
    assert gpuvec.add(on(side, row), 1.5, out=out) is out
    got = out.to_host() if side == "device" else out
    np.testing.assert_array_equal(got, expected)
    zero_d = on(side, np.full(1, np.nan))
    gpuvec.multiply(on(side, np.array(2.0)), 2.0, out=zero_d)
    np.testing.assert_array_equal(np.asarray(gpuvec.asnumpy(zero_d)), [4.0])
    # An out the result does not broadcast to is still NumPy's ValueError.
    with pytest.raises(ValueError, match="out has shape"):
        gpuvec.add(on(side, row), 1.5, out=on(side, np.zeros((3, 4))))


def test_out_dtype_is_checked_before_its_shape(backend):
    """For an out of the wrong shape and dtype, NumPy's TypeError (UFuncTypeError)."""
    a = np.ones(3)
    with pytest.raises(TypeError):
        np.add(a, 1.0, out=np.zeros(2, np.int64))
    with pytest.raises(TypeError, match="same_kind"):
        gpuvec.add(a, 1.0, out=np.zeros(2, np.int64))
    with pytest.raises(TypeError, match="same_kind"):
        gpuvec.add(gpuvec.to_device(a), 1.0, out=gpuvec.zeros(2, dtype=bool))


@pytest.mark.parametrize(
    ("axes", "error"),
    [
        ((), ValueError),  # NumPy: "axes don't match array"
        ((0,), ValueError),
        ((0, 0), ValueError),  # "repeated axis in transpose"
        ((0, 2), np.exceptions.AxisError),  # also an IndexError, as NumPy's
        ((-3, 0), np.exceptions.AxisError),
    ],
)
def test_transpose_errors_are_numpys(backend, axes, error):
    x = np.zeros((2, 3))
    with pytest.raises(error) as numpy_error:
        x.transpose(axes)
    with pytest.raises(error) as gpuvec_error:
        gpuvec.to_device(x).transpose(axes)
    assert str(gpuvec_error.value) == str(numpy_error.value)


def test_transpose_of_valid_axes(backend):
    x = np.arange(24.0).reshape(2, 3, 4)
    d = gpuvec.to_device(x)
    for axes in [None, (1, -1, 0), (2, 1, 0), [0, 2, 1]]:
        np.testing.assert_array_equal(d.transpose(axes).to_host(), x.transpose(axes))
    np.testing.assert_array_equal(d.transpose(2, 0, 1).to_host(), x.transpose(2, 0, 1))
    assert gpuvec.to_device(np.array(1.0)).transpose(()).shape == ()
