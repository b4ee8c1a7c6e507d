"""The dtype policy's table, row by row, and set_precision / precision."""

import re
import threading

import numpy as np
import pytest

import gpuvec
from gpuvec import _dtypes

f16, f32, f64 = np.float16, np.float32, np.float64


def table_rows():
    """The rows of the casting table in gpuvec._dtypes' docstring, as (inputs, result)."""
    lines = _dtypes.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if re.fullmatch(r"=+ +=+", line.strip())]
    assert len(rules) == 3, "the docstring has one table, with a header"
    rows = []
    for line in lines[rules[1] + 1 : rules[2]]:
        inputs, result = re.split(r"\s{2,}", line.strip())
        rows.append((inputs, result))
    return rows


def under(precision, op, *args, **kwargs):
    with gpuvec.precision(precision):
        return op(*args, **kwargs)


# One list of cases per row of the table: (the call, the dtype it must give).
CASES = {
    "all float32 (Python scalars do not count)": [
        (lambda: gpuvec.add(np.ones(3, f32), np.ones(3, f32)), "float32"),
        (lambda: gpuvec.add(np.ones(3, f32), 2.0), "float32"),
        (lambda: gpuvec.exp(np.ones(3, f32)), "float32"),
        (lambda: gpuvec.where(np.ones(3, bool), np.ones(3, f32), 0), "float32"),
        (lambda: gpuvec.sum(np.ones((2, 2), f32), axis=0), "float32"),
    ],
    # (computed in float32 and rounded: tests/test_float16.py checks the values)
    "float16 (with bools, 8-bit ints, Python numbers)": [
        (lambda: gpuvec.sqrt(np.ones(3, f16)), "float16"),
        (lambda: gpuvec.add(np.ones(3, f16), np.ones(3, bool)), "float16"),
        (lambda: gpuvec.multiply(np.ones(3, np.int8), np.ones(3, f16)), "float16"),
        (lambda: gpuvec.add(np.ones(3, f16), 2.5), "float16"),
        (lambda: gpuvec.sqrt(np.ones(3, np.uint8)), "float16"),
        (lambda: gpuvec.sum(np.ones((2, 2), f16), axis=0), "float16"),
    ],
    "float16 with float32 or 16-bit ints": [
        (lambda: gpuvec.add(np.ones(3, f16), np.ones(3, f32)), "float32"),
        (lambda: gpuvec.add(np.ones(3, np.int16), np.ones(3, f16)), "float32"),
        (lambda: gpuvec.sqrt(np.ones(3, np.int16)), "float32"),
    ],
    "float32 with bools or 8- or 16-bit ints": [
        (lambda: gpuvec.add(np.ones(3, f32), np.ones(3, bool)), "float32"),
        (lambda: gpuvec.add(np.ones(3, np.int16), np.ones(3, f32)), "float32"),
        (lambda: gpuvec.maximum(np.ones(3, np.uint8), np.ones(3, f32)), "float32"),
    ],
    "any float64": [
        (lambda: gpuvec.add(np.ones(3, f32), np.ones(3, f64)), "float64"),
        (lambda: gpuvec.clip(np.ones(3, f32), 0.0, np.ones(3)), "float64"),
        (lambda: gpuvec.mean(np.ones((2, 2)), axis=1), "float64"),
    ],
    "float32 with 32- or 64-bit ints": [
        (lambda: gpuvec.add(np.ones(3, np.int32), np.ones(3, f32)), "float64"),
        (lambda: gpuvec.power(np.ones(3, f32), np.ones(3, np.int64)), "float64"),
    ],
    # (tests/test_integer_ops.py checks every integer op and dtype pair.)
    "ints, bools, Python numbers: an integer op": [
        (lambda: gpuvec.add(np.ones(3, np.int32), np.ones(3, np.int64)), "int64"),
        (lambda: gpuvec.multiply(np.ones(3, np.uint8), 7), "uint8"),
        (lambda: gpuvec.add(np.ones(3, bool), np.ones(3, bool)), "bool"),
        (lambda: under("float32", gpuvec.add, np.ones(3, np.int16), 2), "int16"),
    ],
    "the same, a float op (``/``, ``sqrt``)": [
        (lambda: gpuvec.divide(np.ones(3, np.int32), np.ones(3, np.int64)), "float64"),
        (lambda: gpuvec.sqrt(np.ones(3, np.int32)), "float64"),
        (lambda: gpuvec.add(1.5, 2.5), "float64"),
        (lambda: gpuvec.mean([[1, 2]], axis=0), "float64"),
    ],
    'a float result, under ``precision("float32")``': [
        (lambda: under("float32", gpuvec.add, np.ones(3), np.ones(3)), "float32"),
        (lambda: under("float32", gpuvec.tanh, np.arange(3)), "float32"),
        (lambda: under(f32, gpuvec.axpby, 1.0, np.ones(3), 2.0, np.ones(3)), "float32"),
        (lambda: under("float32", gpuvec.var, np.ones((2, 3)), axis=1), "float32"),
    ],
    'a float result, under ``precision("float64")``': [
        (lambda: under("float64", gpuvec.add, np.ones(3, f32), np.ones(3, f32)), "float64"),
        (lambda: under("float64", gpuvec.norm, np.ones((2, 3), f32), axis=0), "float64"),
    ],
    "any inputs, with ``dtype=`` (wins over precision)": [
        (lambda: gpuvec.add(np.ones(3), np.ones(3), dtype=f32), "float32"),
        (lambda: under("float32", gpuvec.add, np.ones(3), np.ones(3), dtype=f64), "float64"),
        (lambda: under("float64", gpuvec.min, np.ones((2, 2)), axis=0, dtype=f32), "float32"),
    ],
}


def test_every_row_of_the_table_is_tested():
    assert [inputs for inputs, _ in table_rows()] == list(CASES)


@pytest.mark.parametrize(("inputs", "result"), table_rows())
def test_table_row(backend, inputs, result):
    for case, expected in CASES[inputs]:
        if result not in ("that dtype", "NumPy's integer dtype", "NumPy's float dtype"):
            assert expected == result, "the case disagrees with the table"
        assert np.asarray(case()).dtype == expected


def test_precision_float32_rounds_the_inputs(backend, rng):
    x = rng.standard_normal(1000)
    with gpuvec.precision("float32"):
        y = gpuvec.multiply(x, x)
        total = gpuvec.sum(x)
    np.testing.assert_array_equal(y, x.astype(f32) * x.astype(f32))
    assert total == float(np.float32(total))  # rounded to float32
    assert gpuvec.multiply(x, x).dtype == f64  # and back outside the block


def test_set_precision_returns_the_previous_one(backend):
    assert gpuvec.get_precision() is None
    try:
        assert gpuvec.set_precision("float32") is None
        assert gpuvec.get_precision() == "float32"
        assert gpuvec.add(np.ones(2), 1.0).dtype == f32
        assert gpuvec.set_precision(np.float64) == "float32"
        assert gpuvec.add(np.ones(2, f32), 1.0).dtype == f64
        with gpuvec.precision(None):  # the default policy, for the block
            assert gpuvec.add(np.ones(2, f32), 1.0).dtype == f32
        assert gpuvec.add(np.ones(2, f32), 1.0).dtype == f64
    finally:
        assert gpuvec.set_precision(None) == "float64"
    assert gpuvec.add(np.ones(2, f32), 1.0).dtype == f32


def test_precision_blocks_nest_and_restore_on_error(backend):
    def nested():
        with gpuvec.precision("float32"):
            with gpuvec.precision("float64"):
                assert gpuvec.get_precision() == "float64"
            assert gpuvec.get_precision() == "float32"
            raise KeyError("inside the block")

    with pytest.raises(KeyError, match="inside the block"):
        nested()
    assert gpuvec.get_precision() is None


def test_precision_block_belongs_to_its_thread(backend):
    seen = {}

    def other():
        seen["dtype"] = gpuvec.add(np.ones(2), 1.0).dtype

    with gpuvec.precision("float32"):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert gpuvec.add(np.ones(2), 1.0).dtype == f32
    assert seen["dtype"] == f64  # the other thread kept the default


def test_set_precision_holds_for_every_thread(backend):
    seen = {}

    def other():
        seen["dtype"] = gpuvec.add(np.ones(2), 1.0).dtype

    gpuvec.set_precision("float32")
    try:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    finally:
        gpuvec.set_precision(None)
    assert seen["dtype"] == f32


@pytest.mark.parametrize("bad", ["float16", "int32", np.int64, 3, "half", "complex128"])
def test_bad_precision(bad):
    with pytest.raises(ValueError, match="precision must be 'float32', 'float64' or None, got"):
        gpuvec.set_precision(bad)
    with pytest.raises(ValueError, match="precision must be 'float32', 'float64' or None"):
        with gpuvec.precision(bad):
            pass
    assert gpuvec.get_precision() is None


def test_precision_does_not_accept_non_numeric_data(backend):
    with (
        gpuvec.precision("float32"),
        pytest.raises(TypeError, match=r"a has dtype datetime64\[D\]"),
    ):
        gpuvec.add(np.zeros(3, "datetime64[D]"), 1.0)
