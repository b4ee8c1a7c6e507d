"""The source of an ElementwiseKernel for one signature, for each backend.

The kernel is gpuvec's own elementwise machinery (``gpuvec/map.hpp``: the
CUDA kernels with their 16-byte contiguous path, the broadcast rows and the
strided walks, and the host loop) instantiated with a functor made of the
user's operation. The functor takes the inputs by value and returns the
output, which the operation assigns (CuPy's semantics):

.. code-block:: cpp

    struct gpuvec_op {
      using T = float;  // each type placeholder, resolved
      GPUVEC_HD float operator()(const float a, const float b) const {
        float c = float();
        c = 2.5f * a * b + a - 0.5f;  // the operation, under #line 1 "kernel.cu"
        return c;
      }
    };

On a GPU NVRTC compiles the four instances of the map kernels that
``gpuvec/map.hpp``'s launch plan chooses among, named by name expressions; on
the host the C++ compiler builds one exported entry (``GPUVEC_MAP_ENTRY``)
that runs the host loop over a range, which gpuvec's thread pool calls in
pieces.

Examples
--------
>>> import numpy as np
>>> f32 = np.dtype(np.float32)
>>> print(functor_source("c = a + b", ["a", "b"], [f32, f32], "c", f32, {}, "add.cu"))
struct gpuvec_op {
  GPUVEC_HD float operator()(const float a, const float b) const {
    float c = float();
#line 1 "add.cu"
c = a + b
;
#line 8 "gpuvec-generated-entries"
    return c;
  }
};
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from gpuvec.kernels._lexer import tokenize
from gpuvec.kernels._raw_params import SUPPORT_SOURCE
from gpuvec.kernels._source import EMULATION_HEADER, GENERATED_NAME
from gpuvec.kernels._spec import C_TYPES

__all__ = [
    "ENTRY",
    "FUNCTOR",
    "INDEX",
    "INDEX_INPUT",
    "MAP_HEADER",
    "PREVIOUS",
    "SIZE",
    "cuda_source",
    "cupy_functor_source",
    "functor_source",
    "host_source",
    "name_expressions",
    "reads",
]

MAP_HEADER = "gpuvec/map.hpp"
FUNCTOR = "gpuvec_op"  # the functor's name in the generated source
PREVIOUS = "gpuvec_previous"  # the input that carries the out array's old values
ENTRY = "gpuvec_map_entry"  # the host library's exported entry
INDEX = "i"  # CuPy's name for the element's index
INDEX_INPUT = "gpuvec_index"  # the input that carries it, as float64 (see _raw_params)
SIZE = "gpuvec_size"  # the input that carries the number of elements (_ind.size())


def functor_source(
    operation: str,
    in_names: Sequence[str],
    in_dtypes: Sequence[np.dtype],
    out_name: str,
    out_dtype: np.dtype,
    placeholders: Mapping[str, np.dtype],
    source_name: str,
    preamble: str = "",
    previous: str | None = None,
) -> str:
    """The functor that runs `operation`, with its lines reported under `source_name`.

    The output starts as zero, or, where `previous` names the last input, as
    that input: the out array's old value, for an operation that reads it
    (``y += x``).
    """
    lines = []
    if preamble:
        lines += [f'#line 1 "{source_name}:preamble"', preamble]
    lines.append(f"struct {FUNCTOR} {{")
    lines += [f"  using {t} = {C_TYPES[d]};" for t, d in sorted(placeholders.items())]
    params = ", ".join(f"const {C_TYPES[d]} {n}" for n, d in zip(in_names, in_dtypes, strict=True))
    out_type = C_TYPES[out_dtype]
    start = previous if previous is not None else f"{out_type}()"
    lines += [
        f"  GPUVEC_HD {out_type} operator()({params}) const {{",
        f"    {out_type} {out_name} = {start};",
        f'#line 1 "{source_name}"',
        operation,
        ";",  # CuPy's operation needs no semicolon of its own
    ]
    # The lines after the operation are gpuvec's again.
    lines += [f'#line {len(lines) + 2} "{GENERATED_NAME}"', f"    return {out_name};", "  }", "};"]
    return "\n".join(lines) + "\n"


def cupy_functor_source(
    operation: str,
    params: Sequence[tuple[str, np.dtype]],
    raw: Sequence[tuple[str, np.dtype, bool]],
    secondary: Sequence[tuple[str, np.dtype, bool]],
    primary: tuple[str, np.dtype, str] | None,
    placeholders: Mapping[str, np.dtype],
    source_name: str,
    preamble: str = "",
) -> str:
    """The functor of an operation that uses more of CuPy's language than values.

    Parameters
    ----------
    operation : str
        The user's operation.
    params : sequence of (name, dtype)
        The functor's inputs in order: the values of the inputs, then the
        extra ones (``gpuvec_index``, ``gpuvec_size``, each raw array's descriptor
        ``gpuvec_raw_NAME`` and each further output's ``gpuvec_out_NAME``).
    raw : sequence of (name, dtype, writable)
        The raw parameters, each a ``gpuvec_cupy::Raw`` over its descriptor.
    secondary : sequence of (name, dtype, reads)
        The outputs after the first, each a variable that is stored at
        element ``i`` of its array after the operation; with `reads`, it
        starts as the element's old value.
    primary : (name, dtype, start) or None
        The output the engine writes, and its starting value; None where
        every output is raw or stored (the engine then writes a bool that
        nobody reads).
    placeholders, source_name, preamble
        As for :func:`functor_source`.
    """
    lines = [SUPPORT_SOURCE]
    if preamble:
        lines += [f'#line 1 "{source_name}:preamble"', preamble]
    lines.append(f"struct {FUNCTOR} {{")
    lines += [f"  using {t} = {C_TYPES[d]};" for t, d in sorted(placeholders.items())]
    args = ", ".join(f"const {C_TYPES[d]} {n}" for n, d in params)
    out_type = "bool" if primary is None else C_TYPES[primary[1]]
    lines.append(f"  GPUVEC_HD {out_type} operator()({args}) const {{")
    if any(n == INDEX_INPUT for n, _ in params):
        lines.append(f"    const int64_t {INDEX} = static_cast<int64_t>({INDEX_INPUT});")
    if any(n == SIZE for n, _ in params):
        lines.append(f"    const gpuvec_cupy::Indexer _ind{{{SIZE}}};")
    for name, dtype, writable in raw:
        element = C_TYPES[dtype] if writable else f"const {C_TYPES[dtype]}"
        lines.append(f"    const gpuvec_cupy::Raw<{element}> {name}(gpuvec_raw_{name});")
    for name, dtype, old in secondary:
        c_type = C_TYPES[dtype]
        start = f"gpuvec_cupy::Raw<{c_type}>(gpuvec_out_{name})[{INDEX}]" if old else f"{c_type}()"
        lines.append(f"    {c_type} {name} = {start};")
    if primary is not None:
        lines.append(f"    {out_type} {primary[0]} = {primary[2]};")
    lines += [f'#line 1 "{source_name}"', operation, ";"]
    lines.append(f'#line {sum(t.count(chr(10)) + 1 for t in lines) + 1} "{GENERATED_NAME}"')
    for name, dtype, _ in secondary:
        c_type = C_TYPES[dtype]
        # In parentheses: a statement that starts `Raw<T>(x)[i]` declares an array x.
        lines.append(f"    (gpuvec_cupy::Raw<{c_type}>(gpuvec_out_{name}))[{INDEX}] = {name};")
    lines += [f"    return {'true' if primary is None else primary[0]};", "  }", "};"]
    return "\n".join(lines) + "\n"


def reads(operation: str, name: str) -> bool:
    """Whether `operation` may read variable `name` (not only assign it with ``=``).

    Examples
    --------
    >>> reads("y = x", "y"), reads("y += x", "y"), reads("z = y == x", "y")
    (False, True, True)
    """
    tokens = [t.text for t in tokenize(operation)]
    for k, text in enumerate(tokens):
        if text != name:
            continue
        assigned = tokens[k + 1 : k + 2] == ["="] and tokens[k + 2 : k + 3] != ["="]
        if not assigned:
            return True
    return False


def host_source(functor: str, in_dtypes: Sequence[np.dtype], out_dtype: np.dtype) -> str:
    """What the host compiler builds: the functor and the entry gpuvec's thread pool calls."""
    types = ", ".join(C_TYPES[d] for d in [out_dtype, *in_dtypes])
    return (
        f"#include <{EMULATION_HEADER}>\n"  # CUDA's math functions and built-ins, on the CPU
        f"#include <{MAP_HEADER}>\n"
        f"{functor}"
        f'#line 1 "{GENERATED_NAME}"\n'
        f"GPUVEC_MAP_ENTRY({ENTRY}, {FUNCTOR}, {types})\n"
    )


def cuda_source(functor: str) -> str:
    """What NVRTC compiles: the functor; the instances are named by name_expressions."""
    return f"#include <{MAP_HEADER}>\n{functor}"


def name_expressions(in_dtypes: Sequence[np.dtype], out_dtype: np.dtype) -> list[str]:
    """The four map kernels of the signature, in the order of ``gpuvec::MapKernel``."""
    out = C_TYPES[out_dtype]
    operands = "".join(f", gpuvec::Operand<{C_TYPES[d]}>" for d in in_dtypes)
    width = f"gpuvec::kPackWidth<{', '.join(C_TYPES[d] for d in [out_dtype, *in_dtypes])}>"
    n = 1 + len(in_dtypes)
    return [
        f"gpuvec::map_contiguous<{out}, {width}, {FUNCTOR}{operands}>",
        f"gpuvec::map_contiguous<{out}, 1, {FUNCTOR}{operands}>",
        f"gpuvec::map_rows<{width}, {n}, {out}, {FUNCTOR}{operands}>",
        f"gpuvec::map_strided<{n}, {out}, {FUNCTOR}{operands}>",
    ]
