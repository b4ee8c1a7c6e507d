"""Compile errors a student can read: the summary of NVRTC's and the host compiler's logs.

NVRTC's logs are literal samples (there is no NVRTC on a machine without a
GPU), in its exact format. The host compiler's logs are real: each test
compiles a broken kernel with every C++ compiler installed (GCC, Clang).
"""

import re

import pytest
from emulation_stub import available_compilers, require_compiler, stub_include_dir

from gpuvec.kernels import _host_compiler, _source
from gpuvec.kernels._compile_errors import summarize

# --- NVRTC ------------------------------------------------------------------------------------

DOUBLIFY_BROKEN = """\
__global__ void doublify(float* a)
{
    int idx = threadIdx.x + threadIdx.y * 4;
    int unused;
    a[idx] *= undefined_name;
}
"""

NVRTC_UNDEFINED = """\
cell_3.cu(5): error: identifier "undefined_name" is undefined
      a[idx] *= undefined_name;
                ^

1 error detected in the compilation of "cell_3.cu".
"""


def test_nvrtc_undefined_identifier():
    assert summarize(NVRTC_UNDEFINED, DOUBLIFY_BROKEN, "cell_3.cu", "nvrtc") == (
        'cell_3.cu, line 5: identifier "undefined_name" is undefined\n'
        "        a[idx] *= undefined_name;\n"
        "                  ^"
    )


NVRTC_SEVERAL = """\
cell_3.cu(4): warning #177-D: variable "unused" was declared but never referenced
      int unused;
          ^

Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"

cell_3.cu(5): error: identifier "undefined_name" is undefined
      a[idx] *= undefined_name;
                ^

cell_3.cu(6): error: expected a ";"
  }
  ^

cell_3.cu(3): error: identifier "idy" is undefined
      int idx = threadIdx.x + idy * 4;
                              ^

3 errors detected in the compilation of "cell_3.cu".
"""


def test_nvrtc_first_error_only_and_warnings_ignored():
    summary = summarize(NVRTC_SEVERAL, DOUBLIFY_BROKEN, "cell_3.cu", "nvrtc")
    assert summary.splitlines()[0] == 'cell_3.cu, line 5: identifier "undefined_name" is undefined'
    assert summary.endswith("\nand 2 more errors")
    assert "unused" not in summary
    assert "detected in the compilation" not in summary


PAIR_SOURCE = """\
struct Pair { float a, b; };

template <typename T, int N>
__global__ void scale(T* x)
{
    int i = threadIdx.x;
    x[i] = x[i] * N;
}

template __global__ void scale<Pair, 4>(Pair*);
"""

NVRTC_MORE_MESSAGE_AND_TRACE = """\
cell_3.cu(7): error: no operator "*" matches these operands
            operand types are: Pair * int
      x[i] = x[i] * N;
                  ^
          detected during instantiation of "void scale<T,N>(T *) [with T=Pair, N=4]" at line 10

1 error detected in the compilation of "cell_3.cu".
"""


def test_nvrtc_message_continues_and_no_identifier_means_no_caret():
    summary = summarize(NVRTC_MORE_MESSAGE_AND_TRACE, PAIR_SOURCE, "cell_3.cu", "nvrtc")
    assert summary == (
        'cell_3.cu, line 7: no operator "*" matches these operands '
        "(operand types are: Pair * int)\n"
        "        x[i] = x[i] * N;"
    )


HEADER_SOURCE = """\
#include "mul.cuh"
struct Pair { float a, b; };

template <typename T>
__global__ void square(T* x)
{
    x[threadIdx.x] = mul(x[threadIdx.x], x[threadIdx.x]);
}

template __global__ void square<Pair>(Pair*);
"""

NVRTC_IN_A_HEADER = """\
mul.cuh(3): error: no operator "*" matches these operands
            operand types are: Pair * Pair
      return a * b;
               ^
          detected during:
            instantiation of "T mul(T, T) [with T=Pair]" at line 7 of cell_3.cu
            instantiation of "void square(T *) [with T=Pair]" at line 10 of cell_3.cu

1 error detected in the compilation of "cell_3.cu".
"""


def test_nvrtc_error_in_a_header_is_shown_where_the_source_reaches_it():
    summary = summarize(NVRTC_IN_A_HEADER, HEADER_SOURCE, "cell_3.cu", "nvrtc")
    assert summary == (
        'cell_3.cu, line 7: no operator "*" matches these operands '
        "(operand types are: Pair * Pair)\n"
        "        x[threadIdx.x] = mul(x[threadIdx.x], x[threadIdx.x]);\n"
        "(the error is in mul.cuh, line 3, reached from this line)"
    )


NVRTC_CATASTROPHIC = """\
cell_3.cu(1): catastrophic error: cannot open source file "mul.cuh"
  #include "mul.cuh"
                    ^

1 catastrophic error detected in the compilation of "cell_3.cu".
Compilation terminated.
"""


def test_nvrtc_catastrophic_error():
    summary = summarize(NVRTC_CATASTROPHIC, HEADER_SOURCE, "cell_3.cu", "nvrtc")
    assert summary == (
        'cell_3.cu, line 1: cannot open source file "mul.cuh"\n    #include "mul.cuh"'
    )


def test_nvrtc_error_without_a_place():
    log = "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
    assert summarize(log, DOUBLIFY_BROKEN, "cell_3.cu", "nvrtc") == (
        "cell_3.cu did not compile: nvrtc: error: invalid value for --gpu-architecture (-arch)"
    )


def test_nvrtc_error_on_a_line_past_the_source():
    log = 'cell_3.cu(40): error: expected a "}"\n\n1 error detected in the compilation of "x".\n'
    assert summarize(log, "__global__ void k() {\n", "cell_3.cu", "nvrtc") == (
        'cell_3.cu, line 40: expected a "}"'
    )


# --- logs gpuvec cannot read ------------------------------------------------------------------


def test_linker_errors_keep_the_telling_line():
    log = (
        "/usr/bin/ld: cannot find -lmissing: No such file or directory\n"
        "collect2: error: ld returned 1 exit status\n"
    )
    assert summarize(log, "", "cell_3.cu", "host") == (
        "cell_3.cu did not compile: /usr/bin/ld: cannot find -lmissing: No such file or directory"
    )
    assert summarize("", "", "cell_3.cu", "host") == (
        "cell_3.cu did not compile: the compiler failed without a message"
    )


def test_caret_follows_tabs():
    log = "cell_3.cu:2:13: error: 'y' was not declared in this scope\n"
    source = "__global__ void k(float* x) {\n\tx[0] = 1 + y;\n}\n"
    assert summarize(log, source, "cell_3.cu", "host") == (
        "cell_3.cu, line 2: 'y' was not declared in this scope\n"
        "    \tx[0] = 1 + y;\n"
        "    \t           ^"  # under the y: the tab, then 11 characters
    )


# --- the host compiler's real logs ------------------------------------------------------------


@pytest.fixture(params=available_compilers() or ["c++"])
def compiler(request, monkeypatch):
    """Each installed C++ compiler in turn, as $CXX."""
    require_compiler(request.param)
    monkeypatch.setenv("CXX", request.param)
    return request.param


def host_summary(tmp_path, source, names=(), checked=False, text=None):
    """Compiles `source` for the host backend; returns the summary of the log, and the log."""
    if text is None:
        text, _ = _source.host_source(source, list(names), "cell_3.cu", checked)
    returncode, log = _host_compiler.compile_shared_library(
        text, "cell_3.cu", tmp_path / "k.so", (), stub_include_dir(tmp_path)
    )
    assert returncode != 0, "the broken source compiled"
    return summarize(log, source, "cell_3.cu", "host"), log


def assert_no_noise(summary):
    for noise in ("In function", "In file included", "note:", "required from", " | ", "|  "):
        assert noise not in summary


def test_host_undefined_name(tmp_path, compiler):
    summary, log = host_summary(tmp_path, DOUBLIFY_BROKEN, ["doublify"])
    first, code, caret = summary.splitlines()
    assert first.startswith("cell_3.cu, line 5: ")
    assert "undefined_name" in first
    assert code == "        a[idx] *= undefined_name;"
    assert caret.index("^") == code.index("undefined_name")
    assert "cell_3.cu:5:" in log  # the log speaks of the user's name and line
    assert_no_noise(summary)


def test_host_several_errors(tmp_path, compiler):
    source = "__global__ void k(float* a)\n{\n    a[0] = b;\n    a[1] = c;\n    a[2] = d;\n}\n"
    summary, _ = host_summary(tmp_path, source, ["k"])
    assert summary.startswith("cell_3.cu, line 3: ")
    assert summary.endswith("\nand 2 more errors")
    assert_no_noise(summary)


def test_host_missing_semicolon(tmp_path, compiler):
    source = "__global__ void k(float* a)\n{\n    a[0] = 1\n    a[1] = 2;\n}\n"
    summary, _ = host_summary(tmp_path, source, ["k"])
    assert re.match(r"cell_3\.cu, line 3: expected ';'", summary)
    assert summary.splitlines()[1] == "        a[0] = 1"
    assert summary.splitlines()[2].endswith("^")
    assert_no_noise(summary)


def test_host_error_in_a_template_instance(tmp_path, compiler):
    source = "template <typename T>\n__global__ void k(T* a)\n{\n    a[0] = a[1].nope;\n}\n"
    summary, _ = host_summary(tmp_path, source, ["k<float>"])
    assert summary.startswith("cell_3.cu, line 4: ")
    assert summary.splitlines()[1] == "        a[0] = a[1].nope;"
    assert_no_noise(summary)


def test_host_error_in_the_header_shows_the_line_that_reached_it(tmp_path, compiler):
    source = (
        "__global__ void total(const double* x, double* sum)\n"
        "{\n"
        "    double value = x[threadIdx.x];\n"
        "    atomicAdd(sum, value);\n"
        "}\n"
    )
    summary, _ = host_summary(tmp_path, source, ["total"], checked=False)
    lines = summary.splitlines()
    assert lines[0].startswith("cell_3.cu, line 4: ")
    assert "atomicAdd supports 32-bit types only" in lines[0]
    assert lines[1] == "        atomicAdd(sum, value);"
    assert re.fullmatch(
        r"\(the error is in gpuvec's CUDA emulation header, line \d+, reached from this line\)",
        lines[-1],
    )
    assert_no_noise(summary)


def test_host_error_in_the_generated_entries(tmp_path, compiler):
    source = "__global__ void k(float* a) { a[0] = 1; }\n"
    text = (
        '#include <gpuvec/cuda_emulation.h>\n#line 1 "cell_3.cu"\n'
        + source
        + '#line 1 "gpuvec-generated-entries"\nGPUVEC_EMULATION_KERNEL(gpuvec_entry_0, kk)\n'
    )
    summary, _ = host_summary(tmp_path, source, text=text)
    first, compiler_words = summary.splitlines()
    assert first == (
        "cell_3.cu: error in the kernel entries gpuvec generates, which gpuvec adds to it:"
    )
    assert compiler_words.startswith("gpuvec-generated-entries:1:")
    assert "'kk'" in compiler_words


def test_host_missing_include(tmp_path, compiler):
    source = '#include "mul.cuh"\n__global__ void k(float* a) { a[0] = 1; }\n'
    summary, _ = host_summary(tmp_path, source, ["k"])
    first, code, caret = summary.splitlines()
    assert first.startswith("cell_3.cu, line 1: ")
    assert "mul.cuh" in first
    assert code == '    #include "mul.cuh"'
    assert caret.endswith("^")


def test_host_errors_on_rewritten_lines_keep_their_numbers(tmp_path, compiler):
    # The extern __shared__ and checked-pointer rewrites keep every line on
    # its number: the error two lines below them is still on line 7.
    source = (
        "extern __shared__ float cache[];\n"
        "__global__ void k(float* __restrict__ out,\n"
        "                  const float* in)\n"
        "{\n"
        "    extern __shared__ int scratch[];\n"
        "    out[0] = in[0] + cache[0] + scratch[0];\n"
        "    out[1] = missing;\n"
        "}\n"
    )
    summary, _ = host_summary(tmp_path, source, ["k"], checked=True)
    assert summary.startswith("cell_3.cu, line 7: ")
    assert summary.splitlines()[1] == "        out[1] = missing;"


# --- the host compiler ------------------------------------------------------------------------


def test_missing_compiler_says_how_to_install_one(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    with pytest.raises(FileNotFoundError, match=r"apt install g\+\+"):
        _host_compiler.compile_shared_library("", "cell_3.cu", tmp_path / "k.so")
    with pytest.raises(FileNotFoundError, match="set CXX"):
        _host_compiler.compiler_id()


def test_compiler_command_and_id(monkeypatch):
    require_compiler("g++")
    monkeypatch.setenv("CXX", "  g++ -Wall ")
    assert _host_compiler.compiler_command() == ["g++", "-Wall"]
    assert re.search(r"\d+\.\d+", _host_compiler.compiler_id())
    monkeypatch.delenv("CXX")
    assert _host_compiler.compiler_command() == ["c++"]


def test_options_and_relative_include_paths(tmp_path, compiler, monkeypatch):
    # The compiler runs in the current folder: -Iinclude means ./include.
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "scale.cuh").write_text("#define SCALE 2.0f\n")
    monkeypatch.chdir(tmp_path)
    source = '#include "scale.cuh"\n__global__ void k(float* a) { a[0] = SCALE * OFFSET; }\n'
    text, _ = _source.host_source(source, ["k"], "cell_3.cu", checked=False)
    returncode, log = _host_compiler.compile_shared_library(
        text, "cell_3.cu", "k.so", ["-Iinclude", "-DOFFSET=1.0f"], stub_include_dir(tmp_path)
    )
    assert returncode == 0, log
    assert (tmp_path / "k.so").read_bytes()[:4] == b"\x7fELF"
