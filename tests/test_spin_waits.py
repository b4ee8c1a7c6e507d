"""A thread that spins on memory another thread changes finishes, as on GPUs since sm_70.

The host emulation runs a block's threads in turns. A thread that spins (an
atomic in a loop, a volatile read through a checked pointer, ``__nanosleep``)
lets the block's other threads run, so the flag it waits for gets set; a spin
that can never end (every other thread has returned or spins too, and no
block is left to write the memory) raises CudaError (cudaErrorLaunchTimeout)
at once, naming the kernel, the line and the thread, instead of hanging until
``timeout=``. The kernels that finish run on both backends, against NumPy.
"""

import time

import numpy as np
import pytest

import gpuvec
from gpuvec import CudaError, RaceError
from gpuvec.kernels._signature import uses_cooperation

# A launch that hangs (a regression) fails the test instead: the host
# backend stops it with a CudaError that names the timeout. A GPU ignores it.
SAFETY = 60


@pytest.fixture
def host():
    previous = gpuvec.set_backend("host")
    yield
    gpuvec.set_backend(previous)


# Thread 0 waits for a volatile flag that the last thread of its warp sets,
# after writing what thread 0 then copies (volatile too, so that the two
# threads' accesses are no race).
FLAG = """
__global__ void handoff(volatile int* flag, volatile float* box, const float* x, float* out) {
    int i = threadIdx.x;
    if (i == 0) {
        while (flag[0] == 0) {}
        out[0] = box[0];
    }
    if (i == 31) {
        box[0] = x[0];
        __threadfence();
        flag[0] = 1;
    }
}
"""


def test_a_thread_waits_for_a_volatile_flag_of_its_warp(backend, rng):
    kernel = gpuvec.RawKernel(FLAG, "handoff")
    x = rng.random(1, dtype=np.float32)
    flag, box, out = np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(1, np.float32)
    kernel(flag, box, x, out, grid=1, block=32, timeout=SAFETY)
    assert out[0] == x[0]
    assert flag[0] == 1


# A spin lock per block, around a plain read-modify-write.
LOCK = """
__global__ void locked_sums(int* locks, int* sums, const int* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (atomicCAS(&locks[blockIdx.x], 0, 1) != 0) {}
    __threadfence();
    volatile int* sum = &sums[blockIdx.x];
    *sum = *sum + x[i];
    __threadfence();
    atomicExch(&locks[blockIdx.x], 0);
}
"""


def test_a_spin_lock_per_block(backend, rng):
    kernel = gpuvec.RawKernel(LOCK, "locked_sums")
    blocks, threads = int(rng.integers(2, 6)), int(rng.choice([32, 64, 96]))
    x = rng.integers(-1000, 1000, blocks * threads).astype(np.int32)
    locks, sums = np.zeros(blocks, np.int32), np.zeros(blocks, np.int32)
    kernel(locks, sums, x, grid=blocks, block=threads, timeout=SAFETY)
    np.testing.assert_array_equal(sums, x.reshape(blocks, threads).sum(axis=1))
    np.testing.assert_array_equal(locks, 0)


@pytest.mark.parametrize("check", [True, False], ids=["checked", "unchecked"])
def test_a_spin_lock_in_either_mode_on_the_host(host, rng, check):
    kernel = gpuvec.RawKernel(LOCK, "locked_sums")
    x = rng.integers(-1000, 1000, 3 * 128).astype(np.int32)
    locks, sums = np.zeros(3, np.int32), np.zeros(3, np.int32)
    kernel(locks, sums, x, grid=3, block=128, check=check, timeout=SAFETY)
    np.testing.assert_array_equal(sums, x.reshape(3, 128).sum(axis=1))


# A barrier made of an atomic counter: every thread writes its value, counts
# itself in, waits until all have, then reads its neighbour's value.
COUNTER = """
__global__ void rotate(int* arrived, volatile float* staged, const float* x, float* out) {
    int t = threadIdx.x, n = blockDim.x;
    staged[t] = x[t];
    __threadfence();
    atomicAdd(&arrived[0], 1);
    while (atomicAdd(&arrived[0], 0) < n) {}
    out[t] = staged[(t + 1) % n];
}
"""


@pytest.mark.parametrize("threads", [2, 33, 256])
def test_a_barrier_of_atomics(backend, rng, threads):
    kernel = gpuvec.RawKernel(COUNTER, "rotate")
    x = rng.random(threads, dtype=np.float32)
    arrived, staged, out = np.zeros(1, np.int32), np.zeros_like(x), np.zeros_like(x)
    kernel(arrived, staged, x, out, grid=1, block=threads, timeout=SAFETY)
    np.testing.assert_array_equal(out, np.roll(x, -1))


# A sleepy wait on a flag in shared memory, which the last thread sets.
SLEEPY = """
__global__ void sleepy(const float* x, float* out) {
    __shared__ int ready[1];
    __shared__ float value[1];
    int t = threadIdx.x;
    if (t == 0) {
        ready[0] = 0;
        value[0] = 0.0f;
    }
    __syncthreads();
    if (t == blockDim.x - 1) {
        atomicExch(&value[0], x[blockIdx.x]);
        atomicExch(&ready[0], 1);
    }
    if (t == 0) {
        while (atomicAdd(&ready[0], 0) == 0) __nanosleep(100);
        out[blockIdx.x] = atomicAdd(&value[0], 0.0f);
    }
}
"""


def test_nanosleep_on_a_shared_flag(backend, rng):
    kernel = gpuvec.RawKernel(SLEEPY, "sleepy")
    blocks = int(rng.integers(1, 9))
    x = rng.random(blocks, dtype=np.float32)
    out = np.zeros_like(x)
    kernel(x, out, grid=blocks, block=64, timeout=SAFETY)
    np.testing.assert_array_equal(out, x)


# The "last block" reduction: each block adds up its part, and the block that
# takes the last ticket adds up the blocks' sums.
LAST_BLOCK = """
__global__ void total(const int* x, int* partial, unsigned int* tickets, int* result, int n) {
    __shared__ int sums[128];
    __shared__ int last[1];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sums[t] = i < n ? x[i] : 0;
    __syncthreads();
    if (t == 0) {
        int s = 0;
        for (int k = 0; k < blockDim.x; ++k) s += sums[k];
        partial[blockIdx.x] = s;
        __threadfence();
        last[0] = atomicInc(&tickets[0], gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last[0] && t == 0) {
        int s = 0;
        for (int b = 0; b < gridDim.x; ++b) s += ((volatile int*)partial)[b];
        result[0] = s;
    }
}
"""


def test_the_last_block_pattern(backend, rng):
    kernel = gpuvec.RawKernel(LAST_BLOCK, "total")
    n = int(rng.integers(1000, 20_000))
    x = rng.integers(-100, 100, n).astype(np.int32)
    blocks = (n + 127) // 128
    partial, tickets = np.zeros(blocks, np.int32), np.zeros(1, np.uint32)
    result = np.zeros(1, np.int32)
    kernel(x, partial, tickets, result, n, grid=blocks, block=128, timeout=SAFETY)
    assert result[0] == x.sum()


# Block 1 waits for a flag that block 0 sets: the blocks of a launch start in
# order, so this finishes on either backend (a GPU does not promise it, but
# runs two small blocks at once).
EARLIER_BLOCK = """
__global__ void relay(int* flag, const float* x, float* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = x[0];
        __threadfence();
        atomicExch(&flag[0], 1);
    }
    if (blockIdx.x == 1 && threadIdx.x == 0) {
        while (atomicAdd(&flag[0], 0) == 0) {}
        out[1] = x[1];
    }
}
"""


def test_a_block_waits_for_an_earlier_block(backend, rng):
    kernel = gpuvec.RawKernel(EARLIER_BLOCK, "relay")
    x = rng.random(2, dtype=np.float32)
    flag, out = np.zeros(1, np.int32), np.zeros(2, np.float32)
    kernel(flag, x, out, grid=2, block=32, timeout=SAFETY)
    np.testing.assert_array_equal(out, x)


# A thread that reads the same volatile value again and again, but gets
# somewhere each time, is no hopeless spin.
BUSY = """
__global__ void busy(volatile int* stop, const float* x, float* out, int n) {
    if (threadIdx.x != 0) return;
    float s = 0.0f;
    for (int k = 0; k < n; ++k) {
        if (stop[0]) break;
        s += x[k % 64];
    }
    out[0] = s;
}
"""


def test_a_long_loop_that_reads_a_flag_is_no_spin(host, rng):
    kernel = gpuvec.RawKernel(BUSY, "busy")
    x = rng.integers(0, 4, 64).astype(np.float32)  # sums exact in float32
    n = int(rng.integers(100_000, 200_000))
    stop, out = np.zeros(1, np.int32), np.zeros(1, np.float32)
    kernel(stop, x, out, n, grid=1, block=64, timeout=SAFETY)
    assert out[0] == np.resize(x, n).sum()


# --- spins that can never end ------------------------------------------------------------------

# Line 4: thread `who` waits for a flag that no thread sets.
NEVER = """
__global__ void never(int* flag, int who) {
    if (threadIdx.x == who) {
        while (atomicAdd(&flag[0], 0) == 0) {}
    }
}
"""

NEVER_VOLATILE = """
__global__ void never(volatile int* flag, int who) {
    if (threadIdx.x == who) {
        while (flag[0] == 0) {}
    }
}
"""


def _raises_at_once(call) -> CudaError:
    start = time.monotonic()
    with pytest.raises(CudaError) as caught:
        call()
    assert time.monotonic() - start < 10  # not the timeout
    assert caught.value.name == "cudaErrorLaunchTimeout"
    assert "timeout" not in str(caught.value)
    return caught.value


@pytest.mark.parametrize(
    ("source", "check"),
    [(NEVER, True), (NEVER, False), (NEVER_VOLATILE, True)],
    ids=["atomic-checked", "atomic-unchecked", "volatile-checked"],
)
def test_a_hopeless_spin_raises_at_once(host, rng, source, check):
    kernel = gpuvec.RawKernel(source, "never")
    threads = int(rng.integers(1, 129))
    who = int(rng.integers(threads))
    error = _raises_at_once(
        lambda: kernel(
            np.zeros(1, np.int32), who, grid=1, block=threads, check=check, timeout=SAFETY
        )
    )
    message = str(error)
    assert "kernel 'never'" in message
    assert "kernel.cu:4" in message
    assert f"thread ({who}, 0, 0) of block (0, 0, 0)" in message
    assert "can never finish" in message


def test_every_thread_spinning_on_a_lock_never_taken_back(host, rng):
    kernel = gpuvec.RawKernel(
        """
__global__ void greedy(int* lock) {
    while (atomicCAS(&lock[0], 0, 1) != 0) {}
}""",
        "greedy",
    )
    # The first thread takes the lock and returns without giving it back.
    error = _raises_at_once(
        lambda: kernel(
            np.zeros(1, np.int32), grid=int(rng.integers(1, 4)), block=64, timeout=SAFETY
        )
    )
    assert "kernel.cu:3" in str(error)


def test_a_block_waiting_for_a_block_that_cannot_start(host, rng):
    kernel = gpuvec.RawKernel(
        """
__global__ void waits(int* flag) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        while (atomicAdd(&flag[0], 0) == 0) {}
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicExch(&flag[0], 1);
}""",
        "waits",
    )
    # Two small blocks run one after the other on the host: block 0 waits
    # for the last one, which never starts.
    error = _raises_at_once(
        lambda: kernel(np.zeros(1, np.int32), grid=2, block=32, timeout=SAFETY)
    )
    message = str(error)
    assert "waits for another block" in message
    assert "kernel.cu:4" in message
    assert "1 of the launch's 2 blocks has not started" in message


def test_the_launch_after_a_hopeless_spin_runs(host, rng):
    kernel = gpuvec.RawKernel(NEVER, "never")
    with pytest.raises(CudaError):
        kernel(np.zeros(1, np.int32), 0, grid=4, block=32, timeout=SAFETY)
    flag = np.ones(1, np.int32)  # set: nothing waits
    kernel(flag, 0, grid=4, block=32, timeout=SAFETY)
    x = rng.random(100, dtype=np.float32)
    assert gpuvec.sum(x) == pytest.approx(float(x.sum(dtype=np.float64)), rel=1e-6)


# --- a yield is no barrier ---------------------------------------------------------------------


def test_a_race_around_a_spin_is_still_found(host):
    # Thread 31 writes s[0], then sets the flag; thread 0 reads s[0] after
    # the flag: no __syncthreads() between them, so checked mode reports it.
    kernel = gpuvec.RawKernel(
        """
__global__ void racy(int* flag, float* out) {
    __shared__ float s[1];
    __shared__ int ready[1];
    if (threadIdx.x == 0) ready[0] = 0;
    __syncthreads();
    if (threadIdx.x == 31) {
        s[0] = 2.0f;
        atomicExch(&ready[0], 1);
    }
    if (threadIdx.x == 0) {
        while (atomicAdd(&ready[0], 0) == 0) {}
        out[0] = s[0];
    }
}""",
        "racy",
    )
    with pytest.raises(RaceError, match="read-after-write") as caught:
        kernel(np.zeros(1, np.int32), np.zeros(1, np.float32), grid=1, block=32, timeout=SAFETY)
    assert "kernel.cu:13" in str(caught.value)
    assert "kernel.cu:8" in str(caught.value)


# --- which kernels run as fibers ---------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "__global__ void k(int* x) { while (atomicCAS(x, 0, 1) != 0) {} }",
        "__global__ void k(int* x, int v) { while (atomicAdd(x, 0) < v) {} }",
        "__global__ void k(int* x) { do {} while (atomicExch(x, 1)); }",
        "__global__ void k(int* x) { for (;;) { if (!atomicCAS(x, 0, 1)) break; } }",
        "__global__ void k(int* x) { __nanosleep(100); }",
        "__global__ void k(int* x) { __threadfence(); }",
        "__global__ void k(volatile int* x) { while (x[0] == 0) {} }",
    ],
)
def test_kernels_that_may_spin_run_as_fibers(source):
    assert uses_cooperation(source)


@pytest.mark.parametrize(
    "source",
    [
        "__global__ void k(int* x, int v) { x[v] = atomic_value(v); }",
        # An atomic that no loop waits on: a histogram keeps the fast loop.
        "__global__ void k(const int* v, int* bins) { atomicAdd(&bins[v[threadIdx.x]], 1); }",
        "__global__ void k(int* x) { for (int i = 0; i < 8; ++i) atomicAdd(x, i); }",
        # A volatile local is a plain load, which no fiber could hook.
        "__global__ void k(int* x) { volatile int* f = x; while (f[0] == 0) {} }",
    ],
)
def test_kernels_without_them_run_as_a_plain_loop(source):
    assert not uses_cooperation(source)
