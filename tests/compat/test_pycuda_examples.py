"""Programs in the style of PyCUDA's examples and wiki, run through gpuvec.compat.pycuda.

SAXPY, prepared calls, events and streams, 2-D blocks, shared memory, GPUArray
functions and cumath, each on both backends and against NumPy on fresh random
data; and the compatibility modules' own docstring examples.
"""

import doctest
import importlib
import warnings

import numpy as np
import pytest
from conftest import random_array

import gpuvec.compat.pycuda.cumath as cumath
import gpuvec.compat.pycuda.driver as drv
import gpuvec.compat.pycuda.gpuarray as gpuarray
from gpuvec.compat.pycuda.compiler import SourceModule
from gpuvec.compat.pycuda.tools import dtype_to_ctype

SAXPY = """
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

MATRIX_ADD = """
__global__ void matrix_add(const double *a, const double *b, double *c, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}
"""

BLOCK_SUMS = """
#define BLOCK_SIZE 128
__global__ void block_sums(const float *in, float *out, int n)
{
    __shared__ float partial[BLOCK_SIZE];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
"""

TRANSPOSE = """
#define TILE 16
__global__ void transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
"""

REVERSE_BLOCKS = """
__global__ void reverse_blocks(double *data)
{
    extern __shared__ double buffer[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    buffer[t] = data[base + t];
    __syncthreads();
    data[base + t] = buffer[blockDim.x - 1 - t];
}
"""


def blocks_for(n, block):
    return (n + block - 1) // block


def test_saxpy(backend, rng):
    n = 10_007
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    a = np.float32(rng.standard_normal())
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    saxpy = SourceModule(SAXPY).get_function("saxpy")
    saxpy(np.int32(n), a, x_gpu, y_gpu, block=(256, 1, 1), grid=(blocks_for(n, 256), 1))
    np.testing.assert_array_equal(y_gpu.get(), a * x + y)


def test_saxpy_prepared(backend, rng):
    n = 3001
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    a = np.float32(rng.standard_normal())
    x_gpu, y_gpu = drv.to_device(x), drv.to_device(y)
    saxpy = SourceModule(SAXPY).get_function("saxpy")
    saxpy.prepare([np.int32, np.float32, np.intp, np.intp])
    saxpy.prepared_call((blocks_for(n, 128), 1), (128, 1, 1), n, a, x_gpu, y_gpu)
    np.testing.assert_array_equal(drv.from_device(y_gpu, n, np.float32), a * x + y)


def test_prepared_async_call_on_a_stream(backend, rng):
    n = 5000
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    a = np.float32(rng.standard_normal())
    stream = drv.Stream()
    x_gpu, y_gpu = drv.mem_alloc(x.nbytes), drv.mem_alloc(y.nbytes)
    drv.memcpy_htod_async(x_gpu, x, stream)
    drv.memcpy_htod_async(y_gpu, y, stream)
    saxpy = SourceModule(SAXPY).get_function("saxpy").prepare("ifPP")
    saxpy.prepared_async_call((blocks_for(n, 256), 1), (256, 1, 1), stream, n, a, x_gpu, y_gpu)
    result = drv.pagelocked_empty(n, np.float32)
    drv.memcpy_dtoh_async(result, y_gpu, stream)
    stream.synchronize()
    assert stream.is_done()
    np.testing.assert_array_equal(result, a * x + y)


def test_prepared_timed_call(backend, rng):
    n = 2048
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    saxpy = SourceModule(SAXPY).get_function("saxpy").prepare("ifPP")
    seconds = saxpy.prepared_timed_call((8, 1), (256, 1, 1), n, 2.0, x_gpu.gpudata, y_gpu.gpudata)
    assert seconds() >= 0
    np.testing.assert_array_equal(y_gpu.get(), np.float32(2) * x + y)


def test_events_time_a_kernel(backend, rng):
    n = 1 << 14
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    saxpy = SourceModule(SAXPY).get_function("saxpy")
    start, end = drv.Event(), drv.Event()
    start.record()
    saxpy(np.int32(n), np.float32(3), x_gpu, y_gpu, block=(256, 1, 1), grid=(n // 256, 1))
    end.record()
    end.synchronize()
    assert start.time_till(end) >= 0
    assert end.time_since(start) == pytest.approx(start.time_till(end))
    assert end.query()
    np.testing.assert_array_equal(y_gpu.get(), np.float32(3) * x + y)


def test_time_kernel(backend, rng):
    n = 4096
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    out = y.copy()
    saxpy = SourceModule(SAXPY).get_function("saxpy")
    seconds = saxpy(
        np.int32(n),
        np.float32(-1.5),
        drv.In(x),
        drv.InOut(out),
        block=(128, 1, 1),
        grid=(n // 128, 1),
        time_kernel=True,
    )
    assert isinstance(seconds, float)
    assert seconds >= 0
    np.testing.assert_array_equal(out, np.float32(-1.5) * x + y)


def test_streams_each_take_a_half(backend, rng):
    n = 6000
    x, y = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    saxpy = SourceModule(SAXPY).get_function("saxpy")
    halves = [slice(0, n // 2), slice(n // 2, n)]
    streams = [drv.Stream(), drv.Stream()]
    outputs = []
    for half, stream in zip(halves, streams, strict=True):
        x_gpu = gpuarray.to_gpu_async(x[half], stream=stream)
        y_gpu = gpuarray.to_gpu_async(y[half], stream=stream)
        m = x[half].size
        saxpy(
            np.int32(m),
            np.float32(0.25),
            x_gpu,
            y_gpu,
            block=(64, 1, 1),
            grid=(blocks_for(m, 64), 1),
            stream=stream,
        )
        outputs.append(y_gpu)
    for stream in streams:
        stream.synchronize()
    result = np.concatenate([o.get() for o in outputs])
    np.testing.assert_array_equal(result, np.float32(0.25) * x + y)


def test_stream_waits_for_an_event(backend, rng):
    a = random_array(rng, 256, np.float32)
    a_gpu = gpuarray.to_gpu(a)
    first, second = drv.Stream(), drv.Stream()
    with first:
        b_gpu = a_gpu * 3
    done = drv.Event().record(first)
    second.wait_for_event(done)
    with second:
        c_gpu = b_gpu + 1
    second.synchronize()
    np.testing.assert_array_equal(c_gpu.get(), a * np.float32(3) + np.float32(1))


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (17, 33), (64, 5)])
def test_two_dimensional_blocks(backend, rng, rows, cols):
    a, b = random_array(rng, (rows, cols), np.float64), random_array(rng, (rows, cols), np.float64)
    c = np.empty_like(a)
    matrix_add = SourceModule(MATRIX_ADD).get_function("matrix_add")
    block = (16, 8, 1)
    grid = (blocks_for(cols, 16), blocks_for(rows, 8))
    matrix_add(
        drv.In(a), drv.In(b), drv.Out(c), np.int32(rows), np.int32(cols), block=block, grid=grid
    )
    np.testing.assert_array_equal(c, a + b)


def test_shared_memory_reduction(backend, rng):
    n = 10_000
    block = 128
    values = random_array(rng, n, np.float32)
    blocks = blocks_for(n, block)
    values_gpu = gpuarray.to_gpu(values)
    partial_gpu = gpuarray.empty(blocks, np.float32)
    SourceModule(BLOCK_SUMS).get_function("block_sums")(
        values_gpu, partial_gpu, np.int32(n), block=(block, 1, 1), grid=(blocks, 1)
    )
    padded = np.zeros(blocks * block, np.float64)
    padded[:n] = values
    expected = padded.reshape(blocks, block).sum(axis=1)
    scale = np.abs(padded).reshape(blocks, block).sum(axis=1)
    np.testing.assert_array_less(np.abs(partial_gpu.get() - expected), 1e-6 * scale + 1e-30)
    total = gpuarray.sum(partial_gpu).get()
    assert abs(float(total) - values.astype(np.float64).sum()) <= 1e-5 * np.abs(values).sum()


@pytest.mark.parametrize(("rows", "cols"), [(16, 16), (37, 50)])
def test_tiled_transpose(backend, rng, rows, cols):
    a = random_array(rng, (rows, cols), np.float32)
    a_gpu = gpuarray.to_gpu(a)
    out_gpu = gpuarray.empty((cols, rows), np.float32)
    transpose = SourceModule(TRANSPOSE).get_function("transpose")
    transpose(
        out_gpu,
        a_gpu,
        np.int32(rows),
        np.int32(cols),
        block=(16, 16, 1),
        grid=(blocks_for(cols, 16), blocks_for(rows, 16)),
    )
    np.testing.assert_array_equal(out_gpu.get(), a.T)


def test_dynamic_shared_memory(backend, rng):
    block, blocks = 64, 5
    data = random_array(rng, block * blocks, np.float64)
    expected = data.reshape(blocks, block)[:, ::-1].ravel()
    reverse = SourceModule(REVERSE_BLOCKS).get_function("reverse_blocks")
    reverse(drv.InOut(data), block=(block, 1, 1), grid=(blocks, 1), shared=block * 8)
    np.testing.assert_array_equal(data, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpuarray_reductions(backend, rng, dtype):
    a, b = random_array(rng, 1001, dtype), random_array(rng, 1001, dtype)
    a_gpu, b_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    wide = a.astype(np.float64)
    tol = (1e-5 if dtype == np.float32 else 1e-12) * np.abs(wide).sum()
    assert abs(float(gpuarray.sum(a_gpu).get()) - wide.sum()) <= tol
    dot_tol = (1e-5 if dtype == np.float32 else 1e-12) * np.abs(wide * b).sum()
    assert abs(float(gpuarray.dot(a_gpu, b_gpu).get()) - wide @ b) <= dot_tol
    assert gpuarray.max(a_gpu).get() == a.max()
    assert gpuarray.min(a_gpu).get() == a.min()
    np.testing.assert_array_equal(gpuarray.maximum(a_gpu, b_gpu).get(), np.maximum(a, b))
    np.testing.assert_array_equal(gpuarray.minimum(a_gpu, b_gpu).get(), np.minimum(a, b))


@pytest.mark.parametrize(
    ("name", "reference", "domain"),
    [
        ("exp", np.exp, lambda x: x / 10),
        ("log", np.log, lambda x: np.abs(x) + 1),
        ("sqrt", np.sqrt, np.abs),
        ("sin", np.sin, lambda x: x),
        ("cos", np.cos, lambda x: x),
        ("tanh", np.tanh, lambda x: x),
        ("fabs", np.abs, lambda x: x),
        ("floor", np.floor, lambda x: x),
        ("asin", np.arcsin, np.sin),
    ],
)
def test_cumath(backend, rng, name, reference, domain):
    x = domain(random_array(rng, 500, np.float64))
    result = getattr(cumath, name)(gpuarray.to_gpu(x)).get()
    np.testing.assert_allclose(result, reference(x), rtol=1e-13, atol=1e-15)


def test_gpuarray_creation_and_copies(backend, rng):
    a = random_array(rng, (6, 5), np.float32)
    a_gpu = gpuarray.to_gpu(a)
    np.testing.assert_array_equal(gpuarray.zeros_like(a_gpu).get(), np.zeros_like(a))
    assert gpuarray.empty_like(a_gpu).shape == a.shape
    assert gpuarray.zeros((2, 3), np.float64).get().sum() == 0
    copy = a_gpu.copy()
    copy.fill(np.float32(7))
    np.testing.assert_array_equal(copy.get(), np.full_like(a, 7))
    np.testing.assert_array_equal(a_gpu.get(), a)  # the copy is apart
    np.testing.assert_array_equal(a_gpu.astype(np.float64).get(), a.astype(np.float64))
    np.testing.assert_array_equal(a_gpu[1:4, ::2].get(), a[1:4, ::2])
    np.testing.assert_array_equal(a_gpu.reshape(30).get(), a.reshape(30))
    b = random_array(rng, (6, 5), np.float32)
    a_gpu.set(b)
    host = np.empty_like(b)
    assert a_gpu.get(host) is host
    np.testing.assert_array_equal(host, b)
    step = np.float32(0.5)
    np.testing.assert_array_equal(
        gpuarray.arange(0, 10, step, dtype=np.float32).get(),
        np.arange(0, 10, step, dtype=np.float32),
    )


def test_gpuarray_over_mem_alloc(backend, rng):
    a = random_array(rng, (8, 8), np.float64)
    memory = drv.mem_alloc(a.nbytes)
    view = gpuarray.GPUArray(a.shape, a.dtype, gpudata=memory)
    view.set(a)
    check = np.empty_like(a)
    drv.memcpy_dtoh(check, memory)
    np.testing.assert_array_equal(check, a)
    np.testing.assert_array_equal((view * 2).get(), a * 2)


def test_memcpy_dtod_and_offsets(backend, rng):
    a = random_array(rng, 100, np.float32)
    src = drv.to_device(a)
    dest = drv.mem_alloc(a.nbytes)
    drv.memcpy_dtod(dest, src, a.nbytes)
    np.testing.assert_array_equal(drv.from_device(dest, 100, np.float32), a)
    # int(allocation) + offset points into it, as in PyCUDA
    tail = np.empty(40, np.float32)
    drv.memcpy_dtoh(tail, int(dest) + 60 * 4)
    np.testing.assert_array_equal(tail, a[60:])
    with pytest.raises(ValueError, match="fit"):
        drv.memcpy_dtoh(np.empty(41, np.float32), int(dest) + 60 * 4)


def test_template_kernel_and_dtype_to_ctype(backend, rng):
    mod = SourceModule(
        """
        template <typename T>
        __global__ void scale(T *x, T factor, int n)
        {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] *= factor;
        }""",
        no_extern_c=True,
    )
    for dtype in (np.float32, np.float64):
        x = random_array(rng, 300, dtype)
        expected = x * dtype(3)
        scale = mod.get_function(f"scale<{dtype_to_ctype(dtype)}>")
        scale(drv.InOut(x), dtype(3), np.int32(300), block=(128, 1, 1), grid=(3, 1))
        np.testing.assert_array_equal(x, expected)


def test_options_define_macros(backend, rng):
    source = """
    extern "C" __global__ void add_offset(float *x)
    {
        x[threadIdx.x] += OFFSET;
    }"""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # -O3 and -use_fast_math are dropped without a word
        mod = SourceModule(source, options=["-DOFFSET=2.5f", "-O3", "-use_fast_math"])
    x = random_array(rng, 32, np.float32)
    expected = x + np.float32(2.5)
    mod.get_function("add_offset")(drv.InOut(x), block=(32, 1, 1))
    np.testing.assert_array_equal(x, expected)
    with pytest.warns(UserWarning, match="--relocatable-device-code"):
        SourceModule(source, options=["-DOFFSET=1", "--relocatable-device-code=true"])


def test_gather_with_an_int_index_array(backend, rng):
    # An index array of int32: any dtype reaches a kernel through drv.In.
    mod = SourceModule("""
    __global__ void gather(float *out, const float *values, const int *index, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = values[index[i]];
    }""")
    values = random_array(rng, 500, np.float32)
    index = rng.integers(0, 500, 777).astype(np.int32)
    out = np.empty(777, np.float32)
    mod.get_function("gather")(
        drv.Out(out), drv.In(values), drv.In(index), np.int32(777), block=(256, 1, 1), grid=(4, 1)
    )
    np.testing.assert_array_equal(out, values[index])


def test_matrix_vector_product(backend, rng):
    mod = SourceModule("""
    __global__ void matvec(const double *m, const double *v, double *out, int rows, int cols)
    {
        int row = blockIdx.x * blockDim.x + threadIdx.x;
        if (row >= rows) return;
        double sum = 0.0;
        for (int j = 0; j < cols; ++j) sum += m[row * cols + j] * v[j];
        out[row] = sum;
    }""")
    m, v = random_array(rng, (70, 45), np.float64), random_array(rng, 45, np.float64)
    m_gpu, v_gpu = gpuarray.to_gpu(m), gpuarray.to_gpu(v)
    out_gpu = gpuarray.empty(70, np.float64)
    mod.get_function("matvec")(
        m_gpu, v_gpu, out_gpu, np.int32(70), np.int32(45), block=(32, 1, 1), grid=(3, 1)
    )
    expected = m @ v
    bound = 1e-13 * (np.abs(m) @ np.abs(v))
    np.testing.assert_array_less(np.abs(out_gpu.get() - expected), bound + 1e-300)


def test_unknown_kernel_name_lists_the_kernels(backend):
    mod = SourceModule(SAXPY)
    with pytest.raises(ValueError, match="saxpy"):
        mod.get_function("sapxy")


MODULES = [
    "gpuvec.compat.pycuda",
    "gpuvec.compat.pycuda._arguments",
    "gpuvec.compat.pycuda._dtype",
    "gpuvec.compat.pycuda._memory",
    "gpuvec.compat.pycuda._runtime",
    "gpuvec.compat.pycuda.autoinit",
    "gpuvec.compat.pycuda.compiler",
    "gpuvec.compat.pycuda.cumath",
    "gpuvec.compat.pycuda.driver",
    "gpuvec.compat.pycuda.gpuarray",
    "gpuvec.compat.pycuda.tools",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(backend, name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
