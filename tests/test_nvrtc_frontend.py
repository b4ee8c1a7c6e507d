"""NVRTC's front end on the host backend: what a GPU rejects is rejected without one too.

The rejections run on both backends: on a GPU NVRTC itself compiles the
kernel, on the host backend NVRTC's check runs before the host compile, and
both raise CompileError at the same line of the user's source. The bad line
sits at a line number drawn for each test, after a random number of comment
lines. Tests that need NVRTC skip where it cannot be loaded (it needs no
GPU: the nvidia-cuda-nvrtc wheel, in gpuvec's test extra).
"""

import warnings

import numpy as np
import pytest
from conftest import random_array

import gpuvec
from gpuvec import CompileError, HostFallbackWarning
from gpuvec.kernels import _frontend, kernel_cache


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty kernel cache, and no check remembered from earlier in the process."""
    folder = tmp_path / "kernels"
    monkeypatch.setenv("GPUVEC_CACHE_DIR", str(folder))
    monkeypatch.delenv("GPUVEC_NVRTC_CHECK", raising=False)
    monkeypatch.delenv("GPUVEC_ARCH", raising=False)
    monkeypatch.setattr(_frontend, "_passed", set())
    return folder


@pytest.fixture
def nvrtc(fresh_cache):
    """NVRTC, loaded for the check; skips where there is none."""
    library = _frontend.library()
    if library is None:
        pytest.skip("needs NVRTC: python3 -m pip install nvidia-cuda-nvrtc cuda-pathfinder")
    return library


@pytest.fixture
def host():
    previous = gpuvec.set_backend("host")
    yield
    gpuvec.set_backend(previous)


def padded(rng, body: str) -> tuple[str, int]:
    """`body` after a random number of comment lines, and the line its `@` line lands on.

    The `@` marks the line the error is on; it is removed.
    """
    padding = int(rng.integers(0, 12))
    lines = [f"// line {k + 1}" for k in range(padding)] + body.strip("\n").split("\n")
    marked = next(k for k, line in enumerate(lines) if "@" in line)
    lines[marked] = lines[marked].replace("@", "")
    return "\n".join(lines) + "\n", marked + 1


# What a host C++ compiler accepts against the emulation header and a GPU
# does not; `@` marks the line NVRTC names.
REJECTED = {
    "rand": (
        """
__global__ void noise(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = rand() / 2147483647.0f;@
}""",
        "rand",
    ),
    "host function": (
        """
__host__ float twice(float x) { return 2 * x; }@
__global__ void noise(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = twice(a[i]);
}""",
        "__host__",
    ),
    "missing __device__": (
        """
float twice(float x) { return 2 * x; }@
__global__ void noise(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = twice(a[i]);
}""",
        "execution space",
    ),
    "std::vector": (
        """
#include <vector>@
__global__ void noise(float* a, int n) {
    std::vector<float> v(4);
    a[0] = v[0];
}""",
        "vector",
    ),
    "throw": (
        """
__global__ void noise(float* a, int n) {
    if (n < 0) throw n;@
    a[0] = n;
}""",
        "exception",
    ),
}


@pytest.mark.parametrize("what", sorted(REJECTED))
def test_what_a_gpu_rejects_raises_compile_error_at_its_line(backend, nvrtc, rng, what):
    body, words = REJECTED[what]
    source, line = padded(rng, body)
    with pytest.raises(CompileError) as info:
        gpuvec.SourceModule(source, name="cell_4.cu")
    message = str(info.value)
    assert message.startswith(f"cell_4.cu, line {line}: ")
    assert words in message.splitlines()[0]
    assert source.splitlines()[line - 1].strip() in message  # the line itself is shown
    assert info.value.source_name == "cell_4.cu"
    assert "cell_4.cu(" in info.value.log  # NVRTC's own log
    if backend == "host":
        assert "NVRTC's check for a GPU of compute capability 7.5" in message


def test_the_raw_kernel_names_the_line_too(host, nvrtc, rng):
    source, line = padded(rng, REJECTED["rand"][0])
    with pytest.raises(CompileError, match=rf"^kernel\.cu, line {line}: .*rand"):
        gpuvec.RawKernel(source, "noise")


VALID = """
template <typename T>
__device__ T twice(T x) { return x + x; }

__global__ void scaled_sums(const float* a, float* out, int n) {
    __shared__ float tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? a[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int k = 0; k < blockDim.x; ++k) sum += tile[k];
        out[blockIdx.x] = twice(sum);
    }
    assert(n > 0);
}
"""


def test_a_valid_kernel_passes_once_and_runs(host, nvrtc, fresh_cache, rng, monkeypatch):
    n = int(rng.integers(200, 1000))
    a = random_array(rng, n, np.float32)
    blocks = (n + 127) // 128
    out = np.zeros(blocks, np.float32)
    source = VALID + f"// {rng.integers(1 << 62)}\n"
    gpuvec.SourceModule(source).scaled_sums(a, out, n, grid=blocks, block=128)
    padded_a = np.zeros(blocks * 128, np.float32)
    padded_a[:n] = a
    expected = 2 * padded_a.reshape(blocks, 128).sum(axis=1, dtype=np.float64)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    assert list(fresh_cache.glob("*.ok")), "the passed check was not cached"

    # Passed once, never checked again: in this process, nor in the next one.
    monkeypatch.setattr(
        _frontend._Nvrtc, "compile", lambda *args: pytest.fail("checked a second time")
    )
    gpuvec.SourceModule(source)
    monkeypatch.setattr(_frontend, "_passed", set())  # as a new process would start
    hits = kernel_cache().stats().hits
    gpuvec.SourceModule(source)
    assert kernel_cache().stats().hits == hits + 2  # the check's entry and the library's


def test_the_check_runs_on_the_source_nvrtc_compiles(host, nvrtc, rng):
    # gpuvec's headers are on NVRTC's include path, as on a GPU; the emulation's
    # GPUVEC_EMULATION macro is not defined for NVRTC, as on a GPU.
    source, line = padded(
        rng,
        """
#include <gpuvec/ops.hpp>
__global__ void k(float* a) {
#ifdef GPUVEC_EMULATION
    a[0] = 1;
#else
    a[0] = undefined_on_the_gpu;@
#endif
}""",
    )
    with pytest.raises(CompileError, match=rf"line {line}: .*undefined_on_the_gpu"):
        gpuvec.SourceModule(source)


def test_elementwise_kernel_operation_and_preamble_are_checked(host, nvrtc, rng):
    x = random_array(rng, int(rng.integers(5, 500)), np.float32)
    bad = gpuvec.ElementwiseKernel("float32 x", "float32 y", "y = x * rand()", "noisy")
    with pytest.raises(CompileError, match=r"^noisy\.cu, line 1: .*rand") as info:
        bad(x)
    assert "y = x * rand()" in str(info.value)
    helper = gpuvec.ElementwiseKernel(
        "float32 x",
        "float32 y",
        "y = twice(x)",
        "helper",
        preamble="float twice(float v) {\n  return v + v;\n}",
    )
    with pytest.raises(CompileError, match=r"helper\.cu:preamble, line 1: .*execution space"):
        helper(x)
    good = gpuvec.ElementwiseKernel(
        "float32 x",
        "float32 y",
        "y = twice(x)",
        "helper",
        preamble="__device__ float twice(float v) {\n  return v + v;\n}",
    )
    np.testing.assert_array_equal(good(x), x + x)


def test_reduction_kernel_expressions_are_checked(host, nvrtc, rng):
    x = random_array(rng, int(rng.integers(5, 500)), np.float32)
    bad = gpuvec.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = rand()", "0", "r")
    with pytest.raises(CompileError, match=r"^r\.cu, line \d+: .*rand"):
        bad(x)
    good = gpuvec.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = a", "0", "s")
    np.testing.assert_allclose(good(x), np.sum(x.astype(np.float64) ** 2), rtol=1e-5)


def test_opting_out_runs_what_only_the_host_accepts(host, fresh_cache, rng, monkeypatch):
    monkeypatch.setenv("GPUVEC_NVRTC_CHECK", "0")
    monkeypatch.setattr(_frontend, "library", lambda: pytest.fail("looked for NVRTC"))
    source, _line = padded(rng, REJECTED["missing __device__"][0])
    a = random_array(rng, int(rng.integers(5, 300)), np.float32)
    expected = 2 * a
    gpuvec.SourceModule(source).noise(a, a.size, grid=(a.size + 63) // 64, block=64)
    np.testing.assert_array_equal(a, expected)


def test_without_nvrtc_the_check_is_skipped_saying_so_once(
    host, fresh_cache, rng, monkeypatch, tmp_path
):
    monkeypatch.setenv("GPUVEC_NVRTC", str(tmp_path / "nowhere" / "libnvrtc.so"))
    monkeypatch.setattr(_frontend, "_said_skipped", False)
    assert _frontend.library() is None
    source, _line = padded(rng, REJECTED["missing __device__"][0])
    with pytest.warns(HostFallbackWarning, match="NVRTC") as warned:
        module = gpuvec.SourceModule(source)
    (warning,) = [w for w in warned if issubclass(w.category, HostFallbackWarning)]
    assert "nvidia-cuda-nvrtc" in str(warning.message)
    assert "GPUVEC_NVRTC_CHECK=0" in str(warning.message)
    a = random_array(rng, int(rng.integers(5, 300)), np.float32)
    expected = 2 * a
    module.noise(a, a.size, grid=(a.size + 63) // 64, block=64)
    np.testing.assert_array_equal(a, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process
        gpuvec.SourceModule(source + "// another\n")


def test_the_architecture_is_configurable(nvrtc, monkeypatch):
    source = "__global__ void k(int* a) { a[0] = __reduce_add_sync(0xffffffffu, a[1]); }\n"

    def error(log, compiler):
        return CompileError(log, log=log, source_name="k.cu")

    cache = kernel_cache()
    with pytest.raises(CompileError, match="__reduce_add_sync"):  # 8.0 and newer
        _frontend.check(source, "k.cu", ["--std=c++17"], [], error, cache)
    monkeypatch.setenv("GPUVEC_ARCH", "8.0")
    _frontend.check(source, "k.cu", ["--std=c++17"], [], error, cache)


@pytest.mark.parametrize(
    ("text", "arch"),
    [("", 75), ("8.6", 86), ("86", 86), ("sm_90", 90), ("compute_120", 120), ("10.0", 100)],
)
def test_gpuvec_arch_spellings(monkeypatch, text, arch):
    monkeypatch.setenv("GPUVEC_ARCH", text)
    assert _frontend.architecture() == arch


@pytest.mark.parametrize("text", ["turing", "7", "sm_7.5.1"])
def test_a_bad_gpuvec_arch_names_itself(monkeypatch, text):
    monkeypatch.setenv("GPUVEC_ARCH", text)
    with pytest.raises(ValueError, match="GPUVEC_ARCH"):
        _frontend.architecture()


def test_an_architecture_nvrtc_does_not_know(nvrtc, monkeypatch):
    monkeypatch.setenv("GPUVEC_ARCH", "1.0")
    with pytest.raises(ValueError, match=r"GPUVEC_ARCH asks for compute capability 1\.0"):
        _frontend.check("", "k.cu", [], [], None, kernel_cache())
