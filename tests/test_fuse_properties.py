"""Property tests of gpuvec.fuse: random expression trees, fused against eager.

Hypothesis draws a tree of gpuvec ops (operators, elementwise functions,
comparisons feeding where, numbers of each kind, sometimes a reduction at
the end or a max along rows that feeds back into them, a row kernel) over
1 to 3 arguments of random dtypes, with shapes that broadcast together and
views with random steps. The tree is written as the source of a Python
function, which is fused and also run op by op on DeviceArrays.
On the host backend both run the same functors through the same math
library: the same bits. On a GPU, NVRTC and nvcc may inline the math library
differently, so there the math functions are compared within a tolerance.
"""

import re

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gpuvec

property_test = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])

EXACT_UNARY = ["negative", "absolute", "sqrt", "floor", "sign"]
MATH_UNARY = ["exp", "log", "sin", "tanh", "sigmoid"]
EXACT_BINARY = ["+", "-", "*", "/", "maximum", "minimum"]
COMPARISONS = [">", "<=", "=="]
NUMBERS = st.one_of(
    st.floats(-4, 4, width=32).map(repr),  # Python floats: weak
    st.integers(-3, 3).map(repr),  # Python ints: weak
    st.floats(-4, 4, width=32).map(lambda v: f"np.float32({v!r})"),  # strong float32
    st.floats(-4, 4, width=32).map(lambda v: f"np.float64({v!r})"),  # strong float64
)


def trees(names):
    """The source of an expression over the arguments `names`, and whether it is exact."""
    leaves = st.one_of(
        st.sampled_from(names).map(lambda n: (n, True)), NUMBERS.map(lambda s: (s, True))
    )

    def extend(inner):
        unary = st.tuples(st.sampled_from(EXACT_UNARY + MATH_UNARY), inner).map(
            lambda t: (f"gpuvec.{t[0]}({t[1][0]})", t[1][1] and t[0] in EXACT_UNARY)
        )
        binary = st.tuples(st.sampled_from(EXACT_BINARY), inner, inner).map(
            lambda t: (
                f"({t[1][0]} {t[0]} {t[2][0]})"
                if len(t[0]) == 1
                else f"gpuvec.{t[0]}({t[1][0]}, {t[2][0]})",
                t[1][1] and t[2][1],
            )
        )
        where = st.tuples(st.sampled_from(COMPARISONS), inner, inner, inner, inner).map(
            lambda t: (
                # an argument in the condition: a comparison of numbers is a bool
                f"gpuvec.where({t[1][0]} + {names[0]} {t[0]} {t[2][0]}, {t[3][0]}, {t[4][0]})",
                all(x[1] for x in t[1:]),
            )
        )
        return st.one_of(unary, binary, where)

    return st.recursive(leaves, extend, max_leaves=8)


@st.composite
def cases(draw):
    """(source of the function, its arguments, whether every op is exact)."""
    count = draw(st.integers(1, 3))
    names = [f"x{k}" for k in range(count)]
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    args = []
    for _ in names:
        ndim = draw(st.integers(0, len(shape)))
        # broadcasting: fewer dimensions, and some of them 1
        own = [1 if draw(st.integers(0, 3)) == 0 else n for n in shape[len(shape) - ndim :]]
        dtype = draw(st.sampled_from([np.float32, np.float64]))
        steps = [draw(st.sampled_from([1, 2, -1])) for _ in own]
        base = draw(
            hnp.arrays(
                dtype,
                tuple(n * abs(s) for n, s in zip(own, steps, strict=True)),
                elements=st.floats(-8, 8, width=32),
            )
        )
        args.append(base[(..., *(slice(None, None, s) for s in steps))])  # 0-d stays an array
    # Numbers only would be Python's arithmetic: make sure an argument is used.
    body, exact = draw(trees(names))
    body = f"({body}) + {names[0]}"
    ending = draw(st.integers(0, 3)) if args[0].ndim else 3
    if ending == 0:
        body = f"gpuvec.sum({body}, axis=-1)"
    elif ending == 1:  # a reduction that feeds back into its rows: a row kernel (max: exact)
        body = f"t - gpuvec.max(t, axis=-1, keepdims=True)\n    t = {body}"
    lines = body.split("\n    ")[::-1]  # the assignment first, where there is one
    source = (
        f"def f({', '.join(names)}):\n    "
        + "\n    ".join([*lines[:-1], "return " + lines[-1]])
        + "\n"
    )
    return source, args, exact


def compile_function(source):
    scope = {"gpuvec": gpuvec, "np": np}
    exec(source, scope)  # the generated function, as a user would write it
    return scope["f"]


@property_test
@given(case=cases())
def test_random_trees_fused_equal_eager(backend, case):
    source, args, exact = case
    note(source)
    function = compile_function(source)
    fused = gpuvec.fuse(function)
    to_backend = gpuvec.to_device if backend == "cuda" else gpuvec.asarray
    numpy_args, args = args, [to_backend(a) for a in args]
    with np.errstate(all="ignore"):
        try:
            expected = function(*args)
        except Exception as exc:  # Python's arithmetic on numbers (0.0 / 0.0): the same error
            with pytest.raises(type(exc)):
                fused(*args)
            return
        result = fused(*args)
    explained = fused.explain(*args)
    # gpuvec's ops on Python ints alone give NumPy ints (gpuvec.negative(2) is
    # np.int64(-2), as NumPy's), which a fused kernel does not read: that
    # function runs op by op, and any other reason not to fuse is a failure.
    assert explained.fused or re.search(r": an operand of type u?int\d+$", explained.reason), (
        explained.reason
    )
    expected = np.asarray(expected.to_host() if hasattr(expected, "to_host") else expected)
    result = np.asarray(result.to_host() if hasattr(result, "to_host") else result)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    if exact or backend == "host":
        np.testing.assert_array_equal(result, expected)
    if backend == "host":  # NumPy arguments compute as gpuvec's ops do on them
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(fused(*numpy_args), expected)
    else:
        tol = 1e-4 if result.dtype == np.float32 else 1e-11
        scale = np.nanmax(np.abs(np.where(np.isfinite(expected), expected, 0)), initial=1.0)
        np.testing.assert_allclose(result, expected, rtol=tol, atol=tol * scale, equal_nan=True)
