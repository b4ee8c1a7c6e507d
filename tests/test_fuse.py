"""gpuvec.fuse: fused results against the same function run op by op.

The reference ("eager") is the undecorated function run on DeviceArrays, so
that every op in it is gpuvec's eager op. Arithmetic, comparisons, where,
maximum and sqrt must give the same bits; the math library functions the
same bits or within their ulp budget (tests/tolerances.py). A fused kernel
calls the functors of gpuvec's own ops, so on one backend they agree.
"""

import numpy as np
import pytest
from conftest import LAYOUTS, make_layout, random_array
from tolerances import ULPS

import gpuvec
from gpuvec import exp
from gpuvec.kernels import kernel_cache


def on(backend, x):
    """x as the backend's data: a DeviceArray on CUDA, NumPy's array on the host."""
    return gpuvec.to_device(x) if backend == "cuda" and isinstance(x, np.ndarray) else x


def host(x):
    if isinstance(x, (tuple, list)):
        return type(x)(host(v) for v in x)
    return x.to_host() if isinstance(x, gpuvec.DeviceArray) else x


def eager(fused, *args):
    """The function run op by op, each op gpuvec's, on DeviceArrays of the arguments."""
    device = [gpuvec.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return host(fused.__wrapped__(*device))


def assert_same(result, expected):
    """Same dtype, same bits (NaN as NaN)."""
    result, expected = host(result), host(expected)
    assert np.asarray(result).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(result, expected)


@gpuvec.fuse
def axpb(a, b):
    return 2.5 * a * b + a - 0.5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 3, 33, 1023, 65537])
def test_chain_gives_the_eager_bits(backend, rng, dtype, n):
    a, b = random_array(rng, n, dtype), random_array(rng, n, dtype)
    result = axpb(on(backend, a), on(backend, b))
    assert isinstance(result, gpuvec.DeviceArray if backend == "cuda" else np.ndarray)
    assert_same(result, eager(axpb, a, b))
    # and NumPy's, step by step in the same dtype
    assert_same(result, dtype(2.5) * a * b + a - dtype(0.5))


def test_device_arrays_on_the_host_backend_stay_device_arrays(rng):
    a = gpuvec.asarray(random_array(rng, 100, np.float32))
    result = axpb(a, a)
    assert isinstance(result, gpuvec.DeviceArray)
    assert_same(result, eager(axpb, a.to_host(), a.to_host()))


def test_decorator_with_parentheses():
    @gpuvec.fuse()
    def square(x):
        return x * x

    assert isinstance(square, gpuvec.fusion.FusedFunction)
    assert_same(square(np.arange(3.0)), np.arange(3.0) ** 2)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_any_layout(backend, rng, layout):
    a, b = make_layout(rng, layout, np.float32), make_layout(rng, layout, np.float32)
    assert_same(axpb(on(backend, a), on(backend, b)), eager(axpb, a, b))


def test_broadcasting_and_negative_strides(backend, rng):
    @gpuvec.fuse
    def f(x, y, z):
        return (x - y) * z + gpuvec.sqrt(abs(y))

    x = random_array(rng, (5, 1, 7), np.float64)[::-1]
    y = random_array(rng, (4, 1), np.float64)
    z = random_array(rng, (14,), np.float64)[::-2]
    result = f(on(backend, x), on(backend, y), on(backend, z))
    assert host(result).shape == (5, 4, 7)
    assert_same(result, eager(f, x, y, z))


@gpuvec.fuse
def scaled(x, s):
    return s * x - x / s


@pytest.mark.parametrize(
    ("x_dtype", "s", "expected"),
    [
        (np.float32, 3.0, np.float32),  # a Python float is weak
        (np.float32, 3, np.float32),
        (np.float32, np.float32(3.0), np.float32),
        (np.float32, np.float64(3.0), np.float64),  # a NumPy scalar is not
        (np.float64, np.float32(3.0), np.float64),
    ],
)
def test_numbers_follow_the_eager_dtype_policy(backend, rng, x_dtype, s, expected):
    x = random_array(rng, 101, x_dtype)
    result = scaled(on(backend, x), s)
    assert host(result).dtype == expected
    assert_same(result, eager(scaled, x, s))


def test_numbers_on_either_side_and_in_the_function(rng):
    @gpuvec.fuse
    def f(x, y):
        return (1 - x) / 3 + 0.1 * y - y**2 + np.float32(0.25) * x

    x, y = random_array(rng, 64, np.float32), random_array(rng, 64, np.float32)
    assert_same(f(x, y), eager(f, x, y))


def test_a_constant_exponent_is_the_eager_power(backend, rng):
    # A compiler that sees pow(y, 3) in a kernel's source may compute it its
    # own way: the exponent reaches the kernel as a parameter, and the kernel
    # calls the eager power's functor with it.
    square, cube = gpuvec.fuse(lambda y: y**2), gpuvec.fuse(lambda y: y**3)
    y = random_array(rng, 1 << 18, np.float32)
    assert_same(square(on(backend, y)), np.square(y))  # NumPy's y**2, on both backends
    assert_same(square(on(backend, y)), eager(square, y))
    result, expected = host(cube(on(backend, y))), eager(cube, y)
    if backend == "host":  # one math library: the same bits
        assert_same(result, expected)
    else:  # NVRTC's pow and nvcc's may round differently
        np.testing.assert_allclose(result, expected, rtol=2 * np.finfo(np.float32).eps)
    assert "c1" in cube.explain(y).kernels[0].in_params  # the 3, as a parameter


def test_mixed_float32_and_float64(backend, rng):
    @gpuvec.fuse
    def f(a, b):
        return gpuvec.maximum(a * 0.1, b) - a

    a, b = random_array(rng, 77, np.float32), random_array(rng, 77, np.float64)
    result = f(on(backend, a), on(backend, b))
    assert host(result).dtype == np.float64
    assert_same(result, eager(f, a, b))


def test_precision_is_part_of_the_signature(rng):
    x = random_array(rng, 50, np.float64)
    with gpuvec.precision("float32"):
        low = scaled(x, 3.0)
        expected = eager(scaled, x, 3.0)
    assert low.dtype == np.float32
    assert_same(low, expected)
    assert scaled(x, 3.0).dtype == np.float64


def test_nan_inf_and_signed_zero_propagate_as_eager(backend):
    @gpuvec.fuse
    def f(a, b):
        return gpuvec.where(a > b, gpuvec.minimum(a, b), gpuvec.maximum(a, b) * -0.0) / b

    a = np.array([np.nan, 1.0, -np.inf, 0.0, -0.0, 2.0, np.inf])
    b = np.array([1.0, np.nan, 0.0, -0.0, 0.0, np.inf, 3.0])
    result = f(on(backend, a), on(backend, b))
    expected = eager(f, a, b)
    assert_same(result, expected)
    np.testing.assert_array_equal(np.signbit(host(result)), np.signbit(expected))


@pytest.mark.parametrize("name", ["exp", "log", "sin", "tanh", "sigmoid", "arctan", "log1p"])
def test_math_functions_within_their_ulps(backend, rng, name):
    function = getattr(gpuvec, name)

    @gpuvec.fuse
    def f(x):
        return function(x * 0.5 + 1.5) - 1.0

    x = np.abs(random_array(rng, 1000, np.float32))
    result, expected = host(f(on(backend, x))), eager(f, x)
    assert result.dtype == expected.dtype
    # The same functor on one backend: usually the same bits; the budget is
    # the op's, scaled to the result of the subtraction.
    spacing = np.spacing(np.abs(function(x * np.float32(0.5) + np.float32(1.5))))
    assert np.all(np.abs(result - expected) <= ULPS[name] * spacing)


def test_numpy_ufuncs_and_functions_are_traced(rng):
    @gpuvec.fuse
    def f(x, y):
        return np.where(x > 0, np.exp(x), np.hypot(x, y)) + np.clip(y, -1.0, 1.0)

    x, y = random_array(rng, 40, np.float64), random_array(rng, 40, np.float64)
    assert f.explain(x, y).fused
    assert_same(f(x, y), eager(f, x, y))


def test_comparisons_and_bools(backend, rng):
    @gpuvec.fuse
    def f(x, y):
        inside = (x > -5.0) & (x < 5.0)
        return gpuvec.where(inside | (y == x), x, y), (x != y) * 2.0, ~inside

    x, y = random_array(rng, 99, np.float32), random_array(rng, 99, np.float32)
    result = f(on(backend, x), on(backend, y))
    assert type(result) is tuple
    assert host(result[2]).dtype == np.bool_
    for got, expected in zip(result, eager(f, x, y), strict=True):
        assert_same(got, expected)


def test_reduction_at_the_end(backend, rng):
    @gpuvec.fuse
    def f(x, y):
        return gpuvec.sum((x - y) ** 2, axis=1, keepdims=True)

    x, y = random_array(rng, (6, 9), np.float64), random_array(rng, (9,), np.float64)
    explanation = f.explain(on(backend, x), on(backend, y))
    assert "map-and-reduce pair" in str(explanation)
    assert_same(f(on(backend, x), on(backend, y)), eager(f, x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_with_reductions_in_the_middle(backend, rng, dtype):
    # Along columns: the steps (a row softmax is a row kernel: test_fuse_rows.py).
    @gpuvec.fuse
    def softmax(x):
        e = exp(x - x.max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)

    x = random_array(rng, (8, 33), dtype)
    assert_same(softmax(on(backend, x)), eager(softmax, x))
    assert len(softmax.explain(x).kernels) == 2


def test_a_whole_reduction_feeds_a_kernel(rng):
    @gpuvec.fuse
    def centred(x):
        return (x - gpuvec.mean(x)) / x.std(ddof=1)

    for x in (
        random_array(rng, 50, np.float32),
        gpuvec.asarray(random_array(rng, 50, np.float32)),
    ):
        assert_same(
            centred(x),
            eager(centred, host(x)) if isinstance(x, np.ndarray) else host(centred.__wrapped__(x)),
        )


def test_more_than_eight_inputs_make_several_kernels(rng):
    @gpuvec.fuse
    def total(a, b, c, d, e, f, g, h, i, j):
        return a + b * c - d + e * f + g - h * i + j

    args = [random_array(rng, 30, np.float64) for _ in range(10)]
    explanation = total.explain(*args)
    assert len(explanation.kernels) >= 2
    assert all(len(k.inputs) <= 8 for k in explanation.kernels)
    assert_same(total(*args), eager(total, *args))


def test_returns_an_argument_itself_and_zero_d(rng):
    @gpuvec.fuse
    def f(x, y):
        return x, y * 2.0

    x = random_array(rng, 5, np.float32)
    y = np.array(1.5, dtype=np.float32)
    first, second = f(x, y)
    assert first is x
    assert_same(second, gpuvec.multiply(y, 2.0))


def test_keyword_arguments_and_defaults(rng):
    @gpuvec.fuse
    def f(x, y, scale=2.0):
        return x * scale + y

    x, y = random_array(rng, 9, np.float64), random_array(rng, 9, np.float64)
    assert_same(f(y=y, x=x), eager(f, x, y))
    assert_same(f(x, y, scale=3.0), eager(f, x, y, 3.0))


# -- what runs op by op ---------------------------------------------------------------------------


def test_control_flow_on_values_runs_as_written(rng):
    @gpuvec.fuse
    def f(x):
        if (x > 0).all():
            return gpuvec.log(x)
        return x * 2.0

    x = random_array(rng, 10, np.float64)
    explanation = f.explain(x)
    assert not explanation.fused
    assert explanation.kernels == []
    assert "op by op" in str(explanation)
    assert "line" in explanation.reason
    assert_same(f(x), f.__wrapped__(x))
    assert_same(f(np.abs(x) + 1.0), gpuvec.log(np.abs(x) + 1.0))


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (lambda x: x[0] * 2.0, "indexing"),
        (lambda x: x * float(len(x)), "len()"),
        (lambda x: x + np.ones(3), "not an argument"),
        (lambda x: np.cumsum(x) * 2.0, "numpy.cumsum"),
        (lambda x: x.reshape(-1) * 2.0, ".reshape"),
    ],
)
def test_what_the_trace_cannot_follow_runs_op_by_op(rng, body, why):
    def function(x):
        return body(x)

    f = gpuvec.fuse(function)
    x = random_array(rng, 3, np.float64)
    explanation = f.explain(x)
    assert not explanation.fused
    assert why in explanation.reason
    assert_same(f(x), body(x))


def test_in_place_updates_change_the_callers_array_as_written(rng):
    @gpuvec.fuse
    def f(x, y):
        x += y
        return x * 2.0

    x, y = random_array(rng, 8, np.float64), random_array(rng, 8, np.float64)
    expected_x = x + y
    result = f(x, y)
    np.testing.assert_array_equal(x, expected_x)
    assert_same(result, expected_x * 2.0)


def test_a_helper_that_is_not_traced_runs_op_by_op(rng):
    def helper(x):
        return gpuvec.ufuncs.FUNCTIONS["exp"](x)  # the real function, which wants data

    @gpuvec.fuse
    def f(x):
        return helper(x) + 1.0

    x = random_array(rng, 8, np.float64)
    assert not f.explain(x).fused
    assert_same(f(x), gpuvec.exp(x) + 1.0)


@pytest.mark.parametrize(
    "args",
    [
        (np.arange(4), np.ones(4)),  # ints: gpuvec casts where NumPy would not
        ([1.0, 2.0], np.ones(2)),  # a list
        (2.0, 3.0),  # numbers alone: Python's arithmetic
    ],
)
def test_other_arguments_run_as_written(args):
    @gpuvec.fuse
    def f(a, b):
        return a * b + 1

    assert not f.explain(*args).fused
    expected = f.__wrapped__(*args)
    result = f(*args)
    assert type(result) is type(expected)
    np.testing.assert_array_equal(result, expected)


# -- errors ---------------------------------------------------------------------------------------


def test_shape_mismatch_raises_the_eager_error(backend):
    with pytest.raises(ValueError, match="cannot be broadcast together") as fused:
        axpb(on(backend, np.ones(3)), on(backend, np.ones(4)))
    with pytest.raises(ValueError, match="cannot be broadcast together"):
        eager(axpb, np.ones(3), np.ones(4))
    assert "a (3,)" in str(fused.value)
    assert "b (4,)" in str(fused.value)


def test_an_unused_value_still_raises_as_eager():
    @gpuvec.fuse
    def f(a, b, c):
        a * c  # unused: the eager function computes it all the same, and raises
        return a + b

    with pytest.raises(ValueError, match="cannot be broadcast together"):
        f(np.ones(3), np.ones(3), np.ones(4))
    assert_same(f(np.ones(3), np.ones(3), np.ones(3)), np.full(3, 2.0))


def test_numpy_and_device_arrays_do_not_mix():
    with pytest.raises(TypeError, match="in host memory"):
        axpb(np.ones(3), gpuvec.asarray(np.ones(3)))
    with pytest.raises(TypeError, match="in host memory"):
        axpb.__wrapped__(np.ones(3), gpuvec.asarray(np.ones(3)))


def test_wrong_arguments_raise_as_the_function_does():
    with pytest.raises(TypeError, match="argument"):
        axpb(np.ones(3))
    with pytest.raises(TypeError, match="Python function"):
        gpuvec.fuse(np.add)


def test_where_condition_must_be_bool_as_eager(rng):
    @gpuvec.fuse
    def f(c, x):
        return gpuvec.where(c, x, 0.0)

    x = random_array(rng, 4, np.float64)
    with pytest.raises(TypeError):
        f(x, x)
    assert_same(f(x > 0, x), np.where(x > 0, x, 0.0))


# -- caching and explain --------------------------------------------------------------------------


def test_a_second_call_traces_and_compiles_nothing(backend, rng):
    @gpuvec.fuse
    def f(a, b):
        return gpuvec.exp(a - b) * 3.0

    a, b = random_array(rng, 10, np.float32), random_array(rng, 10, np.float32)
    f(on(backend, a), on(backend, b))
    before = kernel_cache().stats()
    plans = dict(f._plans)
    c, d = random_array(rng, (3, 7), np.float32), random_array(rng, (3, 7), np.float32)
    f(on(backend, a[::-1]), on(backend, b))
    f(on(backend, c[0]), on(backend, d[1]))
    after = kernel_cache().stats()
    assert (after.hits, after.misses) == (before.hits, before.misses)
    assert f._plans == plans
    f(on(backend, c), on(backend, d))  # two dimensions: a new signature, traced again
    assert len(f._plans) == len(plans) + 1


def test_explain_shows_kernels_source_and_bytes(rng):
    n = 1000
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    explanation = axpb.explain(a, b)
    text = str(explanation)
    assert explanation.fused
    assert len(explanation.kernels) == 1
    assert "gpuvec::ops::Multiply" in text
    assert "gpuvec.ElementwiseKernel(" in text
    # fused: a and b read once, the result written once; eager: each of the
    # 4 ops reads its arrays and writes a temporary
    assert explanation.fused_bytes == 3 * n * 4
    assert explanation.eager_bytes == (2 + 3 + 3 + 2) * n * 4
    assert repr(explanation) == text
    kernel = explanation.kernels[0]  # the kernel, as the plan runs it
    assert_same(kernel(a, b), axpb(a, b))


# -- side effects ---------------------------------------------------------------------------------

_GLOBAL_CALLS = []


def _record_call():
    _GLOBAL_CALLS.append(1)


def test_a_side_effect_before_what_stops_the_trace_happens_once(backend, rng):
    calls = []

    @gpuvec.fuse
    def f(x):
        calls.append(1)
        if gpuvec.max(x) > 0:  # data-dependent control flow: not traceable
            return x * 2.0
        return x - 1.0

    x = random_array(rng, 16, np.float64)
    expected = x * 2.0 if x.max() > 0 else x - 1.0
    assert_same(f(on(backend, x)), expected)
    assert len(calls) == 1  # once on the first call, not in the trace and again
    assert_same(f(on(backend, x)), expected)
    assert len(calls) == 2
    assert not f.explain(x).fused


def test_a_side_effect_happens_once_per_call(backend, rng, capsys):
    counter = {"calls": 0}

    @gpuvec.fuse
    def printing(x, y):
        print("called")
        return x * y + 1.0

    @gpuvec.fuse
    def counting(x, y):
        counter["calls"] += 1
        return x * y + 1.0

    @gpuvec.fuse
    def through_a_helper(x, y):
        _record_call()
        return x * y + 1.0

    x, y = random_array(rng, 32, np.float32), random_array(rng, 32, np.float32)
    expected = x * y + np.float32(1.0)
    _GLOBAL_CALLS.clear()
    for calls in (1, 2, 3):
        assert_same(printing(on(backend, x), on(backend, y)), expected)
        assert capsys.readouterr().out.count("called") == 1
        assert_same(counting(on(backend, x), on(backend, y)), expected)
        assert counter["calls"] == calls
        assert_same(through_a_helper(on(backend, x), on(backend, y)), expected)
        assert len(_GLOBAL_CALLS) == calls
    explanation = str(printing.explain(x, y))
    assert "print" in explanation
    assert "side effect" in explanation
    assert "side effect" in str(counting.explain(x, y))


def test_a_pure_helper_is_still_traced(rng):
    def square(v):
        return v * v

    @gpuvec.fuse
    def f(x):
        return square(x) + abs(x) + min(2.0, 3.0)

    x = random_array(rng, 64, np.float64)
    assert f.explain(x).fused
    assert_same(f(x), x * x + np.abs(x) + 2.0)
