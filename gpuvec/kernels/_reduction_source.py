"""The source of a ReductionKernel for one signature, for each backend.

The kernel is gpuvec's own reduction engine (``gpuvec/reduce.hpp``: the CUDA
kernels with their single-pass contiguous path, the row, tile and column
shapes and the last-block finish, and the host loop) instantiated with a
policy made of the user's expressions, in CuPy's semantics: ``map_expr`` is
each element's value, ``reduce_expr`` combines two values ``a`` and ``b``,
``post_map_expr`` writes the output from the reduced value ``a``, and
``identity`` is the value of no elements. ``_type_reduce`` is the type of
``a`` and ``b``:

.. code-block:: cpp

    struct gpuvec_reduce_op {
      using _type_reduce = float;
      using Acc = gpuvec::UserState<_type_reduce, true>;
      GPUVEC_HD Acc identity() const { return {_type_reduce(0)}; }
      GPUVEC_HD Acc term(const float x, int64_t) const {
        return {static_cast<_type_reduce>(x * x)};           // map_expr
      }
      GPUVEC_HD Acc combine(const Acc gpuvec_a, const Acc gpuvec_b) const {
        const _type_reduce a = gpuvec_a.value, b = gpuvec_b.value;
        return {static_cast<_type_reduce>(a + b)};           // reduce_expr
      }
      template <class Out>
      GPUVEC_HD Out finish(const Acc gpuvec_a, int64_t) const {
        const _type_reduce a = gpuvec_a.value;
        float y = float();
        y = sqrt(a);                                         // post_map_expr
        return y;
      }
    };

Without an identity the state also says whether it has seen an element, so
that combine never takes a made-up starting value for a real one. Each
expression is compiled under ``#line`` directives that number the lines of
``user_source``: a compile error points at the user's expression.

On a GPU NVRTC compiles the seven instances of the reduction kernels that
``gpuvec/reduce.hpp``'s launch plan chooses among, named by name
expressions; on the host the C++ compiler builds one exported entry
(``GPUVEC_REDUCE_ENTRY``) that runs the host loop on gpuvec's thread pool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from gpuvec.kernels._raw_params import SUPPORT_SOURCE
from gpuvec.kernels._source import EMULATION_HEADER, GENERATED_NAME
from gpuvec.kernels._spec import C_TYPES

__all__ = [
    "ENTRY",
    "IN_SIZE",
    "I_INPUT",
    "J_INPUT",
    "OUT_SIZE",
    "POLICY",
    "REDUCE_HEADER",
    "cuda_source",
    "host_source",
    "name_expressions",
    "policy_source",
    "state_size",
    "user_source",
]

REDUCE_HEADER = "gpuvec/reduce.hpp"
POLICY = "gpuvec_reduce_op"  # the policy's name in the generated source
ENTRY = "gpuvec_reduce_entry"  # the host library's exported entry
IN_SIZE = "gpuvec_in_size"  # the input that carries _in_ind.size(): the elements reduced
OUT_SIZE = "gpuvec_out_size"  # the input that carries _out_ind.size(): the outputs
J_INPUT = "gpuvec_J"  # the input that carries _J, as float64 (see _raw_params)
I_INPUT = "gpuvec_i"  # the input that carries _i, likewise


def user_source(map_expr: str, reduce_expr: str, post_map_expr: str, identity) -> str:
    """The user's expressions, one after the other, as compile errors number their lines."""
    parts = [map_expr, reduce_expr, post_map_expr]
    if identity is not None:
        parts.append(identity)
    return "\n".join(parts)


def state_size(reduce_dtype: np.dtype, with_identity: bool) -> int:
    """The bytes of ``gpuvec::UserState<reduce type, with_identity>``: whole 8-byte words."""
    return 8 if with_identity or reduce_dtype.itemsize <= 4 else 16


def policy_source(
    expressions: tuple[str, str, str, str | None],
    in_names: Sequence[str],
    in_dtypes: Sequence[np.dtype],
    out_name: str,
    out_dtype: np.dtype,
    reduce_dtype: np.dtype,
    placeholders: Mapping[str, np.dtype],
    source_name: str,
    preamble: str = "",
    raw: Sequence[tuple[str, np.dtype]] = (),
) -> str:
    """The policy that runs the user's `expressions` (map, reduce, post-map, identity).

    `in_names` may end with the inputs that carry what CuPy's ``map_expr``
    sees besides values (``gpuvec_J``, ``gpuvec_i``, ``gpuvec_in_size``,
    ``gpuvec_out_size``, ``gpuvec_raw_NAME``: see ``_raw_params``), and
    `raw` names the raw parameters, each a ``gpuvec_cupy::Raw`` of its dtype.
    """
    map_expr, reduce_expr, post_map_expr, identity = expressions
    with_identity = identity is not None
    lines: list[str] = []
    if raw or IN_SIZE in in_names or OUT_SIZE in in_names:
        lines.append(SUPPORT_SOURCE)
    if preamble:
        lines += [f'#line 1 "{source_name}:preamble"', preamble]
    first = 1  # the user_source line each expression starts on

    def user(text: str) -> list[str]:
        nonlocal first
        block = [f'#line {first} "{source_name}"', text]
        first += text.count("\n") + 1
        return block

    def gpuvec_lines() -> str:
        number = sum(line.count("\n") + 1 for line in lines) + 2
        return f'#line {number} "{GENERATED_NAME}"'

    seen = ", 1" if not with_identity else ""
    out_type = C_TYPES[out_dtype]
    params = ", ".join(f"const {C_TYPES[d]} {n}" for n, d in zip(in_names, in_dtypes, strict=True))
    lines.append(f"struct {POLICY} {{")
    lines += [f"  using {t} = {C_TYPES[d]};" for t, d in sorted(placeholders.items())]
    lines += [
        f"  using _type_reduce = {C_TYPES[reduce_dtype]};",
        f"  using Acc = gpuvec::UserState<_type_reduce, {str(with_identity).lower()}>;",
        f"  GPUVEC_HD Acc term({params}, int64_t) const {{",
        *_term_locals(in_names, raw),
        "    return {static_cast<_type_reduce>(",
        *user(map_expr),
    ]
    lines += [gpuvec_lines(), f"    ){seen}}};", "  }"]
    lines += [
        "  GPUVEC_HD Acc combine(const Acc gpuvec_a, const Acc gpuvec_b) const {",
    ]
    if not with_identity:
        lines += [
            "    if (!gpuvec_a.seen) return gpuvec_b;",
            "    if (!gpuvec_b.seen) return gpuvec_a;",
        ]
    lines += [
        "    const _type_reduce a = gpuvec_a.value, b = gpuvec_b.value;",
        "    return {static_cast<_type_reduce>(",
        *user(reduce_expr),
    ]
    lines += [gpuvec_lines(), f"    ){seen}}};", "  }"]
    lines += [
        "  template <class Out>",
        "  GPUVEC_HD Out finish(const Acc gpuvec_a, int64_t) const {",
        "    const _type_reduce a = gpuvec_a.value;",
        f"    {out_type} {out_name} = {out_type}();",
        *user(post_map_expr),
        ";",  # CuPy's post_map_expr needs no semicolon of its own
    ]
    lines += [gpuvec_lines(), f"    return {out_name};", "  }"]
    lines.append("  GPUVEC_HD Acc identity() const {")
    if with_identity:
        lines += ["    return {static_cast<_type_reduce>(", *user(identity)]
        lines += [gpuvec_lines(), "    )};"]
    else:
        lines += [gpuvec_lines(), "    return {_type_reduce(), 0};"]
    lines += ["  }", "};"]
    size = state_size(reduce_dtype, with_identity)
    lines.append(f'static_assert(sizeof({POLICY}::Acc) == {size}, "the state gpuvec expects");')
    return "\n".join(lines) + "\n"


def _term_locals(in_names: Sequence[str], raw: Sequence[tuple[str, np.dtype]]) -> list[str]:
    """CuPy's names that term() declares from its extra inputs: indexers, raw arrays."""
    lines = []
    for index, carrier in (("_J", J_INPUT), ("_i", I_INPUT)):
        if carrier in in_names:
            lines.append(f"    const int64_t {index} = static_cast<int64_t>({carrier});")
    for indexer, size in (("_in_ind", IN_SIZE), ("_out_ind", OUT_SIZE)):
        if size in in_names:
            lines.append(f"    const gpuvec_cupy::Indexer {indexer}{{{size}}};")
    for name, dtype in raw:
        lines.append(
            f"    const gpuvec_cupy::Raw<const {C_TYPES[dtype]}> {name}(gpuvec_raw_{name});"
        )
    return lines


def host_source(policy: str, in_dtypes: Sequence[np.dtype], out_dtype: np.dtype) -> str:
    """What the host compiler builds: the policy and the entry gpuvec's thread pool calls."""
    types = ", ".join(C_TYPES[d] for d in [out_dtype, *in_dtypes])
    return (
        f"#include <{EMULATION_HEADER}>\n"  # CUDA's math functions and built-ins, on the CPU
        f"#include <{REDUCE_HEADER}>\n"
        f"{policy}"
        f'#line 1 "{GENERATED_NAME}"\n'
        f"GPUVEC_REDUCE_ENTRY({ENTRY}, {POLICY}, {types})\n"
    )


def cuda_source(policy: str) -> str:
    """What NVRTC compiles: the policy; the instances are named by name_expressions."""
    return f"#include <{REDUCE_HEADER}>\n{policy}"


def name_expressions(in_dtypes: Sequence[np.dtype], out_dtype: np.dtype) -> list[str]:
    """The seven reduction kernels of the signature, in the order of ``gpuvec::ReduceKernel``."""
    ins = ", ".join(C_TYPES[d] for d in in_dtypes)
    types = f"{POLICY}, {C_TYPES[out_dtype]}, {ins}"
    return [
        f"gpuvec::reduce_contiguous<gpuvec::kPackWidth<{ins}>, {types}>",
        f"gpuvec::reduce_contiguous<1, {types}>",
        f"gpuvec::reduce_groups<{types}>",
        f"gpuvec::reduce_tiles<{types}>",
        f"gpuvec::reduce_columns<{types}>",
        f"gpuvec::reduce_blocks<{types}>",
        f"gpuvec::reduce_partials<{types}>",
    ]
