"""Checked mode follows pointers derived from kernel parameters and finds global memory races.

A pointer computed from a checked parameter (``float* p = a + 8;``, a row
pointer, a ``p++`` loop, a ``__device__`` function's parameter) stays
checked: an index outside the argument's array raises OutOfBoundsError
naming the parameter it came from and the line. Within a block, two threads
that access one element of global memory, one of them writing, with no
barrier between (and not both atomically) raise RaceError. Correct kernels
(each thread its own element, grid-stride loops, reads of shared inputs,
atomics, accesses ordered by __syncthreads) raise nothing and match NumPy on
both backends.
"""

import re

import numpy as np
import pytest

import gpuvec
from gpuvec.kernels._source import host_source

host_only = pytest.mark.parametrize("backend", ["host"], indirect=True)


def _line_of(source, text):
    """The 1-based line of `source` that holds `text`."""
    return next(k for k, line in enumerate(source.splitlines(), 1) if text in line)


def _raises(error, source, name, args, text, **launch):
    """The message of the `error` that launching `name` checked raises at `text`'s line."""
    kernel = gpuvec.RawKernel(source, name, source_name=f"{name}.cu")
    with pytest.raises(error) as info:
        kernel(*args, **launch, check=True)
    message = str(info.value)
    assert f"{name}.cu:{_line_of(source, text)}" in message, message
    assert f"kernel '{name}'" in message, message
    assert re.search(r"thread \(\d+, \d+, \d+\)", message), message
    return message


# --- derived pointers stay checked ---------------------------------------------------------------

OFFSET = r"""
__global__ void offset(float* a, int start) {
    float* p = a + start;
    p[threadIdx.x] = 1.0f;
}
"""


@host_only
def test_pointer_offset_from_a_parameter_is_checked(backend, rng):
    n = int(rng.integers(6, 40))
    a = rng.random(n).astype(np.float32)
    before = a.copy()
    message = _raises(
        gpuvec.OutOfBoundsError,
        OFFSET,
        "offset",
        (a, np.int32(n - 2)),
        "p[threadIdx.x]",
        grid=1,
        block=8,
    )
    # Thread 2 is the first past the end: index n of `a`, from which p came.
    assert f"index {n} is out of bounds for parameter 'a' of length {n}" in message
    assert "thread (2, 0, 0)" in message
    np.testing.assert_array_equal(a[: n - 2], before[: n - 2])  # nothing outside was written


ROW = r"""
__global__ void row_sums(const float* A, float* sums, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = A + r * cols;
    float s = 0.0f;
    for (int c = 0; c <= cols; ++c) s += row[c];
    sums[r] = s;
}
"""


@host_only
def test_row_pointer_past_the_matrix_is_checked(backend, rng):
    rows, cols = int(rng.integers(2, 9)), int(rng.integers(2, 9))
    A = rng.random((rows, cols)).astype(np.float32)
    sums = np.zeros(rows, np.float32)
    message = _raises(
        gpuvec.OutOfBoundsError,
        ROW,
        "row_sums",
        (A, sums, np.int32(rows), np.int32(cols)),
        "s += row[c]",
        grid=1,
        block=32,
    )
    # Only the last row's reach past its end leaves the matrix: rows * cols.
    assert f"index {rows * cols} is out of bounds for parameter 'A'" in message


INCREMENT = r"""
__global__ void total(const float* x, float* out, int n) {
    float s = 0.0f;
    for (const float* p = x; p != x + n; p++) s += *p;
    out[threadIdx.x] = s;
}
"""


@host_only
def test_incremented_pointer_is_checked(backend, rng):
    n = int(rng.integers(3, 50))
    x = rng.random(n).astype(np.float32)
    out = np.zeros(1, np.float32)
    kernel = gpuvec.RawKernel(INCREMENT, "total")
    kernel(x, out, np.int32(n), grid=1, block=1)
    np.testing.assert_allclose(out, [x.sum(dtype=np.float64)], rtol=1e-5)
    with pytest.raises(gpuvec.OutOfBoundsError, match=f"index {n}.*'x'|'x'.*index {n}"):
        kernel(x, out, np.int32(n + 1), grid=1, block=1, check=True)


DEVICE = r"""
__device__ void put(float* out, int i, float v) {
    out[i] = v;
}
__device__ float get(const float* in, int i) { return in[i]; }
__global__ void shifted(const float* x, float* y, int shift) {
    int i = threadIdx.x;
    put(y, i + shift, get(x, i));
}
"""


@host_only
def test_device_function_parameter_is_checked(backend, rng):
    n = int(rng.integers(4, 30))
    x = rng.random(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    message = _raises(
        gpuvec.OutOfBoundsError,
        DEVICE,
        "shifted",
        (x, y, np.int32(1)),
        "out[i] = v",
        grid=1,
        block=n,
    )
    assert f"index {n} is out of bounds for parameter 'y'" in message
    assert f"thread ({n - 1}, 0, 0)" in message


# --- races on global memory within a block -------------------------------------------------------

RACES = {
    "read_modify_write": (
        r"""
__global__ void k(float* a) {
    int i = threadIdx.x;
    if (i > 0) a[0] += a[i];
}""",
        "a[0] += a[i]",
        "read-after-write",
        "a[0]",
    ),
    "same_element_written": (
        r"""
__global__ void k(float* a) {
    a[0] = threadIdx.x;
}""",
        "a[0] = threadIdx.x",
        "write-after-write",
        "a[0]",
    ),
    "shift_in_place": (
        r"""
__global__ void k(float* a) {
    int i = threadIdx.x;
    float next = a[i + 1];
    a[i] = next;
}""",
        "a[i] = next",
        "write-after-read",
        "a[1]",
    ),
    "atomic_and_plain": (
        r"""
__global__ void k(float* a) {
    if (threadIdx.x == 0) a[0] = 1.0f;
    else atomicAdd(&a[0], 1.0f);
}""",
        "atomicAdd(&a[0], 1.0f)",
        "write-after-write",
        "a[0]",
    ),
    "through_a_derived_pointer": (
        r"""
__global__ void k(float* a) {
    float* last = a + (blockDim.x - 1);
    if (threadIdx.x == 0) *last = 0.0f;
    float v = a[blockDim.x - 1];
    a[threadIdx.x] = v;
}""",
        "float v = a[blockDim.x - 1]",
        "read-after-write",
        "a[",
    ),
    "in_a_device_function": (
        r"""
__device__ void bump(int* counter) { counter[0] = counter[0] + 1; }
__global__ void k(int* counts) {
    bump(counts);
}""",
        "counter[0] = counter[0] + 1",
        "read-after-write",
        "counts[0]",
    ),
}


@host_only
@pytest.mark.parametrize("case", sorted(RACES))
def test_global_race_within_a_block_raises(backend, rng, case):
    source, line, hazard, element = RACES[case]
    threads = int(rng.integers(3, 65))  # read_modify_write needs two threads past thread 0
    dtype = np.int32 if "int*" in source else np.float32
    a = np.zeros(threads + 1, dtype)
    message = _raises(gpuvec.RaceError, source, "k", (a,), line, grid=2, block=threads)
    assert f"global memory race ({hazard} hazard)" in message
    assert f" on {element}" in message
    assert "block (0, 0, 0)" in message


@host_only
def test_global_race_unchecked_is_not_looked_for(backend, rng):
    a = rng.random(9).astype(np.float32)
    gpuvec.RawKernel(RACES["read_modify_write"][0], "k")(a, grid=1, block=8, check=False)


# --- no false alarms -----------------------------------------------------------------------------

CORRECT = r"""
__device__ float twice(const float* v, int i) { return 2.0f * v[i]; }
__device__ void store(float* out, int i, float v) { out[i] = v; }

__global__ void correct(float* x, float* y, float* sum, float* out, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    // Grid-stride: each thread its own elements; it reads what it wrote.
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        y[i] = x[i] + x[0];        // many threads read x[0], which nobody writes
        y[i] = y[i] * 2.0f;
        atomicAdd(&sum[0], x[i]);  // atomics do not race with each other
    }
    // A raw pointer into shared memory, and a row pointer into global memory.
    float* s = tile;
    s[t] = twice(x, blockIdx.x * blockDim.x + t < n ? blockIdx.x * blockDim.x + t : 0);
    __syncthreads();
    float* mine = out + blockIdx.x * blockDim.x;
    if (t == 0) mine[0] = 0.0f;
    __syncthreads();  // thread 0's write before the others' reads
    float zero = mine[0];
    __syncthreads();  // the reads before thread 0's next write
    if (blockIdx.x * blockDim.x + t < n) store(mine, t, s[blockDim.x - 1 - t] + zero);
}
"""


@pytest.mark.parametrize("check", [None, True], ids=["default", "checked"])
def test_correct_kernel_raises_nothing(backend, rng, check):
    if check and backend == "cuda":
        pytest.skip("the checked run is the host emulation's")
    blocks, threads = int(rng.integers(1, 5)), 256
    n = blocks * threads - int(rng.integers(0, 100))
    x = rng.random(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    total = np.zeros(1, np.float32)
    out = np.zeros(blocks * threads, np.float32)
    kernel = gpuvec.RawKernel(CORRECT, "correct")
    kernel(x, y, total, out, np.int32(n), grid=blocks, block=threads, check=check)
    np.testing.assert_allclose(y, (x + x[0]) * 2, rtol=1e-6)
    np.testing.assert_allclose(total, [x.sum(dtype=np.float64)], rtol=1e-4)
    padded = np.zeros(blocks * threads, np.float32)
    padded[:n] = 2 * x
    padded[n:] = 2 * x[0]
    expected = padded.reshape(blocks, threads)[:, ::-1].ravel()
    np.testing.assert_allclose(out[:n], expected[:n], rtol=1e-6)


SWAP = r"""
__global__ void reverse(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        auto t = a[i];         // a copy of the value, as with a raw pointer
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
}
"""


def test_element_copied_with_auto_keeps_its_value(backend, rng):
    n = int(rng.integers(2, 600))
    a = rng.random(n).astype(np.float32)
    expected = a[::-1].copy()
    gpuvec.RawKernel(SWAP, "reverse")(a, np.int32(n), grid=(n + 127) // 128, block=128)
    np.testing.assert_array_equal(a, expected)


# --- the source rewrite --------------------------------------------------------------------------

REWRITTEN = r"""
struct Span { float* data; int n; };
__device__ float first(const float* x) { return x[0]; }
template <class T> __device__ T deduced(const T* x) { return x[0]; }
template <class T>
__global__ void k(T* out, const float* A, int cols) {
    const float* __restrict__ row = A + cols;
    float *p = out, *q = out + 1;
    float* const fixed = out;
    volatile float* flag = out;
    T* typed = out;
    float x = 0.0f, *px = &x;
    for (float* it = out; it != out + cols; ++it) *it = first(row);
}
"""


def test_rewrite_of_derived_pointers():
    text, _ = host_source(REWRITTEN, ["k<float>"], "r.cu", checked=True)
    body = text.split('#line 1 "r.cu"\n', 1)[1].split("#line 1", 1)[0]
    assert body.count("\n") == REWRITTEN.count("\n") + 1  # every line where it was
    for expected in (
        "struct Span { float* data; int n; };",  # a struct's layout stays
        "__device__ float first(gpuvec_checked<const float> x)",
        "__device__ T deduced(const T* x)",  # deduced: left as written
        "gpuvec_checked<const float> row = A + cols;",
        "gpuvec_checked<float> p = out, q = out + 1;",
        "gpuvec_checked<float> const fixed = out;",
        "volatile float* flag = out;",  # a raw volatile access, for spin-waits
        "gpuvec_checked<T> typed = out;",
        "float x = 0.0f, *px = &x;",  # not all pointers: left as written
        "for (gpuvec_checked<float> it = out;",
    ):
        assert expected in body, body
    unchecked, _ = host_source(REWRITTEN, ["k<float>"], "r.cu", checked=False)
    assert "gpuvec_checked" not in unchecked
