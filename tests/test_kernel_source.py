"""Users' kernels as source: their signatures, and the text each backend compiles.

These tests need no GPU and no compiled kernels: they read and rewrite
source text, and (where a C++ compiler is installed) check that the host
text compiles against a stand-in for the emulation header.
"""

import re

import numpy as np
import pytest
from emulation_stub import require_compiler, stub_include_dir
from hypothesis import given
from hypothesis import strategies as st

from gpuvec.kernels import _host_compiler, _signature, _source
from gpuvec.kernels._signature import bind, find_kernel, parse_kernels, uses_cooperation

# --- the classic tutorial kernels -------------------------------------------------------------

DOUBLIFY = """
__global__ void doublify(float *a)
{
  int idx = threadIdx.x + threadIdx.y*4;
  a[idx] *= 2;
}
"""

SAXPY = """
__global__
void saxpy(int n, float a, float * __restrict__ x, float * __restrict__ y)
{
  int i = blockIdx.x*blockDim.x + threadIdx.x;
  if (i < n) y[i] = a*x[i] + y[i];
}
"""

VECADD = """
extern "C" __global__ void vecAdd(const float* A, const float* B, float* C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}
"""

# CUDA's reduction sample (reduce6), with its template block size.
REDUCE6 = """
template <unsigned int blockSize>
__global__ void reduce6(int *g_idata, int *g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x*(blockSize*2) + tid;
    unsigned int gridSize = blockSize*2*gridDim.x;
    sdata[tid] = 0;
    while (i < n) { sdata[tid] += g_idata[i] + g_idata[i+blockSize]; i += gridSize; }
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""

TRANSPOSE = """
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeCoalesced(float *odata, const float *idata)
{
  __shared__ float tile[TILE_DIM][TILE_DIM+1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*width + x];
  __syncthreads();
}
"""


@pytest.mark.parametrize(
    ("source", "expected", "dtypes", "const"),
    [
        (DOUBLIFY, "doublify(float* a)", ["float32"], [False]),
        (
            SAXPY,
            "saxpy(int n, float a, float* __restrict__ x, float* __restrict__ y)",
            ["int32", "float32", "float32", "float32"],
            [False] * 4,
        ),
        (
            VECADD,
            "vecAdd(const float* A, const float* B, float* C, int numElements)",
            ["float32", "float32", "float32", "int32"],
            [True, True, False, False],
        ),
        (
            REDUCE6,
            "reduce6(int* g_idata, int* g_odata, unsigned int n)",
            ["int32", "int32", "uint32"],
            [False] * 3,
        ),
        (
            TRANSPOSE,
            "transposeCoalesced(float* odata, const float* idata)",
            ["float32", "float32"],
            [False, True],
        ),
    ],
)
def test_classic_kernels(source, expected, dtypes, const):
    (kernel,) = parse_kernels(source)
    assert str(kernel) == expected
    assert [str(p.dtype) for p in kernel.parameters] == dtypes
    assert [p.is_const for p in kernel.parameters] == const
    assert kernel.is_definition


def test_classic_kernel_details():
    (saxpy,) = parse_kernels(SAXPY)
    x = saxpy.parameters[2]
    assert (x.name, x.c_type, x.base_type, x.is_pointer, x.qualifiers) == (
        "x",
        "float*",
        "float",
        True,
        ("__restrict__",),
    )
    assert saxpy.line == 3  # the line of its name, not of __global__
    assert not saxpy.is_extern_c
    assert not saxpy.is_template
    (vecadd,) = parse_kernels(VECADD)
    assert vecadd.is_extern_c
    (reduce6,) = parse_kernels(REDUCE6)
    assert reduce6.is_template
    assert reduce6.template_parameters == (
        _signature.TemplateParameter("blockSize", "value", "unsigned int"),
    )


# --- types ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("c_type", "dtype"),
    [
        ("float", "float32"),
        ("double", "float64"),
        ("int", "int32"),
        ("signed", "int32"),
        ("signed int", "int32"),
        ("int32_t", "int32"),
        ("std::int32_t", "int32"),
        ("unsigned", "uint32"),
        ("unsigned int", "uint32"),
        ("uint32_t", "uint32"),
        ("long", "int64"),
        ("long int", "int64"),
        ("long long", "int64"),
        ("long long int", "int64"),
        ("int64_t", "int64"),
        ("ptrdiff_t", "int64"),
        ("ssize_t", "int64"),
        ("unsigned long", "uint64"),
        ("unsigned long long", "uint64"),
        ("uint64_t", "uint64"),
        ("size_t", "uint64"),
        ("short", "int16"),
        ("short int", "int16"),
        ("int16_t", "int16"),
        ("unsigned short", "uint16"),
        ("uint16_t", "uint16"),
        ("char", "int8"),
        ("signed char", "int8"),
        ("int8_t", "int8"),
        ("unsigned char", "uint8"),
        ("uint8_t", "uint8"),
        ("bool", "bool"),
    ],
)
def test_dtypes_of_values_and_pointers(c_type, dtype):
    (kernel,) = parse_kernels(f"__global__ void k({c_type} v, const {c_type}* p) {{}}")
    value, pointer = kernel.parameters
    assert value.dtype == np.dtype(dtype)
    assert pointer.dtype == np.dtype(dtype)
    assert pointer.is_pointer
    assert not value.is_pointer


@pytest.mark.parametrize(
    "declaration", ["float2 v", "struct Pair p", "Pair* p", "float** pp", "__half h", "void* v"]
)
def test_types_gpuvec_cannot_pass_have_no_dtype(declaration):
    (kernel,) = parse_kernels(f"__global__ void k({declaration}) {{}}")
    assert kernel.parameters[0].dtype is None


def test_half_pointers_are_float16():
    (kernel,) = parse_kernels("__global__ void k(__half* a, const half* b) {}")
    assert [p.dtype for p in kernel.parameters] == [np.dtype(np.float16)] * 2


@pytest.mark.parametrize(
    ("declaration", "is_const", "c_type"),
    [
        ("const float* p", True, "const float*"),
        ("float const* p", True, "float const*"),
        ("float const * p", True, "float const*"),
        ("const float* const p", True, "const float* const"),
        ("float* const p", False, "float* const"),  # the pointer is const, not its data
        ("float* p", False, "float*"),
        ("volatile float* p", False, "volatile float*"),
    ],
)
def test_const_placement(declaration, is_const, c_type):
    (kernel,) = parse_kernels(f"__global__ void k({declaration}) {{}}")
    parameter = kernel.parameters[0]
    assert (parameter.is_const, parameter.c_type, parameter.name) == (is_const, c_type, "p")


def test_unusual_parameter_forms():
    (kernel,) = parse_kernels(
        "__global__ void k(float*, int, float a[], const __grid_constant__ int g, int n = 4) {}"
    )
    unnamed_pointer, unnamed_int, array, grid_constant, defaulted = kernel.parameters
    assert (unnamed_pointer.name, unnamed_pointer.c_type) == ("", "float*")
    assert (unnamed_int.name, unnamed_int.dtype) == ("", np.dtype(np.int32))
    assert (array.name, array.is_pointer, array.dtype) == ("a", True, np.dtype(np.float32))
    assert grid_constant.qualifiers == ("__grid_constant__",)
    assert grid_constant.is_const
    assert (defaulted.name, str(defaulted)) == ("n", "int n")
    (no_parameters,) = parse_kernels("__global__ void k(void) {}")
    assert no_parameters.parameters == ()
    assert str(no_parameters) == "k()"


# --- finding kernels ----------------------------------------------------------------------------


def test_comments_strings_and_directives_are_not_kernels():
    source = r"""
    // __global__ void in_a_line_comment(int x) {}
    /* __global__ void in_a_block_comment(int x) {}
       __global__ void still_in_it(int x) {} */
    #define DECLARE __global__ void in_a_macro(int x)
    #define LONG_MACRO(x) \
        __global__ void in_a_continued_macro(int x) {}
    const char* text = "__global__ void in_a_string(int x) {}";
    const char* raw = R"(__global__ void in_a_raw_string(int x) {})";
    char quote = '"'; int million = 1'000'000;
    __global__ void real(int /* a comment inside */ x, // and another
                         float* y) {}
    """
    (kernel,) = parse_kernels(source)
    assert str(kernel) == "real(int x, float* y)"


def test_offsets_point_into_the_original_source():
    source = "/* a comment */ __global__ void k(\n    const float* in, // why\n    int n) {}"
    (kernel,) = parse_kernels(source)
    start, stop = kernel.parameters_span
    assert source[start:stop] == "\n    const float* in, // why\n    int n"
    start, stop = kernel.parameters[0].span
    assert source[start:stop] == "const float* in"
    assert kernel.line == 1


@pytest.mark.parametrize(
    "declaration",
    [
        "__global__ void __launch_bounds__(256) k(float* a)",
        "__global__ void __launch_bounds__(256, 2) k(float* a)",
        "__launch_bounds__(1024) __global__ void k(float* a)",
        "static __global__ void k(float* a)",
        "__global__ static void k(float* a)",
        "static __forceinline__ __global__ void k(float* a)",
        '\nextern "C"\n__global__\nvoid\n__launch_bounds__(128)\nk(\nfloat* a\n)',
    ],
)
def test_declaration_forms(declaration):
    (kernel,) = parse_kernels(declaration + " { a[0] = 1; }")
    assert str(kernel) == "k(float* a)"
    assert kernel.is_extern_c == ("extern" in declaration)


def test_extern_c_blocks_and_namespaces():
    source = """
    extern "C" {
    __global__ void in_block(float* a) {}
    }
    namespace outer { namespace inner {
    __global__ void nested(float* a) {}
    } }
    namespace { __global__ void anonymous(float* a) {} }
    __global__ void plain(float* a) {}
    """
    kernels = {k.name: k for k in parse_kernels(source)}
    assert kernels["in_block"].is_extern_c
    assert not kernels["plain"].is_extern_c
    assert not kernels["nested"].is_extern_c
    assert kernels["nested"].qualified_name == "outer::inner::nested"
    assert kernels["anonymous"].qualified_name == "anonymous"
    assert find_kernel(parse_kernels(source), "nested").expression == "outer::inner::nested"
    assert find_kernel(parse_kernels(source), "outer::inner::nested").name == "nested"


def test_declarations_and_definitions():
    source = """
    __global__ void k(float* a, int n);
    __global__ void k(float* a, int n) { a[0] = n; }
    """
    declaration, definition = parse_kernels(source)
    assert not declaration.is_definition
    assert definition.is_definition
    assert find_kernel([declaration, definition], "k") is definition


def test_unknown_kernel_names_the_known_ones():
    kernels = parse_kernels(DOUBLIFY + SAXPY)
    with pytest.raises(
        ValueError, match=r"no __global__ function named 'doubify'.*doublify, saxpy"
    ):
        find_kernel(kernels, "doubify")


# --- templates -------------------------------------------------------------------------------

SCALE = """
template <typename T, int N>
__global__ void scale(T* __restrict__ x, const T* y, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = y[i] * factor * N;
}
"""


def test_template_parameters():
    (kernel,) = parse_kernels(SCALE)
    assert kernel.is_template
    assert kernel.template_arguments is None
    assert kernel.template_parameters == (
        _signature.TemplateParameter("T", "type", "typename"),
        _signature.TemplateParameter("N", "value", "int"),
    )
    x = kernel.parameters[0]
    assert (x.c_type, x.base_type, x.dtype) == ("T*", "T", None)


@pytest.mark.parametrize(
    ("expression", "c_type", "value", "dtype"),
    [
        ("scale<float, 4>", "float", "4", "float32"),
        ("scale<double,2>", "double", "2", "float64"),
        ("scale< unsigned   int , 1 >", "unsigned int", "1", "uint32"),
        ("scale<int64_t, -3>", "int64_t", "-3", "int64"),
        ("scale<std::uint8_t, (1 << 3)>", "std::uint8_t", "(1 << 3)", "uint8"),
    ],
)
def test_bind_substitutes_template_types(expression, c_type, value, dtype):
    (kernel,) = parse_kernels(SCALE)
    bound = bind(kernel, expression)
    assert str(bound) == (
        f"scale<{c_type}, {value}>({c_type}* __restrict__ x, const {c_type}* y, "
        f"{c_type} factor, int n)"
    )
    x, y, factor, n = bound.parameters
    assert x.dtype == y.dtype == factor.dtype == np.dtype(dtype)
    assert (x.is_const, y.is_const, x.qualifiers) == (False, True, ("__restrict__",))
    assert n.dtype == np.dtype(np.int32)
    assert kernel.parameters[0].dtype is None  # the template itself is unchanged


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "scale",
            "scale is a template kernel: name one of its instances, such as 'scale<float, 1>'",
        ),
        ("scale<4, 4>", "template parameter T of scale is a type, not 4"),
        ("scale<float, double>", "N of scale takes a value of type int, not the type double"),
        ("scale<float, 4, 5>", "gives 3 template arguments, but scale takes 2"),
        ("scale<float>", "gives no argument for the template parameter N of scale"),
        ("scale<float, 4", "is not a kernel's name or name expression"),
        ("other<float>", "no __global__ function named 'other'"),
    ],
)
def test_name_expressions_that_do_not_fit(expression, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        find_kernel(parse_kernels(SCALE), expression)


def test_template_arguments_for_a_plain_kernel():
    with pytest.raises(
        ValueError, match=r"'doublify<float>' gives template arguments, but doublify"
    ):
        find_kernel(parse_kernels(DOUBLIFY), "doublify<float>")
    (kernel,) = parse_kernels(DOUBLIFY)
    assert bind(kernel, "doublify") is kernel


def test_default_template_arguments_from_a_declaration():
    source = """
    template <typename T = float, int N = 4> __global__ void k(T* a);
    template <typename T, int N> __global__ void k(T* a) { a[0] *= N; }
    template <> __global__ void k<int, 2>(int* a) { a[0] = 0; }
    template __global__ void k<double, 8>(double*);
    """
    kernels = parse_kernels(source)
    assert [(k.is_template, k.template_arguments, k.is_definition) for k in kernels] == [
        (True, None, False),
        (True, None, True),
        (False, ("int", "2"), True),  # an explicit specialization
        (False, ("double", "8"), False),  # an explicit instantiation
    ]
    bound = find_kernel(kernels, "k<double>")
    assert str(bound) == "k<double>(double* a)"
    assert str(find_kernel(kernels, "k<>")) == "k<>(float* a)"


def test_template_header_with_nested_brackets_and_class():
    (kernel,) = parse_kernels(
        "template <class T, typename Op = Plus<T, 2>, unsigned int B = (1 << 4)>\n"
        "__global__ void k(const T* in, T* out) {}"
    )
    assert [(t.name, t.kind, t.default) for t in kernel.template_parameters] == [
        ("T", "type", None),
        ("Op", "type", "Plus<T, 2>"),
        ("B", "value", "(1 << 4)"),
    ]
    assert str(bind(kernel, "k<short>")) == "k<short>(const short* in, short* out)"


# --- cooperation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("x[0] = 1;", False),
        ("__syncthreads();", True),
        ("if (__syncthreads_or(p)) x[0] = 1;", True),
        ("int c = __syncthreads_count(p);", True),
        ("__syncwarp();", True),
        ("v += __shfl_down_sync(0xffffffff, v, 1);", True),
        ("v = __shfl_xor_sync(m, v, 1);", True),
        ("unsigned b = __ballot_sync(m, p);", True),
        ("if (__any_sync(m, p) || __all_sync(m, p)) x[0] = 1;", True),
        ("unsigned m = __activemask();", True),
        ("unsigned m = __match_any_sync(0xffffffff, v);", True),
        ("// __syncthreads();", False),
        ('const char* s = "__syncthreads()";', False),
        ("int my__syncthreads_counter = 0;", False),
    ],
)
def test_uses_cooperation(body, expected):
    assert uses_cooperation(f"__global__ void k(int* x, int p, int v) {{ {body} }}") is expected


def test_cooperation_through_a_macro_or_a_device_function():
    assert uses_cooperation("#define SYNC __syncthreads()\n__global__ void k() { SYNC; }")
    assert uses_cooperation(
        "__device__ void wait() { __syncthreads(); }\n__global__ void k() { wait(); }"
    )
    assert uses_cooperation(REDUCE6)
    assert not uses_cooperation(SAXPY)


# --- the source each backend compiles -----------------------------------------------------------


def test_nvrtc_compiles_the_source_as_written():
    assert _source.nvrtc_source(REDUCE6) == REDUCE6


def _user_part(text: str, name: str = "cell_3.cu") -> str:
    """The rewritten user source inside a host text: between its two #line directives."""
    head = f'#line 1 "{name}"\n'
    return text[text.index(head) + len(head) : text.index('\n#line 1 "gpuvec-generated-entries"')]


def test_host_source_layout():
    text, entries = _source.host_source(
        DOUBLIFY + SCALE, ["doublify", "scale<float, 4>", "doublify"], "cell_3.cu", checked=False
    )
    assert text.startswith('#include <gpuvec/cuda_emulation.h>\n#line 1 "cell_3.cu"\n')
    assert _user_part(text) == DOUBLIFY + SCALE
    assert text.endswith(
        '#line 1 "gpuvec-generated-entries"\n'
        "GPUVEC_EMULATION_KERNEL(gpuvec_entry_0, doublify)\n"
        "GPUVEC_EMULATION_KERNEL(gpuvec_entry_1, (scale<float, 4>))\n"
    )
    assert entries == {"doublify": "gpuvec_entry_0", "scale<float, 4>": "gpuvec_entry_1"}


def test_host_source_entries_name_namespaced_kernels_fully():
    text, _entries = _source.host_source(
        "namespace ns { __global__ void k(float* a) {} }", ["k"], "a.cu", checked=False
    )
    assert "GPUVEC_EMULATION_KERNEL(gpuvec_entry_0, ns::k)" in text
    with pytest.raises(ValueError, match="no __global__ function named 'missing'"):
        _source.host_source(DOUBLIFY, ["missing"], "a.cu", checked=False)


def test_host_source_quotes_the_name():
    text, _ = _source.host_source(DOUBLIFY, [], 'dir\\my "cell".cu', checked=False)
    assert '#line 1 "dir\\\\my \\"cell\\".cu"\n' in text


def test_shared_memory_in_a_function():
    source = """__global__ void k(float* out) {
    extern __shared__ float s[];
    extern __shared__ __align__(16) unsigned char raw[];
    extern __shared__ alignas(8) double
        spread_over_lines[];
    out[0] = s[0];
}"""
    user = _user_part(_source.host_source(source, [], "cell_3.cu", checked=False)[0])
    assert user.splitlines() == [
        "__global__ void k(float* out) {",
        "    float* const s = static_cast<float*>(gpuvec_dynamic_shared());",
        "    unsigned char* const raw = static_cast<unsigned char*>(gpuvec_dynamic_shared());",
        "    double* const spread_over_lines = static_cast<double*>(gpuvec_dynamic_shared());",
        "",
        "    out[0] = s[0];",
        "}",
    ]


def test_shared_memory_at_file_scope():
    source = """extern __shared__ float s[];
namespace ns { extern "C" {
extern __shared__ int inner[]; // a comment may follow
} }
__global__ void k(float* out) { out[0] = s[0]; }"""
    user = _user_part(_source.host_source(source, [], "cell_3.cu", checked=False)[0])
    assert user.splitlines() == [
        "#define s (static_cast<float*>(gpuvec_dynamic_shared()))",
        'namespace ns { extern "C" {',
        "#define inner (static_cast<int*>(gpuvec_dynamic_shared())) // a comment may follow",
        "} }",
        "__global__ void k(float* out) { out[0] = s[0]; }",
    ]


def test_shared_memory_at_file_scope_sharing_its_line():
    # A directive needs a line of its own: the rewrite breaks the line, and a
    # #line directive puts the rest back on its own number.
    source = "int a;\nint b; extern __shared__ float s[]; int c;\nint d;"
    user = _user_part(_source.host_source(source, [], "cell_3.cu", checked=False)[0])
    assert user.splitlines() == [
        "int a;",
        "int b; ",
        "#define s (static_cast<float*>(gpuvec_dynamic_shared()))",
        '#line 2 "cell_3.cu"',
        " int c;",
        "int d;",
    ]


def test_shared_memory_declarations_left_to_the_compiler():
    # Not one array of unknown size: the rewrite leaves them, and the
    # compiler says what it thinks.
    source = "extern __shared__ float a[], b[];\nextern __shared__ float fixed[4];\n"
    user = _user_part(_source.host_source(source, [], "cell_3.cu", checked=False)[0])
    assert user == source


def test_checked_pointer_parameters():
    source = """template <typename T>
__global__ void k(float* __restrict__ out, const float* in, float const* in2,
                  float* const fixed, T* generic, const T* __restrict__ generic_in,
                  int n, float2* pairs, void* raw, float** table, float*)
{}"""
    text, _ = _source.host_source(source, ["k<float>"], "cell_3.cu", checked=True)
    user = _user_part(text)
    assert user.splitlines() == [
        "template <typename T>",
        "__global__ void k(gpuvec_checked<float> out, gpuvec_checked<const float> in, "
        "gpuvec_checked<float const> in2,",
        "                  gpuvec_checked<float> const fixed, gpuvec_checked<T> generic, "
        "gpuvec_checked<const T> generic_in,",
        "                  int n, gpuvec_checked<float2> pairs, void* raw, float** table, "
        "gpuvec_checked<float>)",
        "{}",
    ]
    unchecked, _ = _source.host_source(source, ["k<float>"], "cell_3.cu", checked=False)
    assert _user_part(unchecked) == source


def test_checked_rewrites_every_declaration_alike():
    source = "__global__ void k(float* a);\n__global__ void k(float* a) { a[0] = 1; }\n"
    user = _user_part(_source.host_source(source, ["k"], "cell_3.cu", checked=True)[0])
    assert user.count("gpuvec_checked<float> a") == 2


def test_checked_parameter_spanning_lines_keeps_them():
    source = "__global__ void k(const float*\n  /* the input */\n  in) {}"
    user = _user_part(_source.host_source(source, ["k"], "cell_3.cu", checked=True)[0])
    assert user == "__global__ void k(gpuvec_checked<const float> in\n\n) {}"


# Lines a kernel source is made of, for the property test: some are rewritten.
_LINES = [
    "extern __shared__ float file_scope[];",
    "// a comment with __global__ void not_a_kernel(float* x)",
    "/* a block comment",
    "   ending here */",
    "#define N 4",
    "__global__ void kernel(float* __restrict__ out,",
    "                       const float* in, int n)",
    "{",
    "    extern __shared__ __align__(16) double scratch[];",
    "    out[threadIdx.x] = in[threadIdx.x] + scratch[0];",
    "}",
    "template <typename T> __global__ void t(T* a, const T* b,",
    "    int n) { a[0] = b[n]; }",
    "",
]


@given(
    lines=st.lists(st.sampled_from(_LINES), max_size=30),
    checked=st.booleans(),
    trailing_newline=st.booleans(),
)
def test_rewrites_keep_every_line_on_its_number(lines, checked, trailing_newline):
    source = "\n".join(lines) + ("\n" if trailing_newline else "")
    user = _user_part(_source.host_source(source, [], "cell_3.cu", checked)[0])
    assert user.count("\n") == source.count("\n")
    for before, after in zip(source.split("\n"), user.split("\n"), strict=True):
        # (a checked pointer's element that is assigned to is marked: "] =")
        marked = "*" in before or "] =" in before
        rewritten = "extern" in before or (marked and checked and "//" not in before)
        if not rewritten:
            assert after == before


# --- the host text compiles ---------------------------------------------------------------------

MODULE = (
    """
extern __shared__ float file_shared[];
namespace kernels {
__global__ void reduce(const float* __restrict__ in, float* out, int n)
{
    extern __shared__ float partial[];
    partial[threadIdx.x] = threadIdx.x < unsigned(n) ? in[threadIdx.x] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + file_shared[0];
}
}
"""
    + SCALE
    + DOUBLIFY
    + VECADD
)


@pytest.mark.parametrize("checked", [False, True])
def test_host_text_compiles(tmp_path, checked):
    require_compiler()
    names = ["reduce", "scale<float, 4>", "scale<int, 2>", "doublify", "vecAdd"]
    text, entries = _source.host_source(MODULE, names, "cell_7.cu", checked)
    library = tmp_path / "kernels.so"
    returncode, log = _host_compiler.compile_shared_library(
        text, "cell_7.cu", library, (), stub_include_dir(tmp_path)
    )
    assert returncode == 0, log
    assert library.stat().st_size > 0
    assert sorted(entries.values()) == [f"gpuvec_entry_{i}" for i in range(5)]


# --- any text at all ---------------------------------------------------------------------------

_PIECES = [
    *("__global__", "void", "k", "(", ")", "<", ">", ",", "*", "const", "float", "T", "int"),
    *("template", "typename", "{", "}", ";", "extern", '"C"', "__shared__", "[", "]", "="),
    *("1", "\n", " ", "#", "//", "/*", "*/", '"', "'", "\\", "__launch_bounds__", "::", "&"),
]


@given(pieces=st.lists(st.sampled_from(_PIECES), max_size=40), checked=st.booleans())
def test_any_text_is_read_without_crashing(pieces, checked):
    # A notebook cell holds whatever the student typed: the compiler, not
    # the parser, is the one to complain about it.
    source = "".join(pieces)
    kernels = parse_kernels(source)
    uses_cooperation(source)
    _source.host_source(source, [], "cell_3.cu", checked)
    for expression in [
        "k",
        "k<float>",
        "k<T, 1>",
        "k<",
        "<>",
        "",
        "a b",
        *{k.name for k in kernels},
    ]:
        try:
            str(find_kernel(kernels, expression))
        except ValueError:
            pass
