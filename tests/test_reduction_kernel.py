"""gpuvec.ReductionKernel: CuPy's spec language, compiled into gpuvec's own reduction engine.

Each result is compared with a float64 NumPy reference on fresh random data;
float32 kernels sum in float32 (CuPy's reduce type is the output's type), so
they agree to a relative tolerance that grows with the number of elements.
Outputs given with out= are poisoned (NaN) first, so an element the kernel
skips shows.
"""

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array

import gpuvec
from gpuvec.kernels import _reduction_source

SUM_SQUARES = gpuvec.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_squares")
L2NORM = gpuvec.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
DOT = gpuvec.ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "dot")
# A maximum with an identity, and one without (reduce_expr propagates NaN as NumPy does).
MAX_WITH_IDENTITY = gpuvec.ReductionKernel(
    "T x", "T m", "x", "(a > b || a != a) ? a : b", "m = a", "-INFINITY", "max_identity"
)
MAX = gpuvec.ReductionKernel("T x", "T m", "x", "(a > b || a != a) ? a : b", "m = a", None, "max")


def on(backend, x):
    """x as the backend's call takes it: a DeviceArray on CUDA, a NumPy array on the host."""
    return gpuvec.to_device(x) if backend == "cuda" and isinstance(x, np.ndarray) else x


def host(x):
    return x.to_host() if isinstance(x, gpuvec.DeviceArray) else np.asarray(x)


def close(result, expected, dtype, n=1, magnitude=None):
    """float64 agrees to rounding; float32 sums to float32 rounding times log2 of the terms.

    A sum of terms of both signs can cancel to far less than its terms: its
    rounding is relative to `magnitude`, the sum of the terms' sizes.
    """
    rtol = 1e-12 if dtype == np.float64 else 1e-6 * max(1.0, np.log2(max(n, 2)))
    if magnitude is None:
        np.testing.assert_allclose(host(result), expected, rtol=rtol, atol=0)
    else:
        error = np.abs(host(result) - expected)
        np.testing.assert_array_less(error, rtol * magnitude, "off by more than rounding")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [s for s in SIZES if s])
def test_sum_of_squares_of_every_element(backend, rng, dtype, n):
    x = random_array(rng, n, dtype)
    result = SUM_SQUARES(on(backend, x))
    assert result.dtype == dtype
    close(result, np.sum(x.astype(np.float64) ** 2), dtype, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(257, 3), (3, 4099), (1025, 65), (7, 1, 129), (2**16 + 1, 8)])
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 1), None])
def test_l2_norm_with_post_map_over_axes(backend, rng, dtype, shape, axis):
    x = random_array(rng, shape, dtype)
    result = L2NORM(on(backend, x), axis=axis)
    expected = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=axis))
    assert host(result).shape == np.shape(expected)
    close(result, expected, dtype, x.size)


@pytest.mark.parametrize("axis", [0, 1, 2, -2, (0, 2), (2, 0), None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_axis_and_keepdims_give_numpys_shape(backend, rng, axis, keepdims):
    x = random_array(rng, (5, 6, 7), np.float64)
    result = SUM_SQUARES(on(backend, x), axis=axis, keepdims=keepdims)
    expected = np.sum(x * x, axis=axis, keepdims=keepdims)
    assert host(result).shape == np.shape(expected)
    close(result, expected, np.float64)


def test_bad_axes_raise_numpys_errors(backend, rng):
    x = on(backend, random_array(rng, (4, 5), np.float64))
    with pytest.raises(np.exceptions.AxisError):
        SUM_SQUARES(x, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        SUM_SQUARES(x, axis=(1, -1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_with_and_without_identity(backend, rng, dtype):
    x = random_array(rng, (33, 1025), dtype) - 100  # every element negative: 0 would be wrong
    for kernel in (MAX_WITH_IDENTITY, MAX):
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(host(kernel(on(backend, x), axis=axis)), x.max(axis))


@pytest.mark.parametrize("n", [1, 31, 1025, 2**20 + 3])
def test_dot_of_two_inputs(backend, rng, n):
    x, y = random_array(rng, n, np.float64), random_array(rng, n, np.float64)
    close(
        DOT(on(backend, x), on(backend, y)),
        np.dot(x, y),
        np.float64,
        magnitude=np.dot(np.abs(x), np.abs(y)),  # terms of both signs may cancel
    )


def test_inputs_broadcast_and_numbers_are_inputs(backend, rng):
    rows = random_array(rng, (300, 17), np.float64)
    centre = random_array(rng, 17, np.float64)
    # Sums of terms of both signs: rounding is relative to the terms' sizes (close()).
    close(
        DOT(on(backend, rows), on(backend, centre), axis=1),
        rows @ centre,
        np.float64,
        magnitude=np.abs(rows) @ np.abs(centre),
    )
    close(
        DOT(on(backend, rows), 2.5, axis=0),
        2.5 * rows.sum(0),
        np.float64,
        magnitude=2.5 * np.abs(rows).sum(0),
    )
    close(
        DOT(3.0, on(backend, centre)),
        3.0 * centre.sum(),
        np.float64,
        magnitude=3.0 * np.abs(centre).sum(),
    )


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_any_layout(backend, rng, layout):
    x = make_layout(rng, layout, np.float64)
    expected = np.sum(x * x)
    close(SUM_SQUARES(on(backend, x)), expected, np.float64)
    if x.ndim >= 2:
        close(SUM_SQUARES(on(backend, x), axis=0), np.sum(x * x, axis=0), np.float64)
        close(SUM_SQUARES(on(backend, x), axis=-1), np.sum(x * x, axis=-1), np.float64)


def test_negative_strides_fortran_and_two_layouts(backend, rng):
    a = np.asfortranarray(random_array(rng, (65, 129), np.float32))
    b = random_array(rng, (129, 65), np.float32).T[::-1]
    terms = a.astype(np.float64) * b
    expected = np.sum(terms, axis=1)
    magnitude = np.sum(np.abs(terms), axis=1)
    close(DOT(on(backend, a), on(backend, b), axis=1), expected, np.float32, 129, magnitude)


def test_numpy_and_device_inputs(backend, rng):
    x = random_array(rng, (100, 37), np.float32)
    from_numpy = L2NORM(x, axis=0)
    assert type(from_numpy) is np.ndarray
    if backend == "cuda":
        from_device = L2NORM(gpuvec.to_device(x), axis=0)
        assert isinstance(from_device, gpuvec.DeviceArray)
        np.testing.assert_array_equal(from_device.to_host(), from_numpy)
    else:
        d = gpuvec.to_device(x)  # a host-backed DeviceArray
        assert isinstance(L2NORM(d, axis=0), gpuvec.DeviceArray)
    scalar = L2NORM(x)
    assert np.ndim(scalar) == 0
    close(scalar, np.sqrt(np.sum(x.astype(np.float64) ** 2)), np.float32, x.size)


@pytest.mark.parametrize("keepdims", [False, True])
def test_out(backend, rng, keepdims):
    x = random_array(rng, (40, 9), np.float64)
    out = on(backend, np.full((1, 9) if keepdims else (9,), np.nan))
    result = L2NORM(on(backend, x), axis=0, keepdims=keepdims, out=out)
    assert result is out
    close(out, np.sqrt(np.sum(x * x, axis=0, keepdims=keepdims)), np.float64)
    # The output given as the last argument, as in CuPy.
    out2 = on(backend, np.full(40, np.nan))
    assert L2NORM(on(backend, x), out2, axis=1) is out2
    close(out2, np.sqrt(np.sum(x * x, axis=1)), np.float64)


def test_out_of_the_wrong_shape_or_dtype(backend, rng):
    x = on(backend, random_array(rng, (40, 9), np.float64))
    with pytest.raises(ValueError, match="shape"):
        L2NORM(x, axis=0, out=on(backend, np.empty(40)))
    with pytest.raises(TypeError, match="float32"):
        L2NORM(x, axis=0, out=on(backend, np.empty(9, np.float32)))


def test_empty_reductions(backend, rng):
    empty = on(backend, np.zeros((0, 5)))
    # With an identity: post_map of the identity, as CuPy and NumPy's sum.
    np.testing.assert_array_equal(host(L2NORM(empty, axis=0)), np.zeros(5))
    np.testing.assert_array_equal(host(MAX_WITH_IDENTITY(empty, axis=0)), np.full(5, -np.inf))
    assert host(L2NORM(empty, axis=1)).shape == (0,)
    # Without one: CuPy's ValueError, as NumPy's max of an empty array.
    with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
        MAX(empty, axis=0)
    with pytest.raises(ValueError, match="no identity"):
        MAX(empty)
    assert host(MAX(empty, axis=1)).shape == (0,)  # no row is empty: nothing to reduce


def test_nan_propagates(backend, rng):
    x = random_array(rng, (20, 1001), np.float64)
    x[3, 500] = np.nan
    for kernel in (SUM_SQUARES, MAX):
        result = host(kernel(on(backend, x), axis=1))
        assert np.isnan(result[3])
        assert not np.isnan(np.delete(result, 3)).any()
        assert np.isnan(host(kernel(on(backend, x))))


def test_reduce_type_sums_float32_in_float64(backend, rng):
    x = (rng.random(2**20 + 3) + 1000).astype(np.float32)
    wide = gpuvec.ReductionKernel(
        "float32 x", "float32 y", "x", "a + b", "y = a", "0", "wide", reduce_type="float64"
    )
    exact = np.float32(np.sum(x.astype(np.float64)))
    assert host(wide(on(backend, x))) == exact


def test_count_in_an_integer_reduce_type(backend, rng):
    x = random_array(rng, (50, 77), np.float64)
    count = gpuvec.ReductionKernel(
        "T x", "T c", "x > 0 ? 1 : 0", "a + b", "c = a", "0", "positives", reduce_type="int64"
    )
    np.testing.assert_array_equal(host(count(on(backend, x), axis=1)), (x > 0).sum(1))


def test_preamble_and_placeholder_in_expressions(backend, rng):
    kernel = gpuvec.ReductionKernel(
        "T x",
        "T y",
        "square(x)",
        "a + b",
        "y = a / T(2)",
        "0",
        "half_sum_squares",
        preamble="template <class U> __host__ __device__ U square(U v) { return v * v; }",
    )
    x = random_array(rng, 999, np.float64)
    close(kernel(on(backend, x)), np.sum(x * x) / 2, np.float64)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (("float32 x", "float32 y", "x", "a + b", "y = a", "0", "bad-name"), ValueError, "name"),
        (("float32", "float32 y", "x", "a + b", "y = a", "0"), ValueError, "in_params"),
        (("float32 x", "", "x", "a + b", "y = a", "0"), ValueError, "out_params"),
        (("", "float32 y", "1", "a + b", "y = a", "0"), ValueError, "in_params"),
        (("float32 x", "float32 y", "x", "", "y = a", "0"), ValueError, "reduce_expr"),
        (("float32 x", "float32 y", None, "a + b", "y = a", "0"), TypeError, "map_expr"),
        (("float32 x", "float32 y", "x", "a + b", 3, "0"), TypeError, "post_map_expr"),
        (("float32 x", "float32 y", "x", "a + b", "y = a", 0), TypeError, "identity"),
        (("float32 x", "float32 a", "x", "a + b", "a = a", "0"), ValueError, "out_params"),
        (("float16 x", "float32 y", "x", "a + b", "y = a", "0"), ValueError, "'x'"),
        (("float32 x, float32 x", "float32 y", "x", "a + b", "y = a", "0"), ValueError, "'x'"),
        (("raw float32 x", "float32 y", "x", "a + b", "y = a", "0"), ValueError, "not raw"),
        (("float32 x", "raw float32 y", "x", "a + b", "y = a", "0"), NotImplementedError, "raw"),
    ],
)
def test_bad_specs_name_the_parameter(args, error, match):
    with pytest.raises(error, match=match):
        gpuvec.ReductionKernel(*args)


def test_bad_reduce_type():
    with pytest.raises(ValueError, match="reduce_type"):
        gpuvec.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", reduce_type="float128")


def test_compile_error_points_at_the_expression(backend, rng):
    kernel = gpuvec.ReductionKernel(
        "T x", "T y", "x * x", "a + undefined_name", "y = a", "0", "broken"
    )
    with pytest.raises(gpuvec.CompileError) as info:
        kernel(on(backend, random_array(rng, 10, np.float64)))
    message = str(info.value)
    assert "broken.cu, line 2" in message
    assert "undefined_name" in message


def test_wrong_argument_dtype_names_the_parameter(backend, rng):
    kernel = gpuvec.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "f32")
    with pytest.raises(TypeError, match="'x'"):
        kernel(on(backend, random_array(rng, 10, np.float64)))


def test_state_sizes_match_the_engine():
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    assert _reduction_source.state_size(f32, True) == 8
    assert _reduction_source.state_size(f64, True) == 8
    assert _reduction_source.state_size(f32, False) == 8
    assert _reduction_source.state_size(f64, False) == 16
