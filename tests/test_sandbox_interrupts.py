"""Ctrl-C and timeouts stop a kernel in the host emulation, even one that spins forever.

A thread that waits on a volatile flag that another thread of its block
sets works on a GPU, whose threads run at once; in the emulation, where a
block's threads take turns, it would spin forever. Ctrl-C (SIGINT) stops such
a launch within half a second with KeyboardInterrupt, and a timeout
(``timeout=`` of the launch, or GPUVEC_KERNEL_TIMEOUT) with CudaError
(cudaErrorLaunchTimeout); the process stays usable. Each case runs in a child
process.
"""

import json
import signal
import time

import pytest
from sandbox_support import child_result, start_child

# Thread 0 waits for a flag that thread 1 sets: as a plain loop, or with a
# barrier (fibers) that thread 0 never reaches.
SPINS = {
    "plain": """
__global__ void spin(int* flag) {
    volatile int* f = flag;
    if (threadIdx.x == 0) { while (f[0] == 0) {} } else { f[0] = 1; }
}""",
    "fibers": """
__global__ void spin(int* flag) {
    volatile int* f = flag;
    if (threadIdx.x == 0) { while (f[0] == 0) {} }
    __syncthreads();
    f[0] = 1;
}""",
}

# After the stop, a clean launch of another kernel.
AFTER = """
x = np.random.default_rng({seed}).random(1000, dtype=np.float32)
add = gpuvec.RawKernel('''
__global__ void add(const float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1.0f;
}}''', "add")
y = np.zeros_like(x)
add(x, y, x.size, grid=4, block=256)
usable = bool(np.array_equal(y, x + np.float32(1)))
"""

INTERRUPT_SCRIPT = (
    """
kernel = gpuvec.RawKernel('''{source}''', "spin")
print("ready", flush=True)
context = None
try:
    kernel(np.zeros(1, np.int32), grid={grid}, block=32)
    stopped = None
except KeyboardInterrupt as error:
    stopped = time.monotonic()
    context = repr(error.__context__)
"""
    + AFTER
    + """
# Python's own handler is back: a SIGINT now is a plain KeyboardInterrupt.
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(1)
    again = False
except KeyboardInterrupt:
    again = True
report(stopped=stopped, context=context, usable=usable, again=again)
"""
)


@pytest.mark.parametrize("grid", [1, 64], ids=["one-block", "many-blocks"])
@pytest.mark.parametrize("kind", sorted(SPINS))
def test_ctrl_c_stops_a_spinning_kernel(rng, kind, grid):
    script = INTERRUPT_SCRIPT.format(source=SPINS[kind], grid=grid, seed=int(rng.integers(2**32)))
    child = start_child(script)
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        time.sleep(0.5)  # the launch is spinning by now
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["stopped"] is not None, "the launch was not interrupted"
    assert result["stopped"] - sent < 0.5  # CLOCK_MONOTONIC: the same clock in both processes
    # A clean KeyboardInterrupt, not one raised while handling the launch's error.
    assert result["context"] == "None"
    assert result["usable"]
    assert result["again"]


TIMEOUT_SCRIPT = (
    """
kernel = gpuvec.RawKernel('''{source}''', "spin")
kernel(np.ones(1, np.int32), grid=1, block=32)  # compiled before the clock starts: a set flag
start = time.monotonic()
if {numba}:
    error = failure(lambda: kernel[{grid}, 32](np.zeros(1, np.int32), timeout={timeout}))
else:
    flag = np.zeros(1, np.int32)
    error = failure(lambda: kernel(flag, grid={grid}, block=32, timeout={timeout}))
took = time.monotonic() - start
left = os.environ.get("GPUVEC_KERNEL_TIMEOUT")
"""
    + AFTER
    + """
report(error=error, took=took, left=left, usable=usable)
"""
)


@pytest.mark.parametrize("numba", [False, True], ids=["call", "numba-style"])
@pytest.mark.parametrize("grid", [1, 64], ids=["one-block", "many-blocks"])
@pytest.mark.parametrize("kind", sorted(SPINS))
def test_timeout_stops_a_spinning_kernel(rng, kind, grid, numba):
    timeout = float(rng.uniform(0.2, 0.4))
    script = TIMEOUT_SCRIPT.format(
        source=SPINS[kind], grid=grid, timeout=timeout, numba=numba, seed=int(rng.integers(2**32))
    )
    result = child_result(script, timeout=120)
    error = result["error"]
    assert error is not None, "the spinning launch raised nothing"
    assert error["type"] == "CudaError"
    assert error["name"] == "cudaErrorLaunchTimeout"
    assert f"timeout of {timeout:g} s" in error["message"]
    assert timeout <= result["took"] < timeout + 2
    assert result["left"] is None  # the launch's timeout does not outlive it
    assert result["usable"]


ENVIRONMENT_SCRIPT = """
spin = gpuvec.RawKernel('''{spin}''', "spin")
ew = gpuvec.ElementwiseKernel(
    "float32 a", "float32 y", "volatile float z = a; while (z == 0) {{}} y = a", "waits")
red = gpuvec.ReductionKernel(
    "float32 x", "float32 y", "x", "a + b",
    "y = a; {{ volatile float z = a; while (z == 0) {{}} }}", "0", "waits_too")
zeros = np.zeros(300_000, np.float32)
# Compiled before the clock starts: the first call of each compiles it.
ew(zeros + 1)
red(zeros + 1)
errors, took = [], []
os.environ["GPUVEC_KERNEL_TIMEOUT"] = "{timeout}"
for call in (lambda: spin(np.zeros(1, np.int32), grid=8, block=32), lambda: ew(zeros),
             lambda: red(zeros)):
    start = time.monotonic()
    errors.append(failure(call))
    took.append(time.monotonic() - start)
del os.environ["GPUVEC_KERNEL_TIMEOUT"]
"""


def test_gpuvec_kernel_timeout_stops_every_kind_of_kernel(rng):
    timeout = float(rng.uniform(0.2, 0.4))
    script = (
        ENVIRONMENT_SCRIPT.format(spin=SPINS["plain"], timeout=timeout)
        + AFTER.format(seed=int(rng.integers(2**32)))
        + "report(errors=errors, took=took, usable=usable)\n"
    )
    result = child_result(script, timeout=300)
    for error, took in zip(result["errors"], result["took"], strict=True):
        assert error is not None, "a spinning call raised nothing"
        assert error["name"] == "cudaErrorLaunchTimeout"
        assert "GPUVEC_KERNEL_TIMEOUT" in error["message"]
        assert timeout <= took < timeout + 2
    assert result["usable"]


BAD_TIMEOUTS = """
kernel = gpuvec.RawKernel('__global__ void k(float* x) {{ x[threadIdx.x] = 1; }}', "k")
x = np.zeros(32, np.float32)
errors = [failure(lambda t=t: kernel(x, block=32, timeout=t)) for t in ({values})]
os.environ["GPUVEC_KERNEL_TIMEOUT"] = "soon"
errors.append(failure(lambda: kernel(x, block=32)))
report(errors=errors)
"""


def test_a_timeout_that_is_not_seconds_is_refused():
    values = ["'1s'", "True", "-1.0", "0", "float('nan')", "float('inf')"]
    result = child_result(BAD_TIMEOUTS.format(values=", ".join(values)))
    kinds = [e["type"] if e else None for e in result["errors"]]
    assert kinds == [
        "TypeError",
        "TypeError",
        "ValueError",
        "ValueError",
        "ValueError",
        "ValueError",
        "ValueError",
    ]
    assert all("timeout" in e["message"] for e in result["errors"][:-1])
    assert "GPUVEC_KERNEL_TIMEOUT" in result["errors"][-1]["message"]
    assert "'soon'" in result["errors"][-1]["message"]
