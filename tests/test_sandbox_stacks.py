"""Each emulated thread has a GPU's 512 KiB of stack, and overflowing it raises CudaError.

A thread's stack in the host emulation is a fiber's (a block without
barriers runs its threads one after another on one), 512 KiB as on a GPU,
mapped lazily with a guard page below it: a deep recursion or a large local
array that runs past it raises CudaError (cudaErrorLaunchFailure) instead of
a segmentation fault, and a fault gpuvec does not own still reaches the
handler that was there before. Each case runs in a child process.
"""

import signal

import pytest
from sandbox_support import child_result, run_child

OVERFLOWS = {
    # 256 KiB of locals a call: the third call runs past 512 KiB.
    "large locals": """
__device__ float deep(int n, volatile float* sink) {
    float local[65536];
    for (int i = 0; i < 65536; i += 1024) local[i] = n + i;
    sink[0] = local[n % 1024];
    return n > 0 ? deep(n - 1, sink) + local[1024] : local[0];
}
__global__ void k(float* out, int n) {
    {sync}
    float sink;
    if (threadIdx.x == {thread}) out[threadIdx.x] = deep(n, &sink);
}""",
    # 10^5 frames of a few dozen bytes: megabytes.
    "deep recursion": """
__device__ int deep(int n) {
    volatile int keep = n;
    return n > 0 ? deep(n - 1) + keep : 0;
}
__global__ void k(float* out, int n) {
    {sync}
    if (threadIdx.x == {thread}) out[threadIdx.x] = deep(n);
}""",
}

OVERFLOW_SCRIPT = """
kernel = gpuvec.RawKernel('''{source}''', "k")
out = np.zeros(64, np.float32)
error = failure(lambda: kernel(out, {depth}, grid=2, block=64, check={check}))
# The process goes on, and so do its stacks.
x = np.random.default_rng({seed}).random(64, dtype=np.float32)
copy = gpuvec.RawKernel('''
__global__ void copy(const float* x, float* y) {{
    __syncthreads();
    y[threadIdx.x] = x[threadIdx.x];
}}''', "copy")
y = np.zeros_like(x)
copy(x, y, block=64)
report(error=error, clean=bool(np.array_equal(x, y)))
"""


@pytest.mark.parametrize("check", [False, True], ids=["unchecked", "checked"])
@pytest.mark.parametrize("cooperative", [False, True], ids=["plain", "fibers"])
@pytest.mark.parametrize("what", sorted(OVERFLOWS))
def test_stack_overflow_raises_cuda_error(rng, what, cooperative, check):
    thread = int(rng.integers(0, 64))
    source = OVERFLOWS[what].replace("{sync}", "__syncthreads();" if cooperative else "")
    source = source.replace("{thread}", str(thread))
    depth = 100_000 if what == "deep recursion" else 40
    script = OVERFLOW_SCRIPT.format(
        source=source, depth=depth, check=check, seed=int(rng.integers(2**32))
    )
    result = child_result(script)
    error = result["error"]
    assert error is not None, "the overflowing kernel raised nothing"
    assert error["type"] == "CudaError"
    assert not error["oom"]
    assert error["name"] == "cudaErrorLaunchFailure"
    assert "the stack of a thread overflowed its 512 KiB" in error["message"]
    if cooperative:  # a fiber's stack is its thread's
        assert f"thread ({thread}, 0, 0) of block (" in error["message"]
    assert result["clean"]


FITS_SCRIPT = """
kernel = gpuvec.RawKernel('''
__device__ float fill(float* local, int n, float seed) {
    for (int i = 0; i < n; ++i) local[i] = seed + i;
    float total = 0;
    for (int i = 0; i < n; i += 4096) total += local[i];
    return total;
}
__global__ void k(const float* seeds, float* out) {
    float local[100 * 1024];  // 400 KiB: more than a CPU thread's usual 128 KiB fiber
    {sync}
    out[threadIdx.x] = fill(local, 100 * 1024, seeds[threadIdx.x]);
}''', "k")
seeds = np.random.default_rng({seed}).random(32, dtype=np.float32)
out = np.zeros(32, np.float32)
kernel(seeds, out, block=32)
expected = np.array([sum(np.float32(s) + np.float32(i) for i in range(0, 100 * 1024, 4096))
                     for s in seeds], np.float32)
report(close=bool(np.allclose(out, expected, rtol=1e-5)))
"""


@pytest.mark.parametrize("cooperative", [False, True], ids=["plain", "fibers"])
def test_a_thread_may_use_most_of_512_kib(rng, cooperative):
    script = FITS_SCRIPT.replace("{sync}", "__syncthreads();" if cooperative else "")
    result = child_result(script.replace("{seed}", str(int(rng.integers(2**32)))))
    assert result["close"]


RSS_SCRIPT = """
def rss_kib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

kernel = gpuvec.RawKernel('''
__global__ void k(float* out) { __syncthreads(); out[threadIdx.x] = threadIdx.x; }''', "k")
out = np.zeros(1024, np.float32)
kernel(out, block=1024)
before = rss_kib()
for _ in range(3):
    kernel(out, block=1024)
report(grew_kib=rss_kib() - before, right=bool(np.array_equal(out, np.arange(1024))))
"""


def test_unused_stack_costs_no_memory():
    # 1024 fibers of 512 KiB would be 512 MiB if their stacks were committed.
    result = child_result(RSS_SCRIPT)
    assert result["right"]
    assert result["grew_kib"] < 32 * 1024


FOREIGN_FAULT_SCRIPT = """
import ctypes, faulthandler
faulthandler.enable()
kernel = gpuvec.RawKernel('''
__global__ void k(float* out) { __syncthreads(); out[threadIdx.x] = 1; }''', "k")
kernel(np.zeros(32, np.float32), block=32)  # gpuvec's handlers are in place now
print("launched", flush=True)
ctypes.string_at(0)  # a fault of Python's own, not in gpuvec's guard pages
"""


def test_a_fault_outside_gpuvec_reaches_the_previous_handler():
    done = run_child(FOREIGN_FAULT_SCRIPT)
    assert "launched" in done.stdout
    assert done.returncode == -signal.SIGSEGV
    assert "Fatal Python error: Segmentation fault" in done.stderr  # faulthandler's
