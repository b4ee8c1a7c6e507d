"""Choosing the backend: automatic, by environment variable, at run time."""

import os
import re
import subprocess
import sys
import time

import pytest
from conftest import skip_without_cuda

import gpuvec
from gpuvec import _backend, _core

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_python(code, **env):
    """Runs code in a fresh interpreter outside the source tree."""
    environment = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=environment,
        cwd=os.path.dirname(ROOT),
        timeout=120,
    )


def test_backend_names():
    assert gpuvec.backend() in ("cuda", "host")
    assert gpuvec.is_available() == (
        gpuvec.backend() == "cuda" or os.environ.get("GPUVEC_BACKEND") == "host"
    )


def test_is_available_is_fast():
    start = time.perf_counter()
    for _ in range(100):
        gpuvec.is_available()
    assert time.perf_counter() - start < 0.5


def test_set_backend_round_trip():
    previous = gpuvec.set_backend("host")
    try:
        assert gpuvec.backend() == "host"
        assert gpuvec.set_backend("auto") == "host"
        assert gpuvec.backend() == ("cuda" if gpuvec.is_available() else "host")
    finally:
        gpuvec.set_backend(previous)


def test_set_backend_rejects_unknown_names():
    with pytest.raises(ValueError, match="backend must be 'cuda', 'host' or 'auto', got 'tpu'"):
        gpuvec.set_backend("tpu")


def test_env_host_selects_host_without_warning():
    result = run_python(
        "import warnings; warnings.simplefilter('error');import gpuvec; print(gpuvec.backend())",
        GPUVEC_BACKEND="host",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "host"


def test_env_rejects_unknown_value():
    result = run_python("import gpuvec", GPUVEC_BACKEND="gpu")
    assert result.returncode != 0
    assert "GPUVEC_BACKEND must be 'cuda', 'host' or 'auto', got 'gpu'" in result.stderr


def test_auto_fallback_warns_once_with_the_reason():
    if gpuvec.is_available():
        pytest.skip("CUDA is usable here, so there is no fallback to warn about")
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import gpuvec, numpy\n"
        "    gpuvec.add(numpy.ones(3), 1.0); gpuvec.sum([1.0])\n"
        "kinds = [w.category.__name__ for w in caught]\n"
        "print(kinds.count('HostFallbackWarning'), caught[0].message)\n"
    )
    result = run_python(code, GPUVEC_BACKEND="auto")
    assert result.returncode == 0, result.stderr
    count, message = result.stdout.split(" ", 1)
    assert count == "1"
    assert "host backend" in message


def test_import_asks_nothing_of_cuda():
    # Asking the driver fixes the devices a process sees; a Dask-CUDA worker
    # imports gpuvec before CUDA_VISIBLE_DEVICES gives it its GPU.
    result = run_python(
        "import gpuvec, gpuvec.kernels, gpuvec.streams, gpuvec.memory\n"
        "from gpuvec import _core\n"
        "print(_core.backend_is_chosen())",
        GPUVEC_BACKEND="auto",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
    assert "HostFallbackWarning" not in result.stderr


def test_devices_named_after_import_are_the_ones_used():
    skip_without_cuda()
    # Only a process that asked CUDA nothing at import sees the change.
    result = run_python(
        "import os, gpuvec\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"
        "print(gpuvec.is_available(), gpuvec.backend())",
        GPUVEC_BACKEND="auto",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False host"


@pytest.mark.parametrize(
    "call",
    ["gpuvec.add(numpy.ones(3), 1.0)", "gpuvec.zeros(3)", "print(gpuvec.backend())"],
)
def test_fallback_warning_names_the_users_first_call(tmp_path, call):
    # The user's script, run as a file: the warning must point at the line
    # whose call chose the backend, not at gpuvec's own files, the import
    # system or runpy.
    script = tmp_path / "analysis.py"
    script.write_text(
        f"import numpy\nimport gpuvec\nimport gpuvec.kernels\n{call}\ngpuvec.sum([1.0])\n"
    )
    # No visible device: CUDA is unusable, so gpuvec falls back, on any machine.
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "GPUVEC_BACKEND": "auto"}
    result = subprocess.run(
        [sys.executable, "-W", "always", str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # Once per process, even where every warning is shown ("-W always"): the
    # backend is chosen once.
    assert result.stderr.count("HostFallbackWarning") == 1, result.stderr
    first, source = result.stderr.splitlines()[:2]
    assert first.startswith(f"{script}:4: HostFallbackWarning: "), result.stderr
    assert source.strip() == call


@pytest.fixture
def fake_cuda(monkeypatch):
    """A CUDA build whose device count fails as CUDA's runtime fails without a
    (new enough) driver; the test sets the versions the runtime reports."""

    def device_count():
        raise gpuvec.CudaError(
            "CUDA driver version is insufficient for CUDA runtime version",
            35,
            "cudaErrorInsufficientDriver",
        )

    monkeypatch.setattr(_core, "cuda_built", lambda: True)
    monkeypatch.setattr(_core, "cuda_device_count", device_count)
    _backend._cuda_unusable_reason.cache_clear()
    yield lambda runtime, driver: monkeypatch.setattr(
        _core, "cuda_versions", lambda: (runtime, driver)
    )
    _backend._cuda_unusable_reason.cache_clear()  # the real answer, once monkeypatch undoes


def test_no_driver_at_all_is_told_apart_from_an_old_one(fake_cuda):
    # Without libcuda the runtime reports driver version 0 (as on a machine without a GPU).
    fake_cuda((13, 0), (0, 0))
    reason = _backend._cuda_unusable_reason()
    assert reason == "no NVIDIA driver was found (its library, libcuda, could not be loaded)"


def test_a_driver_too_old_names_both_versions(fake_cuda):
    fake_cuda((13, 0), (12, 4))
    reason = _backend._cuda_unusable_reason()
    assert reason.startswith("the NVIDIA driver is too old"), reason
    assert "up to 12.4" in reason
    assert "CUDA 13.0" in reason


def test_asking_for_cuda_without_it_is_a_cuda_error():
    if gpuvec.is_available():
        pytest.skip("CUDA is usable here")
    with pytest.raises(gpuvec.CudaError, match="the cuda backend was asked for, but"):
        gpuvec.set_backend("cuda")
    # The import succeeds (it asks CUDA nothing); the first call says why not.
    result = run_python("import gpuvec\ngpuvec.zeros(3)", GPUVEC_BACKEND="cuda")
    assert result.returncode != 0
    assert "CudaError" in result.stderr
    assert "GPUVEC_BACKEND=cuda, but" in result.stderr


def test_devices_describe_each_gpu():
    devices = gpuvec.devices()
    if not gpuvec.is_available():
        assert devices == []
        return
    assert devices
    for d in devices:
        assert d["name"]
        assert d["compute_capability"] >= (7, 5)
        assert d["total_memory"] > 0
        assert re.fullmatch(r"GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", d["uuid"])
    assert len({d["uuid"] for d in devices}) == len(devices)


def test_synchronize():
    gpuvec.synchronize()
