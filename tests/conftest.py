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


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Runs the test once per backend; the CUDA run skips where CUDA cannot run."""
    name = request.param
    if name == "cuda" and not gpuvec.is_available():
        from gpuvec._backend import _cuda_unusable_reason

        pytest.skip(f"CUDA backend unavailable: {_cuda_unusable_reason()}")
    previous = gpuvec.set_backend(name)
    yield name
    gpuvec.set_backend(previous)


@pytest.fixture
def rng():
    """A fresh generator each test; the seed is printed on failure."""
    seed = np.random.SeedSequence().entropy
    print(f"random seed: {seed}")
    return np.random.default_rng(seed)


def random_array(rng, shape, dtype):
    """Random values of both signs, never all zero."""
    return (rng.standard_normal(shape) * 10).astype(dtype)


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
