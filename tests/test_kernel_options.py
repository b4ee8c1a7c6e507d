"""NVRTC's options, as course code gives them, work on both backends.

On a GPU NVRTC reads them; the host compiler gets their meaning
(``gpuvec/kernels/_options.py``): the preprocessor's options in its own
spelling, nothing for NVRTC's code-generation options.
"""

import numpy as np
import pytest

import gpuvec
from gpuvec.kernels._options import host_options


@pytest.mark.parametrize(
    ("nvrtc", "host"),
    [
        (["-std=c++11", "-lineinfo", "-G", "--use_fast_math"], []),
        (
            ["--define-macro=N=4", "-D", "M", "-DK=2", "--undefine-macro=X"],
            ["-DN=4", "-DM", "-DK=2", "-UX"],
        ),
        (["--include-path=inc", "-I", "other", "-Ithird"], ["-Iinc", "-Iother", "-Ithird"]),
        (["--pre-include=a.h", "-include", "b.h"], ["-include", "a.h", "-include", "b.h"]),
        (["-arch=sm_80", "-arch", "compute_90", "--gpu-architecture=sm_75"], []),
        (["-Xptxas", "-v", "--maxrregcount=32", "--ftz=true", "--diag-suppress=177"], []),
        (["--std=c++20", "-std=c++14", "-w", "--disable-warnings"], ["-std=c++20", "-w", "-w"]),
        (["-O3", "--not-an-option"], ["-O3", "--not-an-option"]),
    ],
)
def test_nvrtc_options_as_the_host_compiler_takes_them(nvrtc, host):
    assert host_options(nvrtc) == host


def test_a_kernel_with_course_options_runs(backend, rng, tmp_path):
    (tmp_path / "scale.cuh").write_text("#define SCALE 3.0f\n")
    source = r"""
#include "scale.cuh"
extern "C" __global__ void affine(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = SCALE * x[i] + OFFSET;
}
"""
    options = ("-std=c++11", "-lineinfo", "--define-macro=OFFSET=1.5f", "-I", str(tmp_path))
    kernel = gpuvec.RawKernel(source, "affine", options=options)
    n = int(rng.integers(1, 1000))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    kernel(((n + 127) // 128,), (128,), (x, y, np.int32(n)))
    np.testing.assert_array_equal(y, np.float32(3) * x + np.float32(1.5))


def test_an_option_nvrtc_does_not_know_fails_on_both_backends(backend):
    source = 'extern "C" __global__ void k(float* a) { a[0] = 1; }'
    with pytest.raises(gpuvec.CompileError):
        gpuvec.RawKernel(source, "k", options=("--not-an-option",))(
            (1,), (1,), (np.zeros(1, np.float32),)
        )
