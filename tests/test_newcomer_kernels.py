"""Users' kernels where newcomers stumble: run in a source checkout, PyCUDA's
launch without a grid, a misspelled kernel, a template without its instances,
inline PTX assembly on the host backend, and a kernel cache that cannot be
written."""

import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import gpuvec
from gpuvec.kernels import _cache, kernel_cache
from gpuvec.kernels.classics import DOUBLIFY, VECADD

ROOT = Path(__file__).resolve().parent.parent

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

# One thread's lane in its warp, read from PTX's %laneid register.
LANE_ASM = """
__global__ void lanes(unsigned int* out)
{
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[threadIdx.x] = lane;
}
"""

# The same with a portable path for the host emulation.
LANE_GUARDED = """
__global__ void lanes(unsigned int* out)
{
    unsigned int lane;
#ifdef GPUVEC_EMULATION
    lane = threadIdx.x % warpSize;
#else
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
#endif
    out[threadIdx.x] = lane;
}
"""

GRID_SHAPE = """
__global__ void grid_shape(int* out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = gridDim.x;
        out[1] = gridDim.y;
        out[2] = gridDim.z;
    }
    atomicAdd(&out[3], 1);
}
"""


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    folder = tmp_path / "kernels"
    monkeypatch.setenv("GPUVEC_CACHE_DIR", str(folder))
    return folder


# --- a source checkout ------------------------------------------------------------------------


@pytest.mark.skipif(not (ROOT / "gpuvec" / "__init__.py").is_file(), reason="no source checkout")
def test_a_kernel_compiles_when_python_runs_in_the_source_checkout(backend, tmp_path):
    # `python3 -c` in the repository root: the checkout's gpuvec/ comes first
    # on sys.path, and its kernels modules have no headers beside them.
    seed = int(np.random.default_rng().integers(1 << 31))
    script = textwrap.dedent(
        f"""
        import numpy as np
        import gpuvec
        from gpuvec.kernels import _module
        from gpuvec.kernels.classics import VECADD

        assert _module.__file__.startswith({str(ROOT)!r}), _module.__file__
        gpuvec.set_backend({backend!r})
        rng = np.random.default_rng({seed})
        a, b = rng.standard_normal((2, 1000), dtype=np.float32)
        c = np.full_like(a, np.nan)
        vecadd = gpuvec.SourceModule(VECADD).get_function("vecadd")
        vecadd(a, b, c, a.size, grid=4, block=256)
        np.testing.assert_array_equal(c, a + b)
        print("matches NumPy")
        """
    )
    environment = {**os.environ, "GPUVEC_CACHE_DIR": str(tmp_path / "kernels")}
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "matches NumPy" in completed.stdout


# --- PyCUDA's launch --------------------------------------------------------------------------


def test_pycudas_tutorial_launch_without_a_grid(backend, rng):
    doublify = gpuvec.SourceModule(DOUBLIFY).get_function("doublify")
    a = rng.standard_normal((4, 4)).astype(np.float32)
    expected = a * 2
    doublify(a, block=(4, 4, 1))
    np.testing.assert_array_equal(a, expected)


def test_the_grid_is_one_block_when_left_out(backend, rng):
    kernel = gpuvec.SourceModule(GRID_SHAPE).grid_shape
    block = int(rng.integers(1, 257))
    out = np.zeros(4, np.int32)
    kernel(out, block=block)
    np.testing.assert_array_equal(out, [1, 1, 1, block])


def test_block_is_still_required(backend):
    doublify = gpuvec.SourceModule(DOUBLIFY).doublify
    with pytest.raises(TypeError, match="block"):
        doublify(np.zeros(16, np.float32), grid=1)


# --- CuPy's launch ----------------------------------------------------------------------------


def test_cupys_launch_takes_grid_block_and_an_argument_tuple(backend, rng):
    kernel = gpuvec.SourceModule(GRID_SHAPE).grid_shape
    block = int(rng.integers(1, 257))
    out = np.zeros(4, np.int32)
    kernel((3, 2), (block,), (out,))
    np.testing.assert_array_equal(out, [3, 2, 1, 3 * 2 * block])
    doublify = gpuvec.SourceModule(DOUBLIFY).doublify
    a = rng.standard_normal(16).astype(np.float32)
    expected = a * 2
    doublify(1, 16, [a])  # numbers and a list, as CuPy takes them too
    np.testing.assert_array_equal(a, expected)


def test_three_arguments_without_a_block_are_not_cupys_launch(backend):
    doublify = gpuvec.SourceModule(DOUBLIFY).doublify
    with pytest.raises(TypeError, match=r"CuPy's kernel\(grid, block, \(args...\)\)"):
        doublify(np.zeros(16, np.float32), 1, 2)


# --- a kernel's name --------------------------------------------------------------------------


def test_a_misspelled_kernel_attribute_lists_the_kernels(backend):
    mod = gpuvec.SourceModule(DOUBLIFY + VECADD)
    with pytest.raises(AttributeError, match=r"'doublfy'.*doublify, vecadd"):
        mod.doublfy  # noqa: B018
    with pytest.raises(ValueError, match=r"'doublfy'.*doublify, vecadd"):
        mod.get_function("doublfy")
    assert not hasattr(mod, "doublfy")
    assert getattr(mod, "doublfy", None) is None


def test_a_template_without_name_expressions_says_how_to_name_its_instances(backend, rng):
    mod = gpuvec.SourceModule(TEMPLATE)
    with pytest.raises(ValueError, match="scale is a template kernel") as info:
        mod.get_function("scale")
    message = str(info.value)
    assert "template" in message
    assert "name_expressions=" in message
    assert "none" not in message
    example = "scale<float, 1>"
    assert repr(example) in message
    with pytest.raises(AttributeError, match=r"template.*name_expressions"):
        mod.scale  # noqa: B018
    with pytest.raises(ValueError, match=r"template.*RawKernel\(code, 'scale<float, 1>'\)"):
        gpuvec.RawKernel(TEMPLATE, "scale")
    # A plain kernel beside the template: the message of a wrong name lists both.
    with pytest.raises(ValueError, match=r"doublify.*template kernels scale"):
        gpuvec.SourceModule(DOUBLIFY + TEMPLATE).get_function("triple")
    # The example the message gives works.
    x = rng.standard_normal(300).astype(np.float32)
    expected = x * 1
    kernel = gpuvec.SourceModule(TEMPLATE, name_expressions=[example]).get_function(example)
    kernel(x, x.size, grid=2, block=256)
    np.testing.assert_array_equal(x, expected)


# --- inline assembly --------------------------------------------------------------------------


def test_inline_ptx_assembly(backend):
    out = np.zeros(64, np.uint32)
    if backend == "cuda":  # NVRTC assembles it
        gpuvec.SourceModule(LANE_ASM).lanes(out, block=64)
        np.testing.assert_array_equal(out, np.arange(64) % 32)
        return
    with pytest.raises(gpuvec.CompileError) as info:
        gpuvec.SourceModule(LANE_ASM, name="lanes.cu")
    message = str(info.value)
    line = LANE_ASM.splitlines().index(next(s for s in LANE_ASM.splitlines() if "asm" in s)) + 1
    assert f"lanes.cu, line {line}: inline PTX assembly" in message
    assert "not supported by the host" in message
    assert "GPU" in message
    assert 'asm volatile("mov.u32' in message  # the line itself


def test_inline_assembly_kept_from_the_host_compiles(backend):
    out = np.zeros(64, np.uint32)
    gpuvec.SourceModule(LANE_GUARDED).lanes(out, block=64)
    np.testing.assert_array_equal(out, np.arange(64) % 32)


def test_another_error_beside_inline_assembly_is_reported_as_itself(backend):
    source = LANE_ASM.replace("out[threadIdx.x] = lane;", "out[threadIdx.x] = undefined_lane;")
    with pytest.raises(gpuvec.CompileError, match="undefined_lane") as info:
        gpuvec.SourceModule(source)
    assert "inline PTX" not in str(info.value)


# --- a kernel cache that cannot be written ----------------------------------------------------


def test_a_cache_folder_that_cannot_be_made_falls_back_with_a_warning(
    backend, rng, tmp_path, monkeypatch
):
    # A folder under a regular file cannot be made, not even by root.
    (tmp_path / "afile").write_text("not a folder")
    unusable = tmp_path / "afile" / "cache"
    monkeypatch.setenv("GPUVEC_CACHE_DIR", str(unusable))
    source = VECADD + f"\n// {rng.integers(1 << 62)}\n"  # a fresh compile
    with pytest.warns(RuntimeWarning) as warned:
        mod = gpuvec.SourceModule(source)
    (warning,) = [w for w in warned if "kernel cache" in str(w.message)]
    cache = kernel_cache()
    assert str(unusable) in str(warning.message)
    assert "GPUVEC_CACHE_DIR" in str(warning.message)
    assert str(cache.directory) in str(warning.message)
    assert cache.requested == unusable
    assert cache.directory.is_dir()
    assert cache.stats().entries >= 1
    a, b = rng.standard_normal((2, 500), dtype=np.float32)
    c = np.full_like(a, np.nan)
    mod.vecadd(a, b, c, a.size, grid=2, block=256)
    np.testing.assert_array_equal(c, a + b)
    # Once per process: the next compile uses the same folder, without a warning.
    hits = cache.stats().hits
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gpuvec.SourceModule(source)
    assert kernel_cache() is cache
    assert cache.stats().hits == hits + 1


def test_a_cache_folder_that_cannot_be_written_falls_back(tmp_path, monkeypatch):
    cache = _cache.KernelCache(tmp_path / "kernels", fallback=True)
    real_write = _cache._write_atomically

    def refuse_in_requested(path, data):
        if path.parent == cache.requested:
            raise PermissionError(13, "Permission denied", str(path))
        real_write(path, data)

    monkeypatch.setattr(_cache, "_write_atomically", refuse_in_requested)
    key = _cache.cache_key(source=str(tmp_path), backend="host")
    payload = os.urandom(64)
    with pytest.warns(RuntimeWarning, match=r"kernels.*Permission denied.*GPUVEC_CACHE_DIR"):
        entry = cache.put(key, payload)
    assert cache.directory != cache.requested
    assert entry.path.parent == cache.directory
    assert cache.get(key).payload == payload


def test_without_fallback_the_error_names_the_folder_and_the_variable(tmp_path):
    (tmp_path / "afile").write_text("not a folder")
    unusable = tmp_path / "afile" / "cache"
    with pytest.raises(OSError, match=rf"{re.escape(str(unusable))}.*GPUVEC_CACHE_DIR"):
        _cache.KernelCache(unusable)
