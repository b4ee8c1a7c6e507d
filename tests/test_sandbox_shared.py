"""extern __shared__ memory that the launch did not give raises cudaErrorIllegalAddress.

The host emulation's dynamic shared memory ends at a guard page: with
shared_mem=0 the array is a non-null region of no bytes, and its first access
(or an access past the bytes the launch gave) raises CudaError
(cudaErrorIllegalAddress) naming extern __shared__ and shared_mem=, checked
(OutOfBoundsError, with the line) or not, instead of crashing or silently
using memory of an earlier launch. Each case runs in a child process.
"""

import pytest
from sandbox_support import child_result

SCRIPT = """
kernel = gpuvec.RawKernel('''
__global__ void reverse(float* x, int use) {{
    extern __shared__ float s[];
    int t = threadIdx.x;
    if (use) {{
        s[t] = x[blockIdx.x * blockDim.x + t];
        __syncthreads();
        x[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
    }}
}}''', "reverse")
x = np.random.default_rng({seed}).random(4 * {threads}, dtype=np.float32)
# An earlier launch that had shared memory: its storage must not be reused.
y = x.copy()
kernel(y, 1, grid=4, block={threads}, shared_mem=4 * {threads})
right = bool(np.array_equal(y, x.reshape(4, -1)[:, ::-1].ravel()))
z = x.copy()
error = failure(lambda: kernel(z, 1, grid=4, block={threads}, shared_mem={shared}, check={check}))
unused = failure(lambda: kernel(z, 0, grid=4, block={threads}, shared_mem=0, check={check}))
report(error=error, unused=unused, right=right)
"""


@pytest.mark.parametrize("check", [False, True], ids=["unchecked", "checked"])
@pytest.mark.parametrize("shared", [0, 64], ids=["none", "too-little"])
def test_dynamic_shared_memory_beyond_the_launch_raises(rng, shared, check):
    threads = 64
    script = SCRIPT.format(
        seed=int(rng.integers(2**32)), threads=threads, shared=shared, check=check
    )
    result = child_result(script)
    assert result["right"]
    assert result["unused"] is None, "declaring the array without using it is no fault"
    error = result["error"]
    assert error is not None, "the access beyond shared_mem raised nothing"
    # Checked, the array's index is checked against shared_mem: OutOfBoundsError,
    # a CudaError (and an IndexError) of the same name, naming the line.
    assert error["type"] == ("OutOfBoundsError" if check else "CudaError")
    assert error["name"] == "cudaErrorIllegalAddress"
    if check:
        assert "kernel.cu:6" in error["message"]
    assert "extern __shared__" in error["message"]
    assert f"shared_mem={shared}" in error["message"]


def test_dynamic_shared_memory_of_the_launch_works(rng):
    # The child compares the kernel's result with NumPy's on random data.
    threads = int(rng.choice([32, 128, 256]))
    script = SCRIPT.format(
        seed=int(rng.integers(2**32)), threads=threads, shared=4 * threads, check=False
    )
    result = child_result(script)
    assert result["right"]
    assert result["error"] is None
