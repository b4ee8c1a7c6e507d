"""The planted-bug corpus (tests/kernel_bugs/): checked mode against classic course kernels.

Each kernel of the corpus runs correct on both backends (with the default
check: checked on the host backend), and its result must equal NumPy's on
fresh random data: checked mode raises no false alarm. Each buggy variant
(one planted bug: a missing bounds guard, a missing __syncthreads, a barrier
in divergent code, a race on a shared accumulator, a wrong warp mask, a read
of shared memory never written, ...) must raise, on the host backend, the
exception class its Bug names, with a message that names the kernel and the
buggy line. A failed device-side assert() is no bug of checked mode's own:
it raises a CudaError named cudaErrorAssert, whose message names the line of
the assert. A correct kernel gives the same bits on both backends, unless its
result depends on the order of float atomics, of a parallel float sum, or on
a transcendental function (its Kernel says so).
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


def _launch(kernel, source, rng, source_name, check=None, relaunch=None):
    function = gpuvec.RawKernel(source, kernel.name, source_name=source_name)
    args, launch, verify = kernel.setup(rng)
    if relaunch is not None:
        launch = relaunch(launch)
    function(*args, **launch, check=check)
    return verify


def test_the_corpus_is_of_real_size():
    assert len(KERNELS) >= 40
    assert len(BUGS) >= 60
    classes = [bug.error for _, bug in BUGS]
    for error in [
        "OutOfBoundsError",
        "RaceError",
        "BarrierDivergenceError",
        "UninitializedReadError",
        "WarpMaskError",
        "cudaErrorAssert",
    ]:
        assert classes.count(error) >= 2, error
    assert sum(bug.launch is not None for _, bug in BUGS) >= 2  # a grid too big


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


@pytest.mark.parametrize("backend", ["cuda"], indirect=True)
@pytest.mark.parametrize("name", sorted(n for n, k in KERNELS.items() if k.same_bits))
def test_correct_kernel_same_bits_on_both_backends(backend, name):
    kernel = KERNELS[name]
    seed = np.random.SeedSequence().entropy
    print(f"random seed: {seed}")
    outputs = {}
    for each in ("host", "cuda"):  # the same inputs: the same seed
        gpuvec.set_backend(each)
        args, launch, verify = kernel.setup(np.random.default_rng(seed))
        function = gpuvec.RawKernel(kernel.source, kernel.name, source_name=f"{name}.cu")
        function(*args, **launch)  # checked on the host backend
        verify()
        outputs[each] = [a for a in args if isinstance(a, np.ndarray)]
    for host, cuda in zip(outputs["host"], outputs["cuda"], strict=True):
        as_bits = np.dtype(f"u{host.itemsize}")
        np.testing.assert_array_equal(host.view(as_bits), cuda.view(as_bits))


@pytest.mark.parametrize("backend", ["host"], indirect=True)
@pytest.mark.parametrize(("name", "bug"), BUGS, ids=[f"{n}-{b.name}" for n, b in BUGS])
def test_buggy_kernel_raises_at_its_line(backend, rng, name, bug):
    kernel = KERNELS[name]
    source_name = f"{name}_{bug.name}.cu"
    source = bug.source(kernel.source)
    if bug.error.startswith("cudaError"):  # a CUDA error, not a finding of checked mode
        with pytest.raises(gpuvec.CudaError) as info:
            _launch(kernel, source, rng, source_name, relaunch=bug.launch)
        error = info.value
        assert not isinstance(error, gpuvec.KernelBugError), f"{type(error).__name__}: {error}"
        assert error.name == bug.error, str(error)
    else:
        with pytest.raises(gpuvec.KernelBugError) as info:
            _launch(kernel, source, rng, source_name, relaunch=bug.launch)
        error = info.value
        assert type(error) is getattr(gpuvec, bug.error), f"{type(error).__name__}: {error}"
        assert isinstance(error, gpuvec.CudaError)
    message = str(error)
    lines = {int(k) for k in re.findall(re.escape(source_name) + r":(\d+)", message)}
    assert bug.expected_lines(kernel.source) & lines, message
    # Checked mode names "kernel 'NAME'"; a failed assert, the function: "void NAME(".
    assert re.search(rf"kernel '{kernel.name}'|\b{kernel.name}\(", message), message
    assert re.search(r"thread \(\d+, \d+, \d+\)", message), message


@pytest.mark.parametrize("backend", ["host"], indirect=True)
def test_out_of_bounds_is_an_index_error(backend):
    kernel = KERNELS["vecadd"]
    bug = kernel.bugs[0]
    with pytest.raises(IndexError) as info:
        _launch(kernel, bug.source(kernel.source), np.random.default_rng(), "oob.cu")
    assert isinstance(info.value, gpuvec.OutOfBoundsError)
    assert info.value.name == "cudaErrorIllegalAddress"
