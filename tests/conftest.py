"""Shared fixtures: the backends to test on, random data and strided layouts."""

import os
import sys
import warnings

import numpy as np
import pytest

# `python3 -m pytest` puts the repository root first on sys.path, where the
# gpuvec/ source folder has no compiled core. The tests are of the installed
# package, so take the root off the path before importing it.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _ROOT]

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # the host-fallback warning is tested apart
    import gpuvec
    from gpuvec import _core
    from gpuvec._backend import _cuda_unusable_reason

    gpuvec.backend()  # the first call chooses the backend, warning on fallback

# Hypothesis profiles (tests/test_properties.py): "ci" by default, a few
# examples per property; HYPOTHESIS_PROFILE=gpu for a long run on a GPU machine.
try:
    from hypothesis import settings as hypothesis_settings
except ImportError:  # Hypothesis is a test extra; without it the property tests skip
    pass
else:
    hypothesis_settings.register_profile("ci", max_examples=25, deadline=None)
    hypothesis_settings.register_profile("gpu", max_examples=300, deadline=None)
    hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

BACKENDS = ["host", "cuda"]

# The start of the reason of every skip for want of CUDA (skip_without_cuda).
NO_CUDA = "needs a usable CUDA device: "


def skip_without_cuda() -> None:
    """Skips the running test where the CUDA backend cannot run, saying why."""
    if not gpuvec.is_available():
        pytest.skip(NO_CUDA + _cuda_unusable_reason())


# GPUVEC_TEST_DEVICES=N says the machine has N CUDA devices: a test that needs
# several (the two_devices fixture) then fails where the suite sees fewer,
# saying how many it saw, instead of skipping, so that a run meant to test
# several GPUs cannot pass without them. Unset, such a test skips there.
def _devices_expected() -> int:
    text = os.environ.get("GPUVEC_TEST_DEVICES", "").strip()
    if text and not text.isdigit():
        raise pytest.UsageError(f"GPUVEC_TEST_DEVICES must be a number of devices, got {text!r}")
    return int(text or 0)


DEVICES_EXPECTED = _devices_expected()


def need_cuda_devices(count: int) -> None:
    """Skips the running test unless the cuda backend sees `count` devices or
    more, saying how many it sees; fails instead where GPUVEC_TEST_DEVICES
    says the machine has them."""
    seen = len(gpuvec.devices())  # none where CUDA cannot run
    if seen >= count:
        return
    why = f"needs {count} CUDA devices; the suite sees {seen}"
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        why += f" (CUDA_VISIBLE_DEVICES={os.environ['CUDA_VISIBLE_DEVICES']!r})"
    if DEVICES_EXPECTED >= count:
        why += f", though GPUVEC_TEST_DEVICES={DEVICES_EXPECTED}"
        if not gpuvec.is_available():
            why += f": {_cuda_unusable_reason()}"
        pytest.fail(why)
    skip_without_cuda()
    pytest.skip(why)


@pytest.fixture
def two_devices():
    """Runs the test on the cuda backend, where it sees two devices or more
    (see need_cuda_devices)."""
    need_cuda_devices(2)
    previous = gpuvec.set_backend("cuda")
    yield
    gpuvec.set_backend(previous)


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Runs the test once per backend; the CUDA run skips where CUDA cannot run."""
    name = request.param
    if name == "cuda":
        skip_without_cuda()
    previous = gpuvec.set_backend(name)
    yield name
    gpuvec.set_backend(previous)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Gives every skip for want of CUDA one location, this file's skip_without_cuda.

    pytest's summary (``-ra``) folds skips of the same location and reason into
    one line with their count. A skip in a fixture is reported at its test's
    location, which on a machine without a GPU made thousands of lines, one per
    test function, all with the same reason. Each test still reports as skipped.
    """
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple):
        _, _, reason = report.longrepr
        if str(reason).removeprefix("Skipped: ").startswith(NO_CUDA):
            report.longrepr = (__file__, skip_without_cuda.__code__.co_firstlineno, reason)
    return report


@pytest.fixture
def no_transfers():
    """Asserts that the code in the with-block copies nothing between host and device."""

    class Guard:
        def __enter__(self):
            self.before = _core.transfer_counts()

        def __exit__(self, *exc):
            assert _core.transfer_counts() == self.before, "data moved between host and device"

    return Guard()


@pytest.fixture
def rng():
    """A fresh generator each test; the seed is printed on failure."""
    seed = np.random.SeedSequence().entropy
    print(f"random seed: {seed}")
    return np.random.default_rng(seed)


def random_array(rng, shape, dtype):
    """Random values of both signs, never all zero."""
    return (rng.standard_normal(shape) * 10).astype(dtype)


# The dtypes DeviceArrays hold, as the tests go over them: float16 is stored
# only (computed in float32), the others are computed in.
INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
COMPUTED_REAL_DTYPES = [np.float32, np.float64, np.bool_, *INTEGER_DTYPES]
REAL_DTYPES = [np.float16, *COMPUTED_REAL_DTYPES]
COMPLEX_DTYPES = [np.complex64, np.complex128]

# Odd sizes: empty, one element, primes and powers of two plus and minus one.
SIZES = [0, 1, 2, 3, 31, 32, 33, 127, 1023, 1025, 4099, 65535, 65537, 1_000_003]

# Layouts as (make a view of a base array, shape of the base).
LAYOUTS = {
    "contiguous": (lambda a: a, (1000,)),
    "step-2": (lambda a: a[::2], (2001,)),
    "step-3-offset": (lambda a: a[1::3], (3000,)),
    "reversed": (lambda a: a[::-1], (999,)),
    "reversed-step": (lambda a: a[::-7], (7001,)),
    "2d-c": (lambda a: a, (37, 41)),
    "2d-fortran": (np.asfortranarray, (37, 41)),
    "2d-transposed": (lambda a: a.T, (41, 37)),
    "2d-column": (lambda a: a[:, 5], (53, 11)),
    "3d-mixed": (lambda a: a[::-1, 1::2, ::3], (5, 9, 13)),
    "4d-swapped": (lambda a: a.swapaxes(1, 3)[:, ::-1], (3, 4, 5, 6)),
    "0d": (lambda a: a, ()),
}


def make_layout(rng, layout, dtype):
    view, base_shape = LAYOUTS[layout]
    return view(random_array(rng, base_shape, dtype))
