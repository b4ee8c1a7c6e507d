"""gpuvec.random against NumPy's Generator(Philox), bit for bit; <gpuvec/random.h> in kernels."""

from __future__ import annotations

import os
import pickle
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import INTEGER_DTYPES

import gpuvec
from gpuvec.random import Generator, Philox, SeedSequence, _draws, _placement, default_rng

SIZES = [0, 1, 7, 2**16 + 3, (3, 5)]


@pytest.fixture(params=[0, 1, 12345, "fresh"])
def seed(request, rng):
    """A few fixed seeds and one fresh one (printed on failure by the rng fixture)."""
    if request.param == "fresh":
        return int(rng.integers(2**63))
    return request.param


def pair(seed):
    """gpuvec's Generator and NumPy's Generator(Philox) from one seed."""
    return default_rng(seed), np.random.Generator(np.random.Philox(seed))


def assert_same(result, expected):
    """``result`` is NumPy's ``expected``, bit for bit: a DeviceArray for an array."""
    if isinstance(expected, np.ndarray):
        assert isinstance(result, gpuvec.DeviceArray), type(result)
        assert result.dtype == expected.dtype
        assert result.shape == expected.shape
        assert result.to_host().tobytes() == expected.tobytes()
    else:
        assert type(result) is type(expected)
        assert np.asarray(result).tobytes() == np.asarray(expected).tobytes()


def assert_same_state(bits, numpy_bits):
    ours, theirs = bits.state, numpy_bits.state
    assert ours["bit_generator"] == theirs["bit_generator"] == "Philox"
    for name in ["counter", "key"]:
        assert np.array_equal(ours["state"][name], theirs["state"][name])
    assert np.array_equal(ours["buffer"], theirs["buffer"])
    for name in ["buffer_pos", "has_uint32", "uinteger"]:
        assert ours[name] == theirs[name]


def same_draw(seed, method, *args, **kwargs):
    """Calls ``method`` on both generators, compares the values and the states after."""
    ours, theirs = pair(seed)
    expected = getattr(theirs, method)(*args, **kwargs)
    result = getattr(ours, method)(*args, **kwargs)
    assert_same(result, expected)
    assert_same_state(ours.bit_generator, theirs.bit_generator)
    return result


# --- each method, bit for bit ---------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random(backend, seed, size, dtype):
    same_draw(seed, "random", size, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_value_is_numpys_scalar(seed, dtype):
    for method in ["random", "standard_normal", "standard_exponential"]:
        same_draw(seed, method, dtype=dtype)
    same_draw(seed, "integers", 10)
    same_draw(seed, "uniform", 2.0, 3.0)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [*INTEGER_DTYPES, np.bool_])
@pytest.mark.parametrize("endpoint", [False, True])
def test_integers(backend, seed, size, dtype, endpoint):
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    if info is None:
        bounds = [(0, 1 if endpoint else 2), (1 if endpoint else 2,)]
    else:
        top = info.max if endpoint else info.max + 1
        low = max(info.min, -50)
        bounds = [(low, 100), (info.min, top), (101,), (low, low + 1 - endpoint)]
        if info.bits == 64:
            bounds.append((3, 2**40 + 7))  # a range above 32 bits: uint64 draws
    for bound in bounds:
        same_draw(seed, "integers", *bound, size=size, dtype=dtype, endpoint=endpoint)


def test_integers_array_bounds(backend, seed):
    low = np.arange(6).reshape(2, 3)
    same_draw(seed, "integers", low, 10)
    same_draw(seed, "integers", 0, [5, 1000, 2**35], size=(4, 3))
    same_draw(seed, "integers", gpuvec.to_device(low), 7, dtype=np.int16)


@pytest.mark.parametrize("size", SIZES)
def test_uniform(backend, seed, size):
    same_draw(seed, "uniform", size=size)
    same_draw(seed, "uniform", -3.5, 1e10, size)
    same_draw(seed, "uniform", np.array([0.0, 1.0, 2.0]), 5.0, size=None)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_standard_normal(backend, seed, size, dtype):
    same_draw(seed, "standard_normal", size, dtype)


@pytest.mark.parametrize("size", SIZES)
def test_normal(backend, seed, size):
    same_draw(seed, "normal", 3.0, 2.5, size)
    same_draw(seed, "normal", [0.0, 1.0, 2.0], gpuvec.to_device(np.array([1.0, 2.0, 3.0])))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["zig", "inv"])
def test_standard_exponential(backend, seed, size, dtype, method):
    same_draw(seed, "standard_exponential", size, dtype, method)


@pytest.mark.parametrize("size", SIZES)
def test_exponential(backend, seed, size):
    same_draw(seed, "exponential", 0.5, size)
    same_draw(seed, "exponential", [1.0, 2.0, 3.0])


@pytest.mark.parametrize("n", [0, 1, 7, 2**16 + 3])
def test_permutation_of_a_count(backend, seed, n):
    same_draw(seed, "permutation", n)


def test_permutation_of_an_array(backend, seed, rng):
    data = rng.standard_normal((5, 4))
    for axis in [0, 1, -1]:
        same_draw(seed, "permutation", data, axis=axis)
    # A DeviceArray: a permuted copy, the original as it was.
    device = gpuvec.to_device(data)
    ours, theirs = pair(seed)
    assert_same(ours.permutation(device, axis=1), theirs.permutation(data, axis=1))
    assert np.array_equal(device.to_host(), data)


@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (2**16 + 3,), (6, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_shuffle_in_place(backend, seed, rng, shape, dtype):
    data = rng.integers(0, 100, shape).astype(dtype)
    for axis in range(len(shape)):
        ours, theirs = pair(seed)
        device = gpuvec.to_device(data)
        expected = data.copy()
        assert ours.shuffle(device, axis) is None
        theirs.shuffle(expected, axis)
        assert_same(device, expected)
        assert_same_state(ours.bit_generator, theirs.bit_generator)


def test_shuffle_of_numpy_data(seed, rng):
    data = rng.standard_normal(20)
    ours, theirs = pair(seed)
    mine, expected = data.copy(), data.copy()
    ours.shuffle(mine)
    theirs.shuffle(expected)
    assert np.array_equal(mine, expected)
    items, expected_items = list(range(10)), list(range(10))
    ours.shuffle(items)
    theirs.shuffle(expected_items)
    assert items == expected_items


@pytest.mark.parametrize("size", [None, *SIZES])
@pytest.mark.parametrize("replace", [True, False])
def test_choice(backend, seed, size, replace):
    population = 2**17 if replace or size is None else 3 * 2**16  # small and large samples
    same_draw(seed, "choice", population, size, replace=replace)
    same_draw(seed, "choice", 30, 7, replace=replace)
    same_draw(seed, "choice", 30, 7, replace=replace, shuffle=False)


def test_choice_of_an_array(backend, seed, rng):
    data = rng.standard_normal((6, 4))
    same_draw(seed, "choice", data, 3, replace=False)
    same_draw(seed, "choice", data, (2, 2), axis=1)
    ours, theirs = pair(seed)
    assert_same(ours.choice(gpuvec.to_device(data), 5), theirs.choice(data, 5))
    p = rng.random(6)
    same_draw(seed, "choice", 6, 10, p=p / p.sum())


# --- out= ------------------------------------------------------------------------------------

OUT_METHODS = [
    ("random", {}),
    ("standard_normal", {}),
    ("standard_exponential", {}),
    ("standard_exponential", {"method": "inv"}),
]


@pytest.mark.parametrize(("method", "kwargs"), OUT_METHODS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_out(backend, seed, method, kwargs, dtype, order):
    ours, theirs = pair(seed)
    expected = np.empty((5, 3), dtype, order=order)
    getattr(theirs, method)(dtype=dtype, out=expected, **kwargs)
    # A Fortran-order DeviceArray: the transpose of a C-order one.
    out = gpuvec.empty((5, 3), dtype) if order == "C" else gpuvec.empty((3, 5), dtype).T
    result = getattr(ours, method)(size=(5, 3), dtype=dtype, out=out, **kwargs)
    assert result is out
    assert_same(out, expected)
    assert_same_state(ours.bit_generator, theirs.bit_generator)


@pytest.mark.parametrize(("method", "kwargs"), OUT_METHODS)
def test_out_numpy_array_and_empty(backend, seed, method, kwargs):
    ours, theirs = pair(seed)
    mine, expected = np.empty(9), np.empty(9)
    assert getattr(ours, method)(out=mine, **kwargs) is mine
    getattr(theirs, method)(out=expected, **kwargs)
    assert np.array_equal(mine, expected)
    empty = gpuvec.empty(0)
    assert getattr(ours, method)(out=empty, **kwargs) is empty
    assert_same_state(ours.bit_generator, theirs.bit_generator)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_out_through_a_stand_in(backend, seed, layout):
    # The path of a GPU's DeviceArray (on the host backend, out= is filled in place).
    base = gpuvec.zeros((6, 10), np.float32)
    out = {"C": base, "F": base.T, "strided": base[::2, ::2]}[layout]
    host = _placement.stand_in(out)
    assert host.shape == out.shape
    assert host.dtype == out.dtype
    expected = np.zeros(out.shape, np.float32, order="F" if layout == "F" else "C")
    if layout == "strided":
        expected = np.zeros((*out.shape, 2), np.float32)[..., 0]
    ours, theirs = pair(seed)
    try:
        theirs.standard_normal(dtype=np.float32, out=expected)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error))):
            _draws.standard_normal_values(ours.bit_generator, None, np.float32, host)
        return
    values = _draws.standard_normal_values(ours.bit_generator, None, np.float32, host)
    assert _placement.placed(values, out, host) is out
    assert_same(out, expected)


def assert_same_error(call):
    """``call(generator, numpy_generator_or_data)`` raises NumPy's exception, message and all."""
    ours, theirs = pair(3)
    with pytest.raises((ValueError, TypeError, OverflowError, IndexError)) as expected:
        call(theirs, True)
    with pytest.raises(type(expected.value)) as raised:
        call(ours, False)
    assert str(raised.value) == str(expected.value)
    assert_same_state(ours.bit_generator, theirs.bit_generator)


@pytest.mark.parametrize(("method", "kwargs"), OUT_METHODS)
def test_out_errors(backend, method, kwargs):
    def host_or_device(is_numpy, array):
        return array if is_numpy else gpuvec.to_device(array)

    def strided(g, is_numpy):
        out = host_or_device(is_numpy, np.zeros((4, 6)))[::2, ::2]
        getattr(g, method)(out=out, **kwargs)

    def wrong_dtype(g, is_numpy):
        getattr(g, method)(out=host_or_device(is_numpy, np.zeros(3, np.float32)), **kwargs)

    def wrong_size(g, is_numpy):
        getattr(g, method)(size=4, out=host_or_device(is_numpy, np.zeros(3)), **kwargs)

    for call in [strided, wrong_dtype, wrong_size]:
        assert_same_error(call)


# --- errors ----------------------------------------------------------------------------------

ERRORS = {
    "random dtype": lambda g: g.random(dtype=np.int32),
    "negative size": lambda g: g.random(size=-1),
    "low above high": lambda g: g.integers(5, 2),
    "bound outside dtype": lambda g: g.integers(0, 300, dtype=np.uint8),
    "negative for unsigned": lambda g: g.integers(-1, 3, dtype=np.uint32),
    "float dtype": lambda g: g.integers(0, 3, dtype=np.float64),
    "empty range": lambda g: g.integers(0, 0),
    "infinite range": lambda g: g.uniform(0, np.inf),
    "negative scale": lambda g: g.normal(0.0, -1.0),
    "negative exponential scale": lambda g: g.exponential(-1.0),
    "normal dtype": lambda g: g.standard_normal(dtype=np.int64),
    "permutation of a 0-d array": lambda g: g.permutation(np.float64(3.5)),
    "permutation axis": lambda g: g.permutation(np.zeros((2, 2)), axis=2),
    "shuffle axis": lambda g: g.shuffle(np.zeros(3), axis=1),
    "empty population": lambda g: g.choice(0),
    "sample too large": lambda g: g.choice(5, 6, replace=False),
    "p of another length": lambda g: g.choice(5, p=[0.5, 0.5]),
    "p not a distribution": lambda g: g.choice(2, p=[0.7, 0.7]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_numpys(name):
    assert_same_error(lambda g, _: ERRORS[name](g))


def test_spawn_of_a_keyed_philox_is_refused_as_numpy_does():
    with pytest.raises(TypeError) as expected:
        np.random.Generator(np.random.Philox(key=5)).spawn(2)
    with pytest.raises(TypeError) as raised:
        Generator(Philox(key=5)).spawn(2)
    assert str(raised.value) == str(expected.value)


def test_read_only_device_arrays_are_refused_as_numpy_refuses_them():
    data = np.arange(5.0)
    data.flags.writeable = False
    previous = gpuvec.set_backend("host")
    try:
        device = gpuvec.from_dlpack(data)  # a read-only view of NumPy's memory
        assert device._readonly
        assert_same_error(lambda g, is_numpy: g.shuffle(data if is_numpy else device))
        assert_same_error(lambda g, is_numpy: g.random(out=data if is_numpy else device))
    finally:
        gpuvec.set_backend(previous)


def test_other_bit_generators_are_refused():
    for seed in [np.random.PCG64(1), np.random.Generator(np.random.MT19937(1))]:
        with pytest.raises(TypeError, match="Philox"):
            default_rng(seed)
    with pytest.raises(TypeError, match="takes a Philox bit generator"):
        Generator(np.random.PCG64(1))


def test_default_rng_takes_what_numpys_takes(seed):
    generator = default_rng(seed)
    assert default_rng(generator) is generator
    numpy_philox = np.random.Philox(seed)
    assert default_rng(numpy_philox).bit_generator is numpy_philox
    assert default_rng(np.random.Generator(numpy_philox)).bit_generator is numpy_philox
    same = default_rng(SeedSequence(seed)).random(5)
    assert_same(same, np.random.Generator(np.random.Philox(seed)).random(5))
    assert isinstance(default_rng().bit_generator, Philox)
    assert repr(generator).startswith("Generator(Philox) at 0x")


# --- the bit generator: state, jumped, spawn, advance ---------------------------------------


def test_state_round_trip(seed):
    ours, theirs = pair(seed)
    ours.random(5, np.float32)  # a kept 32-bit half and a partly used block
    state = ours.bit_generator.state
    theirs.bit_generator.state = state  # gpuvec's state into NumPy's Philox
    assert_same(ours.random(7), theirs.random(7))
    restored = Philox()
    restored.state = theirs.bit_generator.state  # and NumPy's into gpuvec's
    assert_same(Generator(restored).integers(0, 10**6, 9), theirs.integers(0, 10**6, 9))
    with pytest.raises(ValueError, match="Philox"):
        restored.state = np.random.PCG64(1).state


def test_pickle(seed):
    ours, _ = pair(seed)
    ours.random(3)
    copy = pickle.loads(pickle.dumps(ours))
    assert type(copy) is Generator
    assert type(copy.bit_generator) is Philox
    assert_same(copy.standard_normal(11), ours.standard_normal(11).to_host())


def test_spawn_jumped_advance(seed):
    ours, theirs = pair(seed)
    for mine, expected in zip(ours.spawn(3), theirs.spawn(3), strict=True):
        assert type(mine) is Generator
        assert type(mine.bit_generator) is Philox
        assert_same(mine.random(6), expected.random(6))
    jumped = ours.bit_generator.jumped(2)
    assert type(jumped) is Philox
    assert_same_state(jumped, theirs.bit_generator.jumped(2))
    assert_same(
        Generator(jumped).random(5), np.random.Generator(theirs.bit_generator.jumped(2)).random(5)
    )
    ours.bit_generator.advance(1000)
    theirs.bit_generator.advance(1000)
    assert_same(ours.random(5), theirs.random(5))


# --- the stream: the facts that the docstrings and <gpuvec/random.h> state -------------------

PHILOX_M = (0xD2E7470EE14C6C93, 0xCA5A826395121157)
PHILOX_W = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
MASK64 = 2**64 - 1


def philox4x64_10(counter: int, key: int) -> list[int]:
    """Random123's Philox4x64-10, in Python integers: the block of `counter` under `key`."""
    c = [(counter >> (64 * i)) & MASK64 for i in range(4)]
    k = [key & MASK64, key >> 64]
    for round_ in range(10):
        if round_:
            k = [(k[0] + PHILOX_W[0]) & MASK64, (k[1] + PHILOX_W[1]) & MASK64]
        p0, p1 = PHILOX_M[0] * c[0], PHILOX_M[1] * c[2]
        c = [(p1 >> 64) ^ c[1] ^ k[0], p1 & MASK64, (p0 >> 64) ^ c[3] ^ k[1], p0 & MASK64]
    return c


def test_stream_is_philox4x64_10_blocks_of_counter_plus_one(rng):
    key = int(rng.integers(2**63)) << 64 | int(rng.integers(2**63))
    # A counter whose increments carry across the 64-bit words.
    for counter in [0, int(rng.integers(2**62)), 2**64 - 2, 2**128 - 1]:
        raw = np.random.Philox(key=key, counter=counter).random_raw(12)
        blocks = [philox4x64_10((counter + 1 + j) % 2**256, key) for j in range(3)]
        assert [int(v) for v in raw] == [v for block in blocks for v in block]


def test_random_is_the_top_bits_of_the_raw_stream(seed):
    raw = np.random.Philox(seed).random_raw(9)
    doubles = np.random.Generator(np.random.Philox(seed)).random(9)
    assert np.array_equal(doubles, (raw >> np.uint64(11)).astype(np.float64) * 2.0**-53)
    # float32: the uint64s' halves, low half first, each the top 24 bits of 32.
    halves = np.stack([raw & np.uint64(0xFFFFFFFF), raw >> np.uint64(32)], axis=1).ravel()
    floats = np.random.Generator(np.random.Philox(seed)).random(18, np.float32)
    expected = (halves >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
    assert np.array_equal(floats, expected)


def test_derived_distributions_are_numpys_formulas(seed):
    def g():
        return np.random.Generator(np.random.Philox(seed))

    u, z, e = g().random(50), g().standard_normal(50), g().standard_exponential(50)
    assert np.array_equal(g().uniform(-2.0, 5.0, 50), -2.0 + (5.0 - -2.0) * u)
    assert np.array_equal(g().normal(3.0, 0.25, 50), 3.0 + 0.25 * z)
    assert np.array_equal(g().exponential(4.0, 50), 4.0 * e)
    assert np.array_equal(g().choice(1000, 50), g().integers(0, 1000, 50))


def test_integer_ranges_that_take_raw_draws_or_none(seed):
    def g():
        return np.random.Generator(np.random.Philox(seed))

    raw = np.random.Philox(seed).random_raw(4)
    halves = np.stack([raw & np.uint64(0xFFFFFFFF), raw >> np.uint64(32)], axis=1).ravel()
    assert np.array_equal(g().integers(0, 2**64, 4, np.uint64), raw)
    assert np.array_equal(g().integers(0, 2**32, 8, np.uint32), halves)
    assert np.array_equal(
        g().integers(-(2**31), 2**31, 8, np.int32),
        halves.astype(np.uint32).view(np.int32) ^ np.int32(-(2**31)),
    )
    bits = np.random.Philox(seed)
    np.random.Generator(bits).integers(5, 6, size=10)  # one value: no draw
    assert bits.state["buffer_pos"] == 4
    assert not bits.state["state"]["counter"].any()


@pytest.mark.parametrize(
    ("method", "dtype", "bits"),
    [
        ("standard_normal", np.float64, 64),
        ("standard_normal", np.float32, 32),
        ("standard_exponential", np.float64, 64),
        ("standard_exponential", np.float32, 32),
    ],
)
def test_ziggurat_takes_about_one_draw_per_value(seed, method, dtype, bits):
    bits_generator = np.random.Philox(seed)
    n = 40_000
    getattr(np.random.Generator(bits_generator), method)(n, dtype)
    state = bits_generator.state
    used = 4 * int(state["state"]["counter"][0]) - (4 - state["buffer_pos"])
    draws = used if bits == 64 else 2 * used - state["has_uint32"]
    assert n <= draws <= 1.05 * n  # the rare paths' extra draws


def test_shuffle_is_fisher_yates_with_masked_draws(seed):
    n = 1000
    raw = np.random.Philox(seed).random_raw(2 * n)
    low, high = raw & np.uint64(0xFFFFFFFF), raw >> np.uint64(32)
    halves = iter(int(v) for v in np.stack([low, high], axis=1).ravel())
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        mask = (1 << i.bit_length()) - 1
        j = next(halves) & mask
        while j > i:
            j = next(halves) & mask
        order[i], order[j] = order[j], order[i]
    assert order == list(np.random.Generator(np.random.Philox(seed)).permutation(n))


# --- <gpuvec/random.h> in kernels -----------------------------------------------------------

FILL = r"""
#include <gpuvec/random.h>

__global__ void fill(double* doubles, float* floats, unsigned long long* words,
                     unsigned long long k0, unsigned long long k1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    gpuvec_philox4x64_key key = gpuvec_random_key(k0, k1);
    doubles[i] = gpuvec_random_double(key, i);
    floats[i] = gpuvec_random_float(key, i);
    words[i] = gpuvec_random_uint64(key, i);
  }
}

__global__ void fill_from(double* doubles, unsigned long long c0, unsigned long long c1,
                          unsigned long long c2, unsigned long long c3,
                          unsigned long long k0, unsigned long long k1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    doubles[i] = gpuvec_random_double_from(gpuvec_random_counter(c0, c1, c2, c3),
                                           gpuvec_random_key(k0, k1), i);
  }
}
"""

MONTE_CARLO_PI = r"""
#include <gpuvec/random.h>

// Point i is (value 2i, value 2i + 1) of Generator.random(): a hit inside the quarter circle.
__global__ void hits(unsigned long long* count, unsigned long long k0, unsigned long long k1,
                     int points) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < points) {
    gpuvec_philox4x64_key key = gpuvec_random_key(k0, k1);
    double x = gpuvec_random_double(key, 2ull * i), y = gpuvec_random_double(key, 2ull * i + 1);
    if (x * x + y * y < 1.0) atomicAdd(count, 1ull);
  }
}
"""


def key_words(bits) -> tuple[np.uint64, np.uint64]:
    key = bits.state["state"]["key"]
    return np.uint64(key[0]), np.uint64(key[1])


@pytest.mark.parametrize("n", [1, 7, 2**16 + 3])
def test_kernel_draws_numpys_stream(backend, seed, n):
    bits = Philox(seed)
    k0, k1 = key_words(bits)
    doubles, floats = gpuvec.empty(n), gpuvec.empty(n, np.float32)
    words = gpuvec.empty(n, np.uint64)
    kernel = gpuvec.RawKernel(FILL, "fill")
    kernel(doubles, floats, words, k0, k1, np.int32(n), grid=(n + 255) // 256, block=256)
    # The key alone, from counter 0: what Philox(key=...) draws.
    key = int(k0) | int(k1) << 64
    assert_same(doubles, np.random.Generator(np.random.Philox(key=key)).random(n))
    assert_same(doubles, np.random.Generator(np.random.Philox(seed)).random(n))
    assert_same(floats, np.random.Generator(np.random.Philox(seed)).random(n, np.float32))
    assert_same(words, np.random.Philox(seed).random_raw(n))


def test_kernel_continues_a_generator(backend, seed):
    used, extra = 1001, 11  # the kernel's values, and the generator's after advance()
    ours = default_rng(seed)
    ours.bit_generator.advance(2**64 - 1)  # the kernel's counter carries into word 1
    ours = Generator(ours.bit_generator.jumped())
    reference = np.random.Generator(np.random.Philox())
    reference.bit_generator.state = ours.bit_generator.state
    state = ours.bit_generator.state
    counter = [np.uint64(v) for v in state["state"]["counter"]]
    assert state["buffer_pos"] == 4  # after advance() and jumped(): the kernel starts a block
    blocks = (used + 3) // 4
    n = 4 * blocks + extra
    doubles = gpuvec.empty(n)
    kernel = gpuvec.RawKernel(FILL, "fill_from")
    kernel(doubles, *counter, *key_words(ours.bit_generator), np.int32(n), grid=5, block=256)
    assert_same(doubles, reference.random(n))
    # advance() moves the generator past the blocks of the values the kernel
    # used: its next values are the stream's from the next block on.
    ours.bit_generator.advance(blocks)
    assert_same(ours.random(extra), doubles.to_host()[4 * blocks :])


def test_monte_carlo_pi_kernel_counts_numpys_hits(backend, seed):
    points = 100_003
    bits = Philox(seed)
    count = gpuvec.zeros(1, np.uint64)
    kernel = gpuvec.RawKernel(MONTE_CARLO_PI, "hits")
    kernel(count, *key_words(bits), np.int32(points), grid=(points + 255) // 256, block=256)
    u = np.random.Generator(np.random.Philox(seed)).random(2 * points)
    x, y = u[0::2], u[1::2]
    expected = int(np.count_nonzero(x * x + y * y < 1.0))
    assert int(count.to_host()[0]) == expected
    assert abs(4 * expected / points - np.pi) < 0.05


HOST_PROGRAM = r"""
#include <stdio.h>
#include <gpuvec/random.h>

int main(int argc, char** argv) {
  unsigned long long k0, k1;
  sscanf(argv[1], "%llu", &k0);
  sscanf(argv[2], "%llu", &k1);
  gpuvec_philox4x64_key key = gpuvec_random_key(k0, k1);
  gpuvec_philox4x64_counter top = gpuvec_random_counter(~0ULL, ~0ULL, ~0ULL, 7);
  for (unsigned long long i = 0; i < 9; ++i)
    printf("%llu %a %a %llu\n", gpuvec_random_uint64(key, i), gpuvec_random_double(key, i),
           (double)gpuvec_random_float(key, i), gpuvec_random_uint64_from(top, key, i));
  return 0;
}
"""


@pytest.mark.parametrize("flags", [[], ["-U__SIZEOF_INT128__"]], ids=["int128", "portable"])
def test_header_in_plain_cpp(tmp_path, seed, flags):
    compiler = shutil.which(os.environ.get("CXX", "") or "c++")
    if compiler is None:
        pytest.skip("no host C++ compiler")
    source = tmp_path / "main.cpp"
    source.write_text(HOST_PROGRAM)
    program = tmp_path / "main"
    include = gpuvec.get_include()
    subprocess.run(
        [
            compiler,
            "-std=c++17",
            "-Wall",
            "-Werror",
            *flags,
            f"-I{include}",
            str(source),
            "-o",
            str(program),
        ],
        check=True,
    )
    k0, k1 = key_words(Philox(seed))
    lines = subprocess.run(
        [str(program), str(k0), str(k1)], check=True, capture_output=True, text=True
    ).stdout.split("\n")
    key = int(k0) | int(k1) << 64
    raw = np.random.Philox(key=key).random_raw(9)
    doubles = np.random.Generator(np.random.Philox(key=key)).random(9)
    floats = np.random.Generator(np.random.Philox(key=key)).random(9, np.float32)
    top = (2**192 - 1) | 7 << 192  # the 256-bit counter wraps to 0
    from_top = np.random.Philox(key=key, counter=top).random_raw(9)
    for i in range(9):
        fields = lines[i].split()
        assert int(fields[0]) == int(raw[i])
        assert float.fromhex(fields[1]) == doubles[i]
        assert float.fromhex(fields[2]) == floats[i]
        assert int(fields[3]) == int(from_top[i])


def test_header_is_installed():
    assert os.path.isfile(os.path.join(gpuvec.get_include(), "gpuvec", "random.h"))


# --- the package ----------------------------------------------------------------------------


def test_import_gpuvec_does_not_load_the_generator(tmp_path):
    code = "import sys, gpuvec; print('gpuvec.random._generator' in sys.modules, gpuvec.random)"
    # Run elsewhere than the checkout, whose gpuvec/ would come first on the path.
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path
    )
    assert out.stdout.split()[:3] == ["False", "<module", "'gpuvec.random'"]
    assert "random" not in gpuvec.__all__  # `from gpuvec import *` keeps the standard library's
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gpuvec.random.nope  # noqa: B018


def test_seed_sequence_is_numpys():
    assert SeedSequence is np.random.SeedSequence
