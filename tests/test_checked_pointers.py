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


# --- an element is a plain reference: what nvcc compiles, checked mode compiles ------------------

# Each kernel uses an element of a written pointer as a T& or deduces T from
# it; each runs on both backends (checked on the host one) and must match
# NumPy. `f` is the kernel's name, `expected` NumPy's result from the inputs.
ELEMENT_USES = {
    "reference_local": (
        r"""
__global__ void f(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float& r = a[i];
    r += b[i];
    auto& x = a[i];
    x *= 2.0f;
}""",
        lambda a, b: (a + b) * 2,
    ),
    "swap_through_references": (
        r"""
template <class T> __device__ void exchange(T& x, T& y) { T t = x; x = y; y = t; }
__device__ void swap_floats(float& x, float& y) { float t = x; x = y; y = t; }
__global__ void f(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i + 1 >= n) return;
    exchange(a[2 * i], a[2 * i + 1]);
    if (b[i] > 0.0f) swap_floats(a[2 * i], a[2 * i + 1]);
}""",
        lambda a, b: _swapped_pairs(a, b),
    ),
    "min_max_and_templates": (
        r"""
template <class T> __device__ T smaller(T x, T y) { return y < x ? y : x; }
template <class T> __device__ const T& larger(const T& x, const T& y) { return x < y ? y : x; }
__global__ void f(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float hi = 0.0f, lo = 0.0f;
    if (i + 1 < n) {
        hi = max(a[i], b[i]) + fmaxf(a[i], 0.5f) + larger(a[i], b[i]);
        lo = min(a[i], a[i + 1]) + smaller(a[i], a[i + 1]) + fminf(a[i], b[i]);
    }
    __syncthreads();  // every thread has read a[i + 1] before thread i + 1 writes it
    if (i + 1 < n) a[i] = hi - lo;
}""",
        lambda a, b: _min_max(a, b),
    ),
    "device_function_takes_a_reference": (
        r"""
__device__ void clamp_in_place(float& x, float limit) { if (x > limit) x = limit; }
__device__ void add_to(float& x, const float& y) { x += y; }
__global__ void f(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    add_to(a[i], b[i]);
    clamp_in_place(a[i], 0.75f);
}""",
        lambda a, b: np.minimum(a + b, np.float32(0.75)),
    ),
    "float4_through_reinterpret_cast": (
        r"""
__global__ void f(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 >= n) return;
    float4 v = *reinterpret_cast<float4*>(&a[4 * i]);
    const float4 w = reinterpret_cast<const float4*>(b)[i];
    v.x += w.x; v.y += w.y; v.z += w.z; v.w += w.w;
    reinterpret_cast<float4*>(&a[4 * i])[0] = v;
}""",
        lambda a, b: np.concatenate([(a + b)[: len(a) // 4 * 4], a[len(a) // 4 * 4 :]]),
    ),
    "atomic_on_an_element": (
        r"""
__global__ void f(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&a[i % 4], b[i]);
    float* first = &a[0];
    if (i == 0) atomicAdd(first + 4, 1.0f);
}""",
        lambda a, b: _atomic_sums(a, b),
    ),
}


def _swapped_pairs(a, b):
    out = a.copy()
    pairs = len(a) // 2
    stay = b[:pairs] > 0  # swapped twice: back in place
    even, odd = a[0 : 2 * pairs : 2].copy(), a[1 : 2 * pairs : 2].copy()
    out[0 : 2 * pairs : 2] = np.where(stay, even, odd)
    out[1 : 2 * pairs : 2] = np.where(stay, odd, even)
    return out


def _min_max(a, b):
    out = a.copy()
    x, y, nxt = a[:-1], b[:-1], a[1:]
    hi = np.maximum(x, y) + np.maximum(x, np.float32(0.5)) + np.maximum(x, y)
    lo = np.minimum(x, nxt) * 2 + np.minimum(x, y)
    out[:-1] = hi - lo
    return out


def _atomic_sums(a, b):
    out = a.copy()
    for k in range(4):
        out[k] += b[k::4].sum(dtype=np.float64)
    out[4] += 1
    return out


def _aligned_floats(rng, n):
    """n random float32 whose first element is 16-byte aligned (a float4 load's)."""
    raw = np.empty(n + 4, np.float32)
    skip = (-raw.ctypes.data % 16) // 4
    out = raw[skip : skip + n]
    out[:] = rng.random(n, dtype=np.float32) - np.float32(0.5)
    return out


@pytest.mark.parametrize("use", sorted(ELEMENT_USES))
def test_element_used_as_a_reference_compiles_and_matches_numpy(backend, rng, use):
    source, expected = ELEMENT_USES[use]
    n = int(rng.integers(40, 600)) if use != "min_max_and_templates" else 256
    a, b = _aligned_floats(rng, n), _aligned_floats(rng, n)
    want = expected(a.copy(), b)
    block = 256 if use == "min_max_and_templates" else 64  # one block: its barrier orders it
    gpuvec.RawKernel(source, "f")(a, b, np.int32(n), grid=(n + block - 1) // block, block=block)
    np.testing.assert_allclose(a, want, rtol=1e-5, atol=1e-4)


@host_only
@pytest.mark.parametrize("use", sorted(ELEMENT_USES))
def test_element_used_as_a_reference_checked_and_unchecked_agree(backend, rng, use):
    source, _ = ELEMENT_USES[use]
    n = 256
    a, b = _aligned_floats(rng, n), _aligned_floats(rng, n)
    results = []
    for check in (True, False):
        out = _aligned_floats(rng, n)
        out[:] = a
        gpuvec.RawKernel(source, "f")(out, b, np.int32(n), grid=1, block=256, check=check)
        results.append(out)
    np.testing.assert_array_equal(results[0], results[1])


# A race through a write the source spells as an assignment is found however
# the element is reached; one through a reference is recorded as a read,
# which invents no race.
# An update (`++`, `+=`) reads the element first: the second thread's read
# meets the first one's write.
WRITES = {
    "increment": ("a[0]++;", "a[0]++", "read-after-write"),
    "prefix_decrement": ("--a[0];", "--a[0]", "read-after-write"),
    "shift_assign": ("c[0] <<= 1;", "c[0] <<= 1", "read-after-write"),
    "through_star": ("if (threadIdx.x < 2) *a = 1.0f;", "*a = 1.0f", "write-after-write"),
    "through_star_update": ("*c += 1;", "*c += 1", "read-after-write"),
}


@host_only
@pytest.mark.parametrize("case", sorted(WRITES))
def test_marked_write_races_are_found(backend, rng, case):
    statement, line, hazard = WRITES[case]
    source = f"""
__global__ void k(float* a, int* c) {{
    {statement}
}}"""
    threads = int(rng.integers(2, 65))
    a = np.zeros(4, np.float32)
    c = np.ones(4, np.int32)
    message = _raises(gpuvec.RaceError, source, "k", (a, c), line, grid=1, block=threads)
    assert f"global memory race ({hazard} hazard)" in message


@host_only
def test_reads_through_references_raise_nothing(backend, rng):
    source = r"""
__global__ void k(const float* x, float* a, float* out) {
    const float& shared_value = a[0];  // every thread reads a[0]; nobody writes it
    float& mine = out[threadIdx.x];
    mine = shared_value + x[threadIdx.x];
}"""
    threads = int(rng.integers(2, 65))
    x = rng.random(threads).astype(np.float32)
    a = rng.random(1).astype(np.float32)
    out = np.zeros(threads, np.float32)
    gpuvec.RawKernel(source, "k")(x, a, out, grid=1, block=threads, check=True)
    np.testing.assert_array_equal(out, a[0] + x)


# --- which blocks record races; every block checks bounds ----------------------------------------

LATE_RACE = r"""
__global__ void k(float* a, int racy_block) {
    if (blockIdx.x == racy_block) a[blockIdx.x] = threadIdx.x;
    else if (threadIdx.x == 0) a[blockIdx.x] = 1.0f;
}
"""


@host_only
@pytest.mark.parametrize("where", ["first", "last"])
def test_race_in_the_first_and_last_blocks_of_a_large_grid_is_found(backend, rng, where):
    blocks = int(rng.integers(1100, 1500))  # more than the 512 + 512 blocks recorded
    offset = int(rng.integers(0, 512))
    racy = offset if where == "first" else blocks - 1 - offset
    a = np.zeros(blocks, np.float32)
    message = _raises(
        gpuvec.RaceError, LATE_RACE, "k", (a, np.int32(racy)), "threadIdx.x;", grid=blocks, block=8
    )
    assert f"block ({racy}, 0, 0)" in message


@host_only
def test_race_in_a_middle_block_of_a_large_grid_is_not_recorded(backend, rng):
    blocks = int(rng.integers(1100, 1500))
    racy = int(rng.integers(512, blocks - 512))
    a = np.zeros(blocks, np.float32)
    gpuvec.RawKernel(LATE_RACE, "k")(a, np.int32(racy), grid=blocks, block=8, check=True)
    assert a[racy] == 7  # the emulation's order: the last thread's write stays


@host_only
def test_bounds_are_checked_in_every_block(backend, rng):
    source = r"""
__global__ void k(float* a, int bad_block) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i + (blockIdx.x == bad_block ? 1 << 20 : 0)] = 1.0f;
}"""
    blocks = int(rng.integers(1100, 1500))
    bad = int(rng.integers(512, blocks - 512))
    a = np.zeros(blocks * 8, np.float32)
    message = _raises(
        gpuvec.OutOfBoundsError, source, "k", (a, np.int32(bad)), "a[i +", grid=blocks, block=8
    )
    assert f"block ({bad}, 0, 0)" in message


# --- a failed assert names the function as written -----------------------------------------------

ASSERTING = r"""
#include <assert.h>
__device__ float checked_first(const float* v, int n) {
    assert(n > 0);
    return v[0];
}
__global__ void block_sums(const float* x, float* out, int n) {
    assert(x[threadIdx.x] >= 0.0f);
    out[threadIdx.x] = checked_first(x, n);
}
"""


@host_only
@pytest.mark.parametrize("where", ["kernel", "device_function"])
def test_failed_assert_names_the_users_function(backend, rng, where):
    x = rng.random(8).astype(np.float32)
    n = 8
    if where == "kernel":
        x[int(rng.integers(0, 8))] = -1.0
    else:
        n = 0
    kernel = gpuvec.RawKernel(ASSERTING, "block_sums", source_name="asserting.cu")
    with pytest.raises(gpuvec.CudaError) as info:
        kernel(x, np.zeros(8, np.float32), np.int32(n), grid=1, block=8, check=True)
    message = str(info.value)
    assert info.value.name == "cudaErrorAssert", message
    assert "gpuvec_checked" not in message, message
    if where == "kernel":
        expected = "void block_sums(const float*, float*, int): Assertion `x[threadIdx.x] >= 0.0f'"
        line = _line_of(ASSERTING, "assert(x[")
    else:
        expected = "float checked_first(const float*, int): Assertion `n > 0'"
        line = _line_of(ASSERTING, "assert(n > 0)")
    assert expected in message, message
    assert f"asserting.cu:{line}" in message, message


def test_rewrite_marks_writes_and_addresses():
    source = r"""
__device__ float first(void) { float a[2] = {0, 1}; return a[0]; }
__global__ void k(float* a, const float* b, int* c, float4* v) {
    __shared__ float s[8];
    a[0] = b[1]; a[1] += 2; ++a[2]; a[3]--; c[0] <<= 1; a[4] == b[0]; a[5] <= b[0];
    float* p = &a[6]; *p = 1; atomicAdd(&c[1], 1); atomicAdd(&s[0], 1.0f); s[1] = 2;
    float4 w = *reinterpret_cast<float4*>(&a[8]); float r = (float)*p * a[1];
}
"""
    text, _ = host_source(source, ["k"], "w.cu", checked=True)
    body = text.split('#line 1 "w.cu"\n', 1)[1].split("#line 1", 1)[0]
    assert body.count("\n") == source.count("\n") + 1  # every line where it was
    for expected in (
        "float a[2] = {0, 1};",  # a declaration (of another `a`), not a write
        "a[gpuvec_emu::WriteIndex((0))] = b[1];",
        "a[gpuvec_emu::UpdateIndex((1))] += 2;",
        "++a[gpuvec_emu::UpdateIndex((2))];",
        "a[gpuvec_emu::UpdateIndex((3))]--;",
        "c[gpuvec_emu::UpdateIndex((0))] <<= 1;",
        "a[4] == b[0]; a[5] <= b[0];",  # comparisons read
        "gpuvec_checked<float> p = (a + (6)); p[gpuvec_emu::WriteIndex(0)] = 1;",
        "atomicAdd((c + (1)), 1); atomicAdd(&s[0], 1.0f); s[1] = 2;",  # shared: its own checks
        "*gpuvec_reinterpret_cast<float4*>((a + (8)));",
        "float r = (float)*p * a[1];",  # a cast's operand, and a product, are no writes
    ):
        assert expected in body, body
