"""gpuvec.ElementwiseKernel: CuPy's spec language, compiled from gpuvec's own map kernels.

Each result is compared with NumPy's: bit for bit where the operation is
arithmetic in the kernel's dtype (both compilers run without FMA
contraction), within a few ulp where it calls the math library. Outputs
are poisoned (NaN, or True for bool) before the kernel writes them, so an
element the kernel skips shows.
"""

import numpy as np
import pytest
from conftest import LAYOUTS, SIZES, make_layout, random_array

import gpuvec
from gpuvec import _core
from gpuvec.kernels import _map_source, _module, _nvrtc

AXPB = gpuvec.ElementwiseKernel(
    "float32 a, float32 b", "float32 c", "c = 2.5f * a * b + a - 0.5f", "axpb"
)
SQUARE_DIFF = gpuvec.ElementwiseKernel("T x, T y", "T z", "T d = x - y; z = d * d", "square_diff")


def axpb_reference(a, b):
    """The operation in float32, each step rounded as the kernel rounds it."""
    a, b = np.float32(a) if np.isscalar(a) else a, np.float32(b) if np.isscalar(b) else b
    return np.float32(2.5) * a * b + a - np.float32(0.5)


def on(backend, x):
    """x as the backend's call takes it: a DeviceArray on CUDA, a NumPy array on the host."""
    return gpuvec.to_device(x) if backend == "cuda" and isinstance(x, np.ndarray) else x


def host(x):
    return x.to_host() if isinstance(x, gpuvec.DeviceArray) else np.asarray(x)


def poisoned(shape, dtype, backend, order="C"):
    out = np.full(shape, True if dtype == np.bool_ else np.nan, dtype=dtype, order=order)
    return on(backend, out)


@pytest.mark.parametrize("n", SIZES)
def test_odd_sizes_match_numpy(backend, rng, n):
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    result = AXPB(on(backend, a), on(backend, b))
    assert isinstance(result, gpuvec.DeviceArray if backend == "cuda" else np.ndarray)
    np.testing.assert_array_equal(host(result), axpb_reference(a, b))


@pytest.mark.parametrize("n", [2**16 - 1, 2**16 + 1, 2**20 + 3])
def test_numpy_inputs_are_staged_on_every_backend(backend, rng, n):
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    result = AXPB(a, b)
    assert type(result) is np.ndarray
    np.testing.assert_array_equal(result, axpb_reference(a, b))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_any_layout(backend, rng, layout):
    a = make_layout(rng, layout, np.float32)
    b = make_layout(rng, layout, np.float32)
    expected = axpb_reference(a, b)
    out = poisoned(a.shape, np.float32, backend)
    result = AXPB(on(backend, a), on(backend, b), out=out)
    assert result is out
    np.testing.assert_array_equal(host(result), expected)


def test_negative_strides_and_fortran_order_into_a_strided_out(backend, rng):
    a = np.asfortranarray(random_array(rng, (33, 65), np.float64))
    b = random_array(rng, (65, 33), np.float64).T[::-1]
    base = np.full((66, 130), np.nan)
    out = base[::2, ::-2] if backend == "host" else None
    result = SQUARE_DIFF(on(backend, a), on(backend, b), out=out)
    np.testing.assert_array_equal(host(result), (a - b) * (a - b))
    if out is not None:
        assert np.isnan(base[1::2]).all()  # the rows between are untouched


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [((7, 1), (1, 9)), ((5, 8, 1), (8, 16)), ((1024, 1), (1024, 1024)), ((3, 1, 5), ())],
)
def test_broadcasting(backend, rng, shape_a, shape_b):
    a = random_array(rng, shape_a, np.float64)
    b = random_array(rng, shape_b, np.float64)
    result = SQUARE_DIFF(on(backend, a), on(backend, b))
    np.testing.assert_array_equal(host(result), (a - b) * (a - b))


def test_out_broadcasts_the_inputs_as_numpy_does(backend, rng):
    row = random_array(rng, 8, np.float32)
    out = poisoned((4, 8), np.float32, backend)
    SQUARE_DIFF(on(backend, row), np.float32(1.5), out)
    np.testing.assert_array_equal(host(out), np.broadcast_to((row - 1.5) ** 2, (4, 8)))


def test_scalars_are_converted_to_their_parameters_type(backend, rng):
    a = random_array(rng, 1001, np.float32)
    np.testing.assert_array_equal(host(AXPB(on(backend, a), 3)), axpb_reference(a, 3))
    np.testing.assert_array_equal(host(AXPB(0.1, on(backend, a))), axpb_reference(0.1, a))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.uint64])
def test_integer_numpy_arrays_and_numbers_reach_integer_parameters(backend, rng, dtype):
    info = np.iinfo(dtype)
    kernel = gpuvec.ElementwiseKernel("T x, T k", "T y", "y = x + k", "add_k")
    x = rng.integers(info.min, info.max, 777, dtype=dtype, endpoint=True)
    # A Python int past 2^53 (not a double), and the type's edges.
    for k in [int(info.max) - 3, int(info.min) + 5, 2**40 + 1 if info.bits == 64 else 7]:
        got = host(kernel(on(backend, x), dtype(k)))
        np.testing.assert_array_equal(got, x + dtype(k))  # wraps, as NumPy's does
    fixed = gpuvec.ElementwiseKernel(
        f"{np.dtype(dtype).name} x, int64 k", "int64 y", "y = (long long)x + k", "widen_add"
    )
    k = int(rng.integers(2**40, 2**50))
    np.testing.assert_array_equal(host(fixed(on(backend, x), k)), x.astype(np.int64) + k)


def test_all_scalars_give_a_numpy_scalar(backend):
    result = AXPB(np.float32(2), 3.0)
    assert type(result) is np.float32
    assert result == axpb_reference(2, 3)


def test_placeholders_follow_the_arrays(backend, rng):
    a32 = random_array(rng, 100, np.float32)
    a64 = random_array(rng, 100, np.float64)
    r32 = SQUARE_DIFF(on(backend, a32), 0.1)
    r64 = SQUARE_DIFF(on(backend, a64), 0.1)
    assert r32.dtype == np.float32
    assert r64.dtype == np.float64
    np.testing.assert_array_equal(host(r32), (a32 - np.float32(0.1)) ** 2)
    np.testing.assert_array_equal(host(r64), (a64 - 0.1) ** 2)
    # Numbers alone decide by their own type: float64 for a Python float.
    assert SQUARE_DIFF(3.0, 1.0).dtype == np.float64
    assert SQUARE_DIFF(np.float32(3), np.float32(1)).dtype == np.float32


def test_placeholders_in_the_operation_and_mixed_types(backend, rng):
    k = gpuvec.ElementwiseKernel(
        "T x, bool keep, float64 scale", "T y", "T v = keep ? x : T(0); y = v * (T)scale", "mixed"
    )
    x = random_array(rng, (13, 17), np.float32)
    keep = rng.random((13, 17)) < 0.5
    result = k(on(backend, x), on(backend, keep), 0.5)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(host(result), np.where(keep, x, 0) * np.float32(0.5))


def test_a_bool_output(backend, rng):
    k = gpuvec.ElementwiseKernel("T a, T b", "bool c", "c = a < b", "less")
    a, b = random_array(rng, 1003, np.float64), random_array(rng, 1003, np.float64)
    out = poisoned(1003, np.bool_, backend)
    k(on(backend, a), on(backend, b), out=out)
    np.testing.assert_array_equal(host(out), a < b)


def test_math_functions(backend, rng):
    k = gpuvec.ElementwiseKernel("T x", "T y", "y = exp(-x * x) + sqrt(fabs(x))", "bell")
    x = random_array(rng, 4099, np.float64)
    np.testing.assert_allclose(host(k(on(backend, x))), np.exp(-x * x) + np.sqrt(np.abs(x)), 1e-14)


def test_read_only_inputs_and_an_in_place_out(backend, rng):
    a = random_array(rng, 517, np.float32)
    a.flags.writeable = False
    b = random_array(rng, 517, np.float32)
    expected = axpb_reference(a, b)
    if backend == "cuda":
        db = gpuvec.to_device(b)
        AXPB(a, b)  # staged, read-only is fine
        AXPB(gpuvec.to_device(a), db, out=db)  # out is an input's very view
        np.testing.assert_array_equal(db.to_host(), expected)
    else:
        AXPB(a, b, out=b)
        np.testing.assert_array_equal(b, expected)


def test_an_out_overlapping_an_input_gives_numpy_s_result(backend, rng):
    x = random_array(rng, 1001, np.float64)
    expected = (x[1:] - x[:-1]) ** 2
    d = on(backend, x.copy())
    SQUARE_DIFF(d[1:], d[:-1], out=d[:-1])  # shifted by one: read after written, unless copied
    np.testing.assert_array_equal(host(d)[:-1], expected)


def test_empty_and_zero_dimensional(backend):
    empty = np.empty((0, 3), np.float32)
    result = AXPB(on(backend, empty), on(backend, empty))
    assert result.shape == (0, 3)
    zero_d = np.array(2.0, np.float32)
    result = AXPB(on(backend, zero_d), 3.0)
    assert host(result) == axpb_reference(2, 3)


def test_the_output_positionally_or_as_out(backend, rng):
    a = random_array(rng, 64, np.float32)
    out = poisoned(64, np.float32, backend)
    assert AXPB(on(backend, a), 1.0, out) is out
    np.testing.assert_array_equal(host(out), axpb_reference(a, 1))
    with pytest.raises(TypeError, match="both as an argument and as out="):
        AXPB(on(backend, a), 1.0, out, out=out)


VIEWS = {
    "contiguous": lambda a: a,
    "reversed": lambda a: a[::-1, ::-2],
    "fortran": np.asfortranarray,
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("numpy_out", [False, True])
def test_an_operation_that_reads_its_output_starts_from_out(backend, rng, view, numpy_out):
    # CuPy's in-out parameter: `y += x` adds to what out holds.
    accumulate = gpuvec.ElementwiseKernel("T x", "T y", "y += x", "accumulate")
    scale_add = gpuvec.ElementwiseKernel("T x, T a", "T y", "y = a * y + x", "scale_add")
    y = VIEWS[view](random_array(rng, (9, 66), np.float64))
    x = random_array(rng, y.shape, np.float64)
    expected = y + x
    out = y if numpy_out else on(backend, np.array(y))
    x_in = x if numpy_out else on(backend, x)  # inputs where out is
    assert accumulate(x_in, out) is out
    np.testing.assert_array_equal(host(out), expected)
    scale_add(x_in, 0.5, out=out)
    np.testing.assert_array_equal(host(out), 0.5 * expected + x)


def test_an_operation_that_only_assigns_its_output_ignores_out_s_values(backend, rng):
    copy = gpuvec.ElementwiseKernel("T x", "T y", "y = x", "copy_only")
    nan_test = gpuvec.ElementwiseKernel("T x", "bool y", "y = x == x", "not_nan")
    x = random_array(rng, 50, np.float32)
    x[::7] = np.nan
    out = poisoned(50, np.float32, backend)
    copy(on(backend, x), out)
    np.testing.assert_array_equal(host(out), x)
    flags = poisoned(50, np.bool_, backend)
    nan_test(on(backend, x), flags)
    np.testing.assert_array_equal(host(flags), x == x)


def test_which_operations_read_their_output():
    assert not _map_source.reads("y = x * 2", "y")
    assert _map_source.reads("y += x", "y")
    assert _map_source.reads("y = y * x", "y")
    assert _map_source.reads("bool b = y == 0; y = b ? x : 0", "y")
    assert not _map_source.reads("yy = x; y = yy", "y")


def test_eight_inputs(backend, rng):
    names = "abcdefgh"
    k = gpuvec.ElementwiseKernel(
        ", ".join(f"T {n}" for n in names), "T s", "s = " + " + ".join(names), "sum8"
    )
    xs = [random_array(rng, (9, 31), np.float64) for _ in names]
    result = k(*[on(backend, x) for x in xs])
    expected = xs[0]
    for x in xs[1:]:
        expected = expected + x
    np.testing.assert_array_equal(host(result), expected)


def test_a_kernel_without_inputs_fills_out(backend):
    k = gpuvec.ElementwiseKernel("", "float64 y", "y = 7", "seven")
    out = poisoned((3, 5), np.float64, backend)
    k(out=out)
    np.testing.assert_array_equal(host(out), np.full((3, 5), 7.0))


def test_on_a_stream(backend, rng):
    a = random_array(rng, 100_003, np.float32)
    stream = gpuvec.Stream()
    result = AXPB(on(backend, a), on(backend, a), stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(host(result), axpb_reference(a, a))
    with pytest.raises(TypeError, match="stream"):
        AXPB(a, a, stream=0)


# -- bad specs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("in_params", "out_params", "match"),
    [
        ("float32 a, float16 b", "float32 c", "parameter 'b' has type float16"),
        ("float32 a, float b", "float32 c", "parameter 'b' has the unknown type 'float'"),
        ("float32 a, floot32 b", "float32 c", "parameter 'b' has the unknown type 'floot32'"),
        ("float32 a, float32 a", "float32 c", "parameter name 'a' is used twice"),
        ("float32 a", "float32 a", "parameter name 'a' is used twice"),
        ("float32 a", "", "declares no output"),
        ("float32", "float32 c", "'float32' is not a parameter of the form 'type name'"),
        ("float32 a b", "float32 c", "'float32 a b' is not a parameter"),
        ("float32 a,", "float32 c", "is not a parameter"),
        ("float32 2a", "float32 c", "'2a' is not a valid parameter name"),
    ],
)
def test_bad_specs_name_the_parameter(in_params, out_params, match):
    with pytest.raises(ValueError, match=match):
        gpuvec.ElementwiseKernel(in_params, out_params, "c = a")


def test_raw_parameters_and_several_outputs_are_declared():
    k = gpuvec.ElementwiseKernel("raw T a, T b", "T c, raw T d", "c = a[0]; d[i] = b")
    assert [p.raw for p in k.inputs] == [True, False]
    assert [(p.name, p.raw) for p in k.outputs] == [("c", False), ("d", True)]


def test_an_undeclared_identifier_is_a_compile_error_at_its_line(backend):
    k = gpuvec.ElementwiseKernel("T x", "T z", "T t = x;\nz = t + y;", "uses_y")
    with pytest.raises(gpuvec.CompileError, match=r"uses_y\.cu, line 2: .*[\"']y[\"']") as info:
        k(on(backend, np.ones(3)))
    assert "z = t + y;" in str(info.value)


# -- bad arguments -------------------------------------------------------------------------------


def test_the_wrong_number_of_arguments():
    with pytest.raises(TypeError, match=r"axpb takes 2 inputs \(a, b\) and optionally the output"):
        AXPB(np.ones(3, np.float32))


def test_an_array_of_another_dtype_names_the_parameter(backend):
    with pytest.raises(TypeError, match="parameter 'b' is float32, got an array of float64"):
        AXPB(on(backend, np.ones(3, np.float32)), on(backend, np.ones(3)))
    with pytest.raises(TypeError, match="'y' of type T got an array of int64, but T is float64"):
        SQUARE_DIFF(np.ones(3), np.ones(3, np.int64))
    with pytest.raises(TypeError, match="parameter 'x' got an array of float16"):
        SQUARE_DIFF(np.ones(3, np.float16), np.ones(3, np.float16))


def test_inconsistent_placeholders_name_both_parameters(backend):
    with pytest.raises(TypeError, match="'y' of type T got an array of float32, but T is float64"):
        SQUARE_DIFF(on(backend, np.ones(3)), on(backend, np.ones(3, np.float32)))


def test_bad_numbers_and_outs(backend):
    with pytest.raises(TypeError, match="parameter 'b' is float32, and 1e\\+300 is too large"):
        AXPB(np.ones(3, np.float32), 1e300)
    with pytest.raises(TypeError, match="takes a real number"):
        AXPB(np.ones(3, np.float32), 1j)
    with pytest.raises(TypeError, match="parameter 'a' takes an array"):
        AXPB([1.0, 2.0], 1.0)
    with pytest.raises(TypeError, match="parameter 'c' is float32, got an out array of float64"):
        AXPB(np.ones(3, np.float32), 1.0, out=np.empty(3))
    with pytest.raises(ValueError, match="out has shape"):
        AXPB(on(backend, np.ones(3, np.float32)), 1.0, out=poisoned(4, np.float32, backend))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        AXPB(on(backend, np.ones(3, np.float32)), on(backend, np.ones(4, np.float32)))
    k = gpuvec.ElementwiseKernel("float32 a", "T c", "c = a", "untyped_out")
    with pytest.raises(ValueError, match="type T of output 'c' is not that of any input"):
        k(np.ones(3, np.float32))


def test_host_and_device_arrays_are_not_mixed():
    if gpuvec.backend() != "cuda":
        pytest.skip("needs device arrays")
    with pytest.raises(TypeError, match="in host memory"):
        AXPB(gpuvec.to_device(np.ones(3, np.float32)), np.ones(3, np.float32))


# -- compiling -----------------------------------------------------------------------------------


def test_each_signature_compiles_once(backend):
    k = gpuvec.ElementwiseKernel("T x", "T y", "y = x + 1", "plus_one")
    k(on(backend, np.ones(3)))
    k(on(backend, np.ones(5)))
    k(on(backend, np.ones(3, np.float32)))
    assert len(k._compiled) == 2


F32, F64, BOOL = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.bool_)


@pytest.mark.parametrize(
    ("in_dtypes", "out_dtype"),
    [([F32, F32], F32), ([F64, F32, BOOL], F64), ([], F32), ([BOOL] * 8, BOOL)],
)
def test_the_cuda_source_compiles_with_nvrtc_without_a_gpu(in_dtypes, out_dtype):
    """NVRTC needs no device: a machine with the toolkit and no GPU checks the source too."""
    try:
        path = _nvrtc.nvrtc_path()
        _core.nvrtc_version(path)
    except (FileNotFoundError, gpuvec.CudaError, ValueError) as error:
        pytest.skip(f"NVRTC is not usable here: {error}")
    names = [f"x{k}" for k in range(len(in_dtypes))]
    functor = _map_source.functor_source(
        "T t = 1; y = t;", names, in_dtypes, "y", out_dtype, {"T": out_dtype}, "k.cu"
    )
    options = [*_module._NVRTC_OPTIONS, f"-I{_module._INCLUDE_DIR}"]
    expressions = _map_source.name_expressions(in_dtypes, out_dtype)
    ok, log, image, _, lowered = _core.nvrtc_compile(
        path, _map_source.cuda_source(functor), "k.cu", 90, options, expressions
    )
    assert ok, log
    assert image
    assert len(lowered) == 4
    kernels = ["map_contiguous", "map_contiguous", "map_rows", "map_strided"]
    assert all(kernel in name for kernel, name in zip(kernels, lowered, strict=True))
