"""Users' own CUDA kernels on both backends: the classic tutorial kernels,
launch configurations, and what each launch checks."""

import concurrent.futures

import numpy as np
import pytest

import gpuvec
from gpuvec.kernels import kernel_cache
from gpuvec.kernels.classics import DOUBLIFY, TREE_SUM, VECADD, WARP_SUM

HISTOGRAM = """
__global__ void histogram(const unsigned char* values, unsigned int* counts, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counts[values[i]], 1u);
    }
}
"""

# Dynamic shared memory: each block reverses its part of the array.
REVERSE = """
__global__ void reverse_blocks(float* data)
{
    extern __shared__ float tile[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    tile[t] = data[base + t];
    __syncthreads();
    data[base + t] = tile[blockDim.x - 1 - t];
}
"""

GRID_3D = """
__global__ void coordinates(int* out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        out[(z * ny + y) * nx + x] = 10000 * z + 100 * y + x;
    }
}
"""

MATRIX_ADD = """
__global__ void matrix_add(const double* a, const double* b, double* c, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
    }
}
"""

TEMPLATE = """
template <typename T, int FACTOR>
__global__ void scale(T* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * FACTOR;
    }
}
"""


def blocks(n, per_block):
    return (n + per_block - 1) // per_block


def poisoned(shape, dtype):
    out = np.empty(shape, dtype)
    out.fill(np.nan if np.dtype(dtype).kind == "f" else -7)
    return out


def test_doublify_with_a_4x4_block(backend, rng):
    mod = gpuvec.SourceModule(DOUBLIFY)
    a = rng.standard_normal((4, 4)).astype(np.float32)
    expected = a.astype(np.float64) * 2
    mod.get_function("doublify")(a, grid=(1, 1), block=(4, 4, 1))
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("n", [1, 255, 257, 65537, 2**24 + 11])
def test_vecadd_with_its_bounds_guard(backend, rng, n):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = poisoned(n, np.float32)
    vecadd(a, b, c, n, grid=blocks(n, 256), block=256)
    np.testing.assert_array_equal(c, a + b)


def test_vecadd_numba_style_on_device_arrays(backend, rng):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    n = 4099
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    da, db = gpuvec.to_device(a), gpuvec.to_device(b)
    dc = gpuvec.full(n, np.nan, dtype=np.float32)
    vecadd[blocks(n, 128), 128](da, db, dc, np.int32(n))
    np.testing.assert_array_equal(dc.to_host(), a + b)


def test_warp_shuffle_sum_of_arange(backend):
    mod = gpuvec.SourceModule(WARP_SUM)
    values = np.arange(53735, dtype=np.int32)
    total = np.zeros(1, np.int32)
    mod.sum_kernel(values, total, values.size, grid=blocks(values.size, 256), block=256)
    assert int(total[0]) == int(values.astype(np.int64).sum()) == 1443698245


@pytest.mark.parametrize("n", [256, 1000, 65537])
def test_shared_memory_tree_reduction(backend, rng, n):
    mod = gpuvec.SourceModule(TREE_SUM)
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(blocks(n, 256), np.float32)
    mod.block_sums(x, out, n, grid=out.size, block=256)
    padded = np.zeros(out.size * 256)
    padded[:n] = x
    np.testing.assert_allclose(out, padded.reshape(-1, 256).sum(axis=1), rtol=1e-5, atol=1e-4)


def test_atomic_histogram(backend, rng):
    mod = gpuvec.SourceModule(HISTOGRAM)
    values = rng.integers(0, 256, 100_003).astype(np.uint8)
    counts = np.zeros(256, np.uint32)
    mod.histogram(values, counts, values.size, grid=blocks(values.size, 512), block=512)
    np.testing.assert_array_equal(counts, np.bincount(values, minlength=256))


def test_dynamic_shared_memory(backend, rng):
    mod = gpuvec.SourceModule(REVERSE)
    x = rng.standard_normal(64 * 5).astype(np.float32)
    expected = x.reshape(5, 64)[:, ::-1].ravel()
    mod.reverse_blocks(x, grid=5, block=64, shared_mem=64 * 4)
    np.testing.assert_array_equal(x, expected)


def test_three_dimensional_grid(backend):
    mod = gpuvec.SourceModule(GRID_3D)
    nx, ny, nz = 37, 11, 5
    out = poisoned((nz, ny, nx), np.int32)
    mod.coordinates(
        out, nx, ny, nz, grid=(blocks(nx, 8), blocks(ny, 4), blocks(nz, 2)), block=(8, 4, 2)
    )
    z, y, x = np.indices((nz, ny, nx))
    np.testing.assert_array_equal(out, 10000 * z + 100 * y + x)


def test_two_dimensional_grid_on_float64(backend, rng):
    mod = gpuvec.SourceModule(MATRIX_ADD)
    a, b = rng.standard_normal((2, 67, 131))
    c = poisoned(a.shape, np.float64)
    mod.matrix_add(a, b, c, 67, 131, grid=(blocks(131, 16), blocks(67, 16)), block=(16, 16))
    np.testing.assert_array_equal(c, a + b)


def test_templates_through_name_expressions(backend, rng):
    mod = gpuvec.SourceModule(TEMPLATE, name_expressions=["scale<float, 3>", "scale<double, 2>"])
    x32 = rng.standard_normal(1001).astype(np.float32)
    x64 = rng.standard_normal(1001)
    expected32, expected64 = x32 * np.float32(3), x64 * 2
    mod.get_function("scale<float, 3>")(x32, x32.size, grid=4, block=256)
    mod.get_function("scale<double, 2>")(x64, x64.size, grid=4, block=256)
    np.testing.assert_array_equal(x32, expected32)
    np.testing.assert_array_equal(x64, expected64)
    with pytest.raises(TypeError, match="float64"):
        mod.get_function("scale<float, 3>")(x64, x64.size, grid=4, block=256)


def test_on_a_stream(backend, rng):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    a = rng.standard_normal(10_001).astype(np.float32)
    da = gpuvec.to_device(a)
    dc = gpuvec.empty_like(da)
    stream = gpuvec.Stream()
    vecadd(da, da, dc, a.size, grid=blocks(a.size, 256), block=256, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(dc.to_host(), a + a)
    with stream:
        vecadd(da, dc, dc, a.size, grid=blocks(a.size, 256), block=256)
    stream.synchronize()
    np.testing.assert_array_equal(dc.to_host(), a + (a + a))


def test_empty_arrays_and_a_read_only_const_input(backend):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    a = np.arange(5, dtype=np.float32)
    a.flags.writeable = False
    c = poisoned(5, np.float32)
    vecadd(a, a, c, 5, grid=1, block=32)
    np.testing.assert_array_equal(c, 2 * a)
    empty = np.empty(0, np.float32)
    vecadd(empty, empty, empty, 0, grid=1, block=32)


# --- the launch configuration, checked as CUDA does -----------------------------------------


@pytest.mark.parametrize(
    ("grid", "block", "shared_mem"),
    [
        (1, 2048, 0),  # the classic tutorial error
        (1, (32, 32, 2), 0),
        (1, (1, 1, 65), 0),
        (0, 32, 0),
        ((1, 0), 32, 0),
        ((1, 65536), 32, 0),
        (1, 32, 64 * 1024),
    ],
)
def test_invalid_configuration_fails_alike_on_both_backends(backend, grid, block, shared_mem):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    a = np.ones(4, np.float32)
    with pytest.raises(gpuvec.CudaError, match="invalid configuration") as info:
        vecadd(a, a, a, 4, grid=grid, block=block, shared_mem=shared_mem)
    assert info.value.name == "cudaErrorInvalidConfiguration"
    # Nothing ran, and the next launch works.
    vecadd(a, a, a, 4, grid=1, block=4)
    np.testing.assert_array_equal(a, 2 * np.ones(4))


@pytest.mark.parametrize(
    ("grid", "error"),
    [((1, 2, 3, 4), ValueError), (-1, ValueError), (1.5, TypeError), ("2", TypeError)],
)
def test_bad_grid_values(backend, grid, error):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    a = np.ones(4, np.float32)
    with pytest.raises(error, match="grid"):
        vecadd(a, a, a, 4, grid=grid, block=4)


# --- arguments, checked against the kernel's signature --------------------------------------


def test_argument_errors_name_the_parameter(backend):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    f32 = np.ones(8, np.float32)
    with pytest.raises(TypeError, match=r"vecadd\(const float\* a.*takes 4 arguments, 3 were"):
        vecadd(f32, f32, f32, grid=1, block=8)
    with pytest.raises(TypeError, match=r"'b'.*float32.*float64"):
        vecadd(f32, np.ones(8), f32, 8, grid=1, block=8)
    with pytest.raises(ValueError, match=r"'c'.*non-contiguous"):
        vecadd(f32, f32, np.ones(16, np.float32)[::2], 8, grid=1, block=8)
    with pytest.raises(TypeError, match=r"'n'.*float"):
        vecadd(f32, f32, f32, 8.0, grid=1, block=8)
    with pytest.raises(TypeError, match=r"'n'.*does not fit|does not fit.*'n'"):
        vecadd(f32, f32, f32, 2**31, grid=1, block=8)
    with pytest.raises(TypeError, match=r"'a'.*takes an array"):
        vecadd([1.0] * 8, f32, f32, 8, grid=1, block=8)
    read_only = np.ones(8, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match=r"'c'.*read-only"):
        vecadd(f32, f32, read_only, 8, grid=1, block=8)
    with pytest.raises(TypeError, match=r"'n'.*takes a number|'n'.*integer"):
        vecadd(f32, f32, f32, "8", grid=1, block=8)


def test_unsigned_and_64_bit_values(backend):
    mod = gpuvec.SourceModule(HISTOGRAM)
    values = np.array([3, 3, 255], np.uint8)
    counts = np.zeros(256, np.uint32)
    with pytest.raises(TypeError, match=r"'counts'.*uint32.*int32"):
        mod.histogram(values, counts.astype(np.int32), 3, grid=1, block=32)
    mod.histogram(values, counts, np.int64(3), grid=1, block=32)
    assert (counts[3], counts[255], counts.sum()) == (2, 1, 3)


def test_unknown_kernel_names(backend):
    mod = gpuvec.SourceModule(DOUBLIFY)
    with pytest.raises(ValueError, match=r"no kernel named 'triple'.*doublify"):
        mod.get_function("triple")
    with pytest.raises(AttributeError, match="triple"):
        mod.triple  # noqa: B018
    with pytest.raises(ValueError, match="no __global__ function named 'shift'"):
        gpuvec.SourceModule(TEMPLATE, name_expressions=["shift<float, 2>"])


# --- compile errors ------------------------------------------------------------------------


def test_compile_error_names_the_users_line(backend):
    source = "__global__ void broken(float* a)\n{\n    a[0] = undefined_name;\n}\n"
    with pytest.raises(gpuvec.CompileError) as info:
        gpuvec.SourceModule(source, name="cell_7.cu")
    message = str(info.value)
    assert "cell_7.cu, line 3" in message
    assert "undefined_name" in message
    assert "a[0] = undefined_name;" in message  # the line itself, with a caret below
    assert "^" in message
    assert len(message.splitlines()) <= 6  # no compiler noise
    assert "undefined_name" in info.value.log
    assert info.value.source_name == "cell_7.cu"


# --- checked mode --------------------------------------------------------------------------

OFF_BY_ONE = """
__global__ void fill(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {  // the bug: i == n is one past the end
        out[i] = 1.0f;
    }
}
"""


def test_checked_mode_finds_an_off_by_one_without_corrupting_memory(backend):
    mod = gpuvec.SourceModule(OFF_BY_ONE)
    buffer = np.zeros(20, np.float32)
    out = buffer[:16]  # the next four floats must stay untouched
    with pytest.raises(IndexError) as info:
        mod.fill(out, 16, grid=5, block=4, check=True)
    message = str(info.value)
    assert "index 16 is out of bounds for parameter 'out' of length 16" in message
    assert "(thread (0, 0, 0) of block (4, 0, 0))" in message
    np.testing.assert_array_equal(buffer[16:], 0)


def test_checked_mode_from_the_environment(backend, monkeypatch):
    mod = gpuvec.SourceModule(OFF_BY_ONE)
    out = np.zeros(8, np.float32)
    monkeypatch.setenv("GPUVEC_KERNEL_CHECK", "1")
    with pytest.raises(IndexError, match="'out'"):
        mod.fill(out, 8, grid=3, block=4)
    mod.fill(out, 7, grid=2, block=4)  # a correct launch passes in checked mode
    np.testing.assert_array_equal(out, 1)


def test_checked_mode_on_device_arrays_writes_back(backend):
    mod = gpuvec.SourceModule(OFF_BY_ONE)
    out = gpuvec.zeros(9, dtype=np.float32)
    mod.fill(out, 8, grid=3, block=3, check=True)
    np.testing.assert_array_equal(out.to_host(), 1)


def test_attributes(backend):
    kernel = gpuvec.RawKernel(VECADD, "vecadd")
    attributes = kernel.attributes
    assert attributes["max_threads_per_block"] >= 1
    if backend == "cuda":
        assert attributes["num_regs"] > 0


def test_both_backends_give_the_same_bits(rng):
    if not gpuvec.is_available():
        pytest.skip("needs a GPU: compares the GPU with the host emulation")
    # Correctly rounded operations only (+, *, /, sqrtf; no a*b + c contracted
    # into an FMA on either backend) give the same bits; expf is within 2 ulp.
    source = """
    __global__ void mix(const float* x, float* exact, float* e, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            exact[i] = sqrtf(fabsf(x[i])) * 3.0f + x[i] * x[i] / (1.0f + x[i] * x[i]) - x[i];
            e[i] = expf(x[i]);
        }
    }
    """
    x = rng.standard_normal(100_003).astype(np.float32)
    results = {}
    previous = gpuvec.backend()
    try:
        for name in ("cuda", "host"):
            gpuvec.set_backend(name)
            exact, e = poisoned(x.size, np.float32), poisoned(x.size, np.float32)
            mod = gpuvec.SourceModule(source)
            mod.mix(x, exact, e, x.size, grid=blocks(x.size, 256), block=256)
            results[name] = exact, e
    finally:
        gpuvec.set_backend(previous)
    np.testing.assert_array_equal(results["cuda"][0], results["host"][0])
    np.testing.assert_array_max_ulp(results["cuda"][1], results["host"][1], maxulp=2)


# --- the cache, the magic, other libraries' arrays -------------------------------------------


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A fresh kernel cache folder for one test."""
    folder = tmp_path / "kernels"
    monkeypatch.setenv("GPUVEC_CACHE_DIR", str(folder))
    return folder


def test_a_second_compile_comes_from_the_cache(backend, private_cache):
    source = DOUBLIFY + "\n// cache test\n"
    gpuvec.SourceModule(source)
    before = kernel_cache().stats()
    mod = gpuvec.SourceModule(source)
    after = kernel_cache().stats()
    assert after.hits == before.hits + 1
    assert after.entries == before.entries >= 1
    a = np.ones((4, 4), np.float32)
    mod.doublify(a, grid=1, block=(4, 4))
    np.testing.assert_array_equal(a, 2)


def test_a_tampered_cache_entry_is_never_loaded(backend, private_cache):
    source = DOUBLIFY + "\n// tamper test\n"
    gpuvec.SourceModule(source)
    payloads = [p for p in private_cache.iterdir() if p.suffix in (".so", ".bin")]
    assert payloads
    for payload in payloads:
        payload.write_bytes(b"planted: not what was compiled")
    before = kernel_cache().stats()
    mod = gpuvec.SourceModule(source)  # recompiled, not loaded
    assert kernel_cache().stats().misses > before.misses
    a = np.ones((4, 4), np.float32)
    mod.doublify(a, grid=1, block=(4, 4))
    np.testing.assert_array_equal(a, 2)


def test_a_cache_folder_others_may_write_is_refused(backend, private_cache):
    private_cache.mkdir(mode=0o777)
    private_cache.chmod(0o777)
    with pytest.raises(PermissionError, match=str(private_cache)):
        gpuvec.SourceModule(DOUBLIFY + "\n// refused\n")


def test_the_kernel_magic_binds_each_kernel(backend, capsys):
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    from IPython.core.error import UsageError

    shell = interactiveshell.InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gpuvec")
    try:
        line = "-e 'scale<float, 3>' -DUNUSED=1"  # -D...: a compiler option, not the magic's
        shell.run_cell_magic("gpuvec_kernel", line, DOUBLIFY + TEMPLATE)
        assert isinstance(shell.user_ns["doublify"], gpuvec.Kernel)
        assert isinstance(shell.user_ns["scale_float_3"], gpuvec.Kernel)
        assert "doublify, scale_float_3" in capsys.readouterr().out
        # Line 3 of the cell as shown: the %%gpuvec_kernel line is line 1.
        with pytest.raises(UsageError, match="line 3"):
            shell.run_cell_magic("gpuvec_kernel", "", "__global__ void k(float* a)\n{ a[0] = y; }")
        info = repr(shell.run_line_magic("gpuvec_info", ""))
        assert "kernel cache use" in info
    finally:
        shell.reset()


def test_other_libraries_gpu_arrays_zero_copy(backend, rng):
    if backend != "cuda":
        pytest.skip("GPU arrays of other libraries need the cuda backend")
    cupy = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    a = rng.standard_normal(1000).astype(np.float32)
    ca, tc = cupy.asarray(a), torch.full((1000,), float("nan"), device="cuda")
    vecadd(ca, ca, tc, 1000, grid=4, block=256)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(tc.cpu().numpy(), a + a)
    with pytest.raises(TypeError, match=r"'b'.*float32.*float64"):
        vecadd(ca, cupy.ones(1000), tc, 1000, grid=4, block=256)
    with pytest.raises(ValueError, match=r"'c'.*non-contiguous"):
        vecadd(ca, ca, cupy.ones(2000, cupy.float32)[::2], 1000, grid=4, block=256)


def test_numba_style_configurations(backend):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    assert vecadd[2, 32] is vecadd[2, 32]  # reused, launch after launch
    a = np.arange(40, dtype=np.float32)
    c = poisoned(40, np.float32)
    vecadd[[2], [32]](a, a, c, 40)  # lists work too
    np.testing.assert_array_equal(c, 2 * a)
    with pytest.raises(TypeError, match="launch configuration"):
        vecadd[2](a, a, c, 40)


def test_threads_launching_one_kernel_keep_their_own_arguments(backend, rng):
    vecadd = gpuvec.RawKernel(VECADD, "vecadd")
    inputs = [rng.standard_normal(4099).astype(np.float32) for _ in range(4)]

    def work(x):
        for _ in range(25):
            out = poisoned(x.size, np.float32)
            vecadd(x, x, out, x.size, grid=blocks(x.size, 128), block=128)
            np.testing.assert_array_equal(out, x + x)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for future in [pool.submit(work, x) for x in inputs]:
            future.result()


def test_a_kernel_may_include_gpuvecs_headers(backend, rng):
    # One source for both compilers: gpuvec's headers are on NVRTC's include
    # path as on the host compiler's, so a kernel may call the ops' functors.
    kernel = gpuvec.RawKernel(
        """
        #include <gpuvec/ops.hpp>
        extern "C" __global__ void exp_all(const double* x, double* y, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = gpuvec::ops::Exp{}(x[i]);
        }""",
        "exp_all",
    )
    x = rng.standard_normal(1001)
    y = np.full_like(x, np.nan)  # poisoned: every element must be written
    kernel(x, y, np.int32(x.size), grid=(x.size + 127) // 128, block=128)
    np.testing.assert_allclose(y, np.exp(x), rtol=4 * np.finfo(np.float64).eps)
