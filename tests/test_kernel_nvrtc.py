"""Finding NVRTC: the toolkit's, the wheel's (through cuda-pathfinder), or a clear error."""

import subprocess
import sys

import pytest

from gpuvec.kernels import _nvrtc


@pytest.fixture
def fresh_lookup():
    _nvrtc.nvrtc_path.cache_clear()
    yield
    _nvrtc.nvrtc_path.cache_clear()


def test_missing_nvrtc_says_what_to_install(fresh_lookup, monkeypatch):
    monkeypatch.delenv("GPUVEC_NVRTC", raising=False)
    monkeypatch.setattr(_nvrtc, "_from_pathfinder", lambda: None)
    monkeypatch.setattr(_nvrtc, "_from_toolkit", lambda: None)
    monkeypatch.setattr(_nvrtc, "_loadable", lambda path: False)
    with pytest.raises(FileNotFoundError, match="nvidia-cuda-nvrtc") as info:
        _nvrtc.nvrtc_path()
    assert "GPUVEC_NVRTC" in str(info.value)


def test_the_environment_variable_comes_first(fresh_lookup, monkeypatch):
    monkeypatch.setenv("GPUVEC_NVRTC", "/opt/somewhere/libnvrtc.so.13")
    monkeypatch.setattr(_nvrtc, "_from_pathfinder", lambda: pytest.fail("looked further"))
    assert _nvrtc.nvrtc_path() == "/opt/somewhere/libnvrtc.so.13"


def test_toolkit_before_the_loader_path(fresh_lookup, monkeypatch, tmp_path):
    library = tmp_path / "lib64" / "libnvrtc.so.13"
    library.parent.mkdir()
    library.write_bytes(b"")
    monkeypatch.delenv("GPUVEC_NVRTC", raising=False)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.setattr(_nvrtc, "_from_pathfinder", lambda: None)
    assert _nvrtc.nvrtc_path() == str(library)


def test_a_bad_library_path_fails_clearly(backend):
    if backend != "cuda":
        pytest.skip("NVRTC is loaded by the cuda backend only")
    # In a fresh process: NVRTC, once loaded, stays loaded for the process.
    probe = (
        "import gpuvec\n"
        "try:\n"
        "    gpuvec._core.nvrtc_version('/nonexistent/libnvrtc.so')\n"
        "except ValueError as error:\n"
        "    print(error)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "cannot load NVRTC from /nonexistent/libnvrtc.so" in run.stdout
