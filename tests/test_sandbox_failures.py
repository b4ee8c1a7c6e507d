"""A kernel's assert, __trap() or C++ exception raises CudaError in the host emulation.

On a GPU a failed assert is cudaErrorAssert and a trap cudaErrorLaunchFailure;
the host emulation raises the same, naming the failed expression with its
file and line (and the thread), for RawKernels, ElementwiseKernels and
ReductionKernels alike, and the process goes on: each case runs in a child
process, so that a regression (an abort) fails one test instead of the run.
"""

import pytest
from sandbox_support import child_result

# A C++ exception, and <stdexcept>, which every kernel here includes, are the
# host emulation's: NVRTC, and so its check of kernels on the host backend,
# rejects them, as a GPU does.
HOST_ONLY = {"GPUVEC_NVRTC_CHECK": "0"}

# The failing thread is `bad`, drawn by each test; every other thread writes
# its index, which the child checks after a clean launch of the same kernel.
RAW = {
    "assert": "assert(threadIdx.x != bad);",
    "trap": "if (threadIdx.x == bad) __trap();",
    "throw": 'if (threadIdx.x == bad) throw std::runtime_error("thread went bad");',
}

RAW_SCRIPT = """
source = '''#include <stdexcept>
__global__ void k(float* out, int bad) {{
    {sync}
    {statement}
    out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}}'''
kernel = gpuvec.RawKernel(source, "k")
out = np.zeros(4 * 256, np.float32)
error = failure(lambda: kernel(out, {bad}, grid=4, block=256, check={check}))
clean = np.zeros_like(out)
kernel(clean, -1, grid=4, block=256)
report(error=error, clean=bool(np.array_equal(clean, np.tile(np.arange(256), 4))))
"""


@pytest.mark.parametrize("check", [False, True], ids=["unchecked", "checked"])
@pytest.mark.parametrize("cooperative", [False, True], ids=["plain", "fibers"])
@pytest.mark.parametrize("what", sorted(RAW))
def test_raw_kernel_failure_raises_cuda_error(rng, what, cooperative, check):
    bad = int(rng.integers(0, 256))
    script = RAW_SCRIPT.format(
        sync="__syncthreads();" if cooperative else "",
        statement=RAW[what],
        bad=bad,
        check=check,
    )
    result = child_result(script, **HOST_ONLY)
    error = result["error"]
    assert error is not None, "the failing kernel raised nothing"
    assert error["type"] == "CudaError"
    assert not error["oom"]
    expected = "cudaErrorAssert" if what == "assert" else "cudaErrorLaunchFailure"
    assert error["name"] == expected
    message = error["message"]
    assert f"thread ({bad}, 0, 0) of block (" in message  # whichever block failed first
    if what == "assert":
        # The expression and where it is: line 4 of the source, as compiled.
        assert "Assertion `threadIdx.x != bad' failed" in message
        assert "kernel.cu:4" in message
    elif what == "throw":
        assert "thread went bad" in message
    else:
        assert "__trap()" in message
    assert result["clean"]


ELEMENTWISE = {
    "assert": "assert(a != bad); y = a * 2",
    "trap": "if (a == bad) __trap(); y = a * 2",
    "throw": 'if (a == bad) throw std::runtime_error("value went bad"); y = a * 2',
}

ELEMENTWISE_SCRIPT = """
x = np.random.default_rng({seed}).random({size}, dtype=np.float32)
bad = x[{index}]
kernel = gpuvec.ElementwiseKernel(
    "float32 a, float32 bad", "float32 y", {operation!r}, "twice",
    preamble="#include <stdexcept>",
)
error = failure(lambda: kernel(x, bad))
clean = kernel(x, np.float32(-1))
report(error=error, clean=bool(np.array_equal(clean, x * 2)))
"""


@pytest.mark.parametrize("size", [7, 300_000], ids=["one-piece", "pool"])
@pytest.mark.parametrize("what", sorted(ELEMENTWISE))
def test_elementwise_kernel_failure_raises_cuda_error(rng, what, size):
    # The data is drawn in the child, from a seed drawn here.
    script = ELEMENTWISE_SCRIPT.format(
        seed=int(rng.integers(2**32)),
        size=size,
        index=int(rng.integers(0, size)),
        operation=ELEMENTWISE[what],
    )
    result = child_result(script, **HOST_ONLY)
    error = result["error"]
    assert error is not None, "the failing kernel raised nothing"
    assert error["type"] == "CudaError"
    assert not error["oom"]
    assert error["name"] == ("cudaErrorAssert" if what == "assert" else "cudaErrorLaunchFailure")
    assert "ElementwiseKernel" in error["message"]
    if what == "assert":
        assert "Assertion `a != bad' failed" in error["message"]
        assert "twice.cu:1" in error["message"]
    elif what == "throw":
        assert "value went bad" in error["message"]
    assert result["clean"]


REDUCTION = {
    "assert in map": ("(assert(x != bad), x)", "y = a"),
    "trap in map": ("(x == bad ? (__trap(), x) : x)", "y = a"),
    "throw in map": ('(x == bad ? throw std::runtime_error("element went bad") : x)', "y = a"),
    "assert in post-map": ("x", "assert(a < 0); y = a"),
}

REDUCTION_SCRIPT = """
x = np.random.default_rng({seed}).random({size}, dtype=np.float32) + np.float32(0.5)
bad = x[{index}]
kernel = gpuvec.ReductionKernel(
    "float32 x, float32 bad", "float32 y", {map_expr!r}, "a + b", {post_map!r}, "0", "total",
    preamble="#include <stdexcept>",
)
error = failure(lambda: kernel(x, bad))
check = gpuvec.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "plain")
total = float(check(x))
report(error=error, clean=bool(np.isclose(total, float(x.astype(np.float64).sum()), rtol=1e-4)))
"""


@pytest.mark.parametrize("size", [9, 1_000_003], ids=["small", "pool"])
@pytest.mark.parametrize("what", sorted(REDUCTION))
def test_reduction_kernel_failure_raises_cuda_error(rng, what, size):
    map_expr, post_map = REDUCTION[what]
    script = REDUCTION_SCRIPT.format(
        seed=int(rng.integers(2**32)),
        size=size,
        index=int(rng.integers(0, size)),
        map_expr=map_expr,
        post_map=post_map,
    )
    result = child_result(script, **HOST_ONLY)
    error = result["error"]
    assert error is not None, "the failing kernel raised nothing"
    assert error["type"] == "CudaError"
    assert not error["oom"]
    assert error["name"] == ("cudaErrorAssert" if "assert" in what else "cudaErrorLaunchFailure")
    assert "ReductionKernel" in error["message"]
    if what == "assert in map":
        assert "Assertion `x != bad' failed" in error["message"]
        assert "total.cu:1" in error["message"]
    elif what == "assert in post-map":
        assert "Assertion `a < 0' failed" in error["message"]
    elif what == "throw in map":
        assert "element went bad" in error["message"]
    assert result["clean"]
