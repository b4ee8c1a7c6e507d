"""The planted-bug corpus (tests/kernel_bugs/): checked mode against classic course kernels.

Each kernel of the corpus runs correct on both backends (with the default
check: checked on the host backend), and its result must equal NumPy's on
fresh random data: checked mode raises no false alarm. Each buggy variant
(one planted bug: a missing bounds guard, a missing __syncthreads, a barrier
in divergent code, a race on a shared accumulator, a wrong warp mask, a read
of shared memory never written, ...) must raise, on the host backend, the
exception class its Bug names, with a message that names the kernel and the
buggy line.
"""

import importlib
import pkgutil
import re

import kernel_bugs
import numpy as np
import pytest

import gpuvec

KERNELS = {
    name: importlib.import_module(f"kernel_bugs.{name}").KERNEL
    for _, name, _ in pkgutil.iter_modules(kernel_bugs.__path__)
    if not name.startswith("_")
}
BUGS = [(name, bug) for name, kernel in KERNELS.items() for bug in kernel.bugs]


def _launch(kernel, source, rng, source_name, check=None):
    function = gpuvec.RawKernel(source, kernel.name, source_name=source_name)
    args, launch, verify = kernel.setup(rng)
    function(*args, **launch, check=check)
    return verify


def test_the_corpus_is_of_real_size():
    assert len(KERNELS) >= 15
    assert len(BUGS) >= 35
    assert {bug.error for _, bug in BUGS} >= {
        "OutOfBoundsError",
        "RaceError",
        "BarrierDivergenceError",
        "UninitializedReadError",
        "WarpMaskError",
    }


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_correct_kernel_matches_numpy(backend, rng, name):
    kernel = KERNELS[name]
    verify = _launch(kernel, kernel.source, rng, f"{name}.cu")  # checked on the host backend
    verify()


@pytest.mark.parametrize("backend", ["host"], indirect=True)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_correct_kernel_unchecked_matches_numpy(backend, rng, name):
    kernel = KERNELS[name]
    _launch(kernel, kernel.source, rng, f"{name}.cu", check=False)()


@pytest.mark.parametrize("backend", ["host"], indirect=True)
@pytest.mark.parametrize(("name", "bug"), BUGS, ids=[f"{n}-{b.name}" for n, b in BUGS])
def test_buggy_kernel_raises_at_its_line(backend, rng, name, bug):
    kernel = KERNELS[name]
    source_name = f"{name}_{bug.name}.cu"
    expected = getattr(gpuvec, bug.error)
    with pytest.raises(gpuvec.KernelBugError) as info:
        _launch(kernel, bug.source(kernel.source), rng, source_name)
    error = info.value
    assert type(error) is expected, f"{type(error).__name__}: {error}"
    assert isinstance(error, gpuvec.CudaError)
    message = str(error)
    lines = {int(k) for k in re.findall(re.escape(source_name) + r":(\d+)", message)}
    assert bug.expected_line(kernel.source) in lines, message
    assert f"kernel '{kernel.name}'" in message
    assert re.search(r"thread \(\d+, \d+, \d+\)", message), message


@pytest.mark.parametrize("backend", ["host"], indirect=True)
def test_out_of_bounds_is_an_index_error(backend):
    kernel = KERNELS["vecadd"]
    bug = kernel.bugs[0]
    with pytest.raises(IndexError) as info:
        _launch(kernel, bug.source(kernel.source), np.random.default_rng(), "oob.cu")
    assert isinstance(info.value, gpuvec.OutOfBoundsError)
    assert info.value.name == "cudaErrorIllegalAddress"
