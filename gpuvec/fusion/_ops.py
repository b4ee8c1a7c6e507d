"""The ops a fused function may contain, and the dtype each computes in.

The elementwise ops are the rows of gpuvec's op table
(``gpuvec/op_table.h``, read through :mod:`gpuvec._table`) without
parameters: each row names its functor in ``gpuvec/ops.hpp``, and the fused
kernel calls that same functor, so a fused op computes exactly what the
eager op computes. The reductions are the table's public ones. The dtype rules are those of
the eager ops (``_compute_dtype`` and ``_truth_compute_dtype`` in the core),
written here for operands known by their dtype alone.

Examples
--------
>>> OPS["add"].functor, OPS["add"].arity, OPS["less"].result
('Add', 2, 'BOOL')
>>> f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
>>> compute_dtype([Operand(f32, weak=False), Operand(f64, weak=True)])
dtype('float32')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuvec._dtypes import check_dtype, get_precision
from gpuvec._table import ELEMENTWISE_OPS, REDUCE_OPS

__all__ = ["OPS", "REDUCTIONS", "OpInfo", "Operand", "compute_dtype", "result_dtype"]

BOOL = np.dtype(np.bool_)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)


@dataclass(frozen=True)
class OpInfo:
    """One elementwise row of the op table: its name, inputs, result kind and functor."""

    name: str
    arity: int
    result: str  # SAME: the compute dtype; BOOL: a truth value; TRUTH: of the inputs' truth
    functor: str


# The op table's elementwise rows without parameters, by name.
OPS = {
    row.name: OpInfo(row.name, row.arity, row.kind, row.functor)
    for row in ELEMENTWISE_OPS.values()
    if row.params == 0
}

# The reductions a fused function may end in (or feed into later kernels):
# the public ones, which run as gpuvec's eager reductions.
REDUCTIONS = frozenset(row.name for row in REDUCE_OPS.values() if row.public)


@dataclass(frozen=True)
class Operand:
    """What the dtype policy sees of an operand: its dtype, and whether it is a
    Python number (weak: it does not take part)."""

    dtype: np.dtype
    weak: bool


def compute_dtype(operands, dtype=None) -> np.dtype:
    """The dtype an arithmetic op computes in, as the eager op decides it.

    ``dtype=`` wins, then the precision; else float64 if a strong operand is
    float64, float32 if one is float32, and float64 when every operand is
    weak or bool (bool never widens a float dtype).
    """
    if dtype is not None:
        return check_dtype(dtype)
    chosen = get_precision()
    if chosen is not None:
        return np.dtype(chosen)
    strong = [o.dtype for o in operands if not o.weak and o.dtype != BOOL]
    if FLOAT64 in strong or not strong:
        return FLOAT64
    return FLOAT32


def truth_compute_dtype(operands, dtype=None, logical=False) -> np.dtype:
    """The dtype a truth-value op (or where, of its two values) computes in:
    bool for a logical op, or when every operand is bool; else compute_dtype."""
    if dtype is None and logical:
        return BOOL
    if dtype is None and all(o.dtype == BOOL and not o.weak for o in operands):
        return BOOL
    return compute_dtype(operands, dtype)


def result_dtype(op: str, operands, dtype=None) -> tuple[np.dtype, np.dtype]:
    """(compute dtype, result dtype) of the elementwise op `op` (a row name,
    ``where``'s operands being its two values, or ``copy``)."""
    if op == "copy":
        return operands[0].dtype, operands[0].dtype
    if op == "where":
        compute = truth_compute_dtype(operands, dtype)
        return compute, compute
    info = OPS[op]
    if info.result == "SAME":
        compute = compute_dtype(operands, dtype)
        return compute, compute
    return truth_compute_dtype(operands, dtype, logical=info.result == "TRUTH"), BOOL
