"""DeviceArrays of every integer dtype: held, copied and converted as NumPy does.

Each value is compared with NumPy's on fresh random data that includes
each dtype's edge values (its minimum and maximum, -1 and 0), on both
backends. gpuvec's own ops compute on them as NumPy's do
(tests/test_integer_ops.py); users' kernels take integer arrays as they are.
"""

import pickle

import numpy as np
import pytest
from conftest import LAYOUTS
from integer_casts import numpy_cast

import gpuvec
from gpuvec._dtypes import ARRAY_DTYPES

INTEGERS = [np.dtype(t) for t in "int8 int16 int32 int64 uint8 uint16 uint32 uint64".split()]


def random_integers(rng, shape, dtype):
    """Random values over the dtype's whole range, its edge values among them."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dtype)
    if info.min < 0:
        edges = np.append(edges, np.array(-1, dtype))
    flat = x.reshape(-1)
    flat[: min(flat.size, edges.size)] = edges[: flat.size]
    return x


def random_values(rng, shape, dtype):
    """Random values of any dtype of ARRAY_DTYPES: NaN, infinities and halves among floats."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return random_integers(rng, shape, dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    x = (rng.standard_normal(shape) * 1e3).astype(dtype)
    flat = x.reshape(-1)
    specials = np.array([np.nan, np.inf, -np.inf, 0.5, -2.5, 3e9, -3e19, 2.0**63], dtype)
    flat[: min(flat.size, specials.size)] = specials[: flat.size]
    return x


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_to_device_keeps_the_dtype_and_every_value(backend, rng, dtype, layout):
    view, shape = LAYOUTS[layout]
    x = view(random_integers(rng, shape, dtype))
    d = gpuvec.to_device(x)
    assert d.dtype == dtype
    assert d.shape == x.shape
    back = d.to_host()
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, x)
    if x.ndim:
        np.testing.assert_array_equal(np.asarray(d[..., ::-1]), x[..., ::-1])


@pytest.mark.parametrize("dtype", INTEGERS)
def test_the_other_byte_order_and_read_only_data(backend, rng, dtype):
    x = random_integers(rng, 257, dtype)
    swapped = x.astype(dtype.newbyteorder())
    swapped.flags.writeable = False
    d = gpuvec.to_device(swapped)
    assert d.dtype == dtype  # device data is in the machine's byte order
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize("to", ARRAY_DTYPES)
@pytest.mark.parametrize("source", ARRAY_DTYPES)
def test_astype_converts_as_numpy_does(backend, rng, source, to):
    x = random_values(rng, (33, 65), source)
    expected = numpy_cast(x[::2, ::-3], to)
    result = gpuvec.to_device(x)[::2, ::-3].astype(to)
    assert result.dtype == to
    assert result.is_c_contiguous
    np.testing.assert_array_equal(result.to_host(), expected)


@pytest.mark.parametrize("to", ARRAY_DTYPES)
@pytest.mark.parametrize("source", [np.int8, np.uint16, np.int64, np.uint64, np.float32])
def test_to_device_with_a_dtype_converts_while_it_copies(backend, rng, source, to):
    x = random_values(rng, 1001, source)[::-2]
    expected = numpy_cast(x, to)
    d = gpuvec.to_device(x, dtype=to)
    assert d.dtype == to
    np.testing.assert_array_equal(d.to_host(), expected)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_creation_with_integer_dtypes(backend, dtype):
    info = np.iinfo(dtype)
    np.testing.assert_array_equal(gpuvec.zeros((2, 3), dtype).to_host(), np.zeros((2, 3), dtype))
    full = gpuvec.full(5, info.max, dtype)
    assert full.dtype == dtype
    np.testing.assert_array_equal(full.to_host(), np.full(5, info.max, dtype))
    np.testing.assert_array_equal(gpuvec.arange(3, 40, 7, dtype).to_host(), np.arange(3, 40, 7))
    assert gpuvec.empty(0, dtype).dtype == dtype
    assert gpuvec.zeros_like(full).dtype == dtype


def test_arange_of_integers_gives_int64_as_numpy_does(backend):
    d = gpuvec.arange(10)
    assert d.dtype == np.arange(10).dtype
    np.testing.assert_array_equal(d.to_host(), np.arange(10))
    assert gpuvec.arange(0, 1, 0.25).dtype == np.float64


@pytest.mark.parametrize("dtype", INTEGERS)
def test_ops_on_integer_arrays_compute_as_numpy(backend, rng, dtype):
    """Ints stay ints, wrapping as NumPy's do; true division and floats give floats
    (tests/test_integer_ops.py tests every op)."""
    x = random_integers(rng, 301, dtype)
    y = random_integers(rng, 301, dtype)
    d, e = gpuvec.to_device(x), gpuvec.to_device(y)
    with np.errstate(divide="ignore", invalid="ignore"):  # NumPy's, of x / 0
        true_division = (d / e, x / y)
    for result, expected in (
        (d + e, x + y), (d * e, x * y), (gpuvec.maximum(d, 2.5), np.maximum(x, 2.5)),
        (d < e, x < y), true_division,
    ):  # fmt: skip
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result.to_host(), expected)
    assert gpuvec.max(d).dtype == dtype
    assert int(gpuvec.max(d)) == int(x.max())
    assert int(gpuvec.sum(d)) == int(x.sum())  # exact, in int64 or uint64 as NumPy's


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint32, np.int64])
def test_boolean_indexing_of_integer_arrays(backend, rng, dtype):
    x = random_integers(rng, (17, 9), dtype)
    mask = rng.random((17, 9)) < 0.4
    d = gpuvec.to_device(x)
    np.testing.assert_array_equal(d[gpuvec.to_device(mask)].to_host(), x[mask])
    d[gpuvec.to_device(mask)] = 7
    x[mask] = 7
    np.testing.assert_array_equal(d.to_host(), x)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_pickle_and_dlpack_keep_the_dtype(backend, rng, dtype):
    x = random_integers(rng, (4, 5), dtype)
    d = gpuvec.to_device(x)
    again = pickle.loads(pickle.dumps(d))
    assert again.dtype == dtype
    np.testing.assert_array_equal(again.to_host(), x)
    shared = gpuvec.from_dlpack(d)
    assert shared.dtype == dtype
    np.testing.assert_array_equal(shared.to_host(), x)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_the_cuda_array_interface_names_the_dtype(backend, rng, dtype):
    if backend != "cuda":
        pytest.skip("the CUDA array interface is the cuda backend's")
    d = gpuvec.to_device(random_integers(rng, 6, dtype))
    assert d.__cuda_array_interface__["typestr"] == dtype.str
    again = gpuvec.asarray(d)
    assert again.dtype == dtype


def test_a_raw_kernel_takes_integer_arrays(backend, rng):
    histogram = gpuvec.RawKernel(
        r"""
        __global__ void histogram(const unsigned char* pixels, unsigned int* counts, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) atomicAdd(&counts[pixels[i]], 1u);
        }
        """,
        "histogram",
    )
    pixels = rng.integers(0, 256, size=10_007, dtype=np.uint8)
    counts = gpuvec.zeros(256, np.uint32)
    histogram(gpuvec.to_device(pixels), counts, np.int32(pixels.size), grid=(40,), block=(256,))
    assert counts.dtype == np.uint32
    np.testing.assert_array_equal(counts.to_host(), np.bincount(pixels, minlength=256))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
def test_elementwise_kernels_bind_placeholders_to_integers(backend, rng, dtype):
    # C's integer arithmetic, in the dtype: | and >> on values that cannot overflow.
    k = gpuvec.ElementwiseKernel("T x, T y", "T z", "z = (x | y) >> 1", "or_shift")
    info = np.iinfo(dtype)
    x = rng.integers(0, info.max // 2, size=99, dtype=dtype)
    y = rng.integers(0, info.max // 2, size=99, dtype=dtype)
    result = k(gpuvec.to_device(x), gpuvec.to_device(y))
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.to_host(), (x | y) >> 1)
