"""The op table, as Python sees it: one named row per op.

The table itself is ``csrc/include/gpuvec/op_table.h``, one row per op with
every fact about it; the compiled core hands its rows over
(``gpuvec_elementwise_ops``, ``gpuvec_reduce_ops``) and this module names
their fields. Everything in Python that needs a fact about an op (the public
functions and their docstrings, NumPy's protocols, fusion, the tests and
their accuracy budgets) reads it here, so a new row needs no Python edit.

Examples
--------
>>> ELEMENTWISE["add"] != ELEMENTWISE["subtract"]
True
>>> ELEMENTWISE_OPS["sqrt"].exact, ELEMENTWISE_OPS["round"].numpy
(True, 'rint')
>>> REDUCE_OPS["argmax"].position, REDUCE_OPS["var"].ddof, REDUCE_OPS["nansum"].skips_nan
(True, True, True)
>>> REDUCE_OPS["min"].empty_error
'zero-size array to reduction operation minimum which has no identity'
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gpuvec import _core

__all__ = [
    "ELEMENTWISE",
    "ELEMENTWISE_OPS",
    "REDUCE",
    "REDUCE_OPS",
    "TRAITS",
    "ElementwiseOp",
    "ReduceOp",
]

# The words of the reductions' traits column (op_table.h says what each means).
TRAITS = frozenset(
    {
        "no_empty",
        "position",
        "ddof",
        "skips_nan",
        "whole",
        "integers",
        "own_dtype",
        "axis0",
        "paired",
    }
)


class ElementwiseOp(NamedTuple):
    """An elementwise row of the op table."""

    code: int  # the stable op code, GPUVEC_<NAME>
    name: str  # the Python name
    arity: int  # the number of array inputs
    params: int  # the number of parameters (alpha, beta)
    summary: str  # the docstring's first line
    result: str | None  # "bool" for a truth value, None for the compute dtype
    kind: str  # the result column: "SAME", "BOOL" or "TRUTH" (of the inputs' truth)
    numpy: str | None  # NumPy's name of the function (its ufunc's), None where it has none
    functor: str  # the functor in gpuvec::ops (ops.hpp)
    exact: bool  # correctly rounded: NumPy's bits on both backends
    host_ulps: int  # the ulp budget against NumPy in float64, host backend
    cuda_ulps: int  # and CUDA backend
    kinds: str  # the dtypes it computes in: f floats, i/u integers, b bool, c complex (op_table.h)

    @property
    def public(self) -> bool:
        """Whether the row is a plain function of :mod:`gpuvec.ufuncs`
        (one or two inputs, no parameters); the others have signatures of
        their own (:mod:`gpuvec.elementwise`, :mod:`gpuvec.blas`)."""
        return self.arity in (1, 2) and self.params == 0

    def computes_in(self, dtype) -> bool:
        """Whether the row has kernels of ``dtype`` (a NumPy dtype of a kind
        of its kinds column; float16 counts as a float: it computes in float32)."""
        kind = np.dtype(dtype).kind
        if kind == "f":
            return "f" in self.kinds
        if kind in "iu":
            return "i" in self.kinds or "u" in self.kinds
        if kind == "c":
            return "c" in self.kinds
        return kind == "b" and "b" in self.kinds

    def ulps(self, backend: str) -> int:
        """The ulp budget on ``backend`` ("host" or "cuda")."""
        return {"host": self.host_ulps, "cuda": self.cuda_ulps}[backend]


class ReduceOp(NamedTuple):
    """A reduction row of the op table."""

    code: int  # the stable op code, GPUVEC_REDUCE_<NAME>
    name: str  # the Python name
    inputs: int  # 1, or 2 (dot)
    summary: str  # the docstring's first line
    result: str | None  # "int64", "bool", or None for the compute dtype
    numpy: str | None  # NumPy's function of the same meaning, None where it has none
    ufunc: str | None  # NumPy's ufunc whose reduce computes it, None where none does
    policy: str  # the policy in gpuvec::ops::reduce (reduce_ops.hpp)
    traits: frozenset[str]  # the traits column's words
    warning: str | None  # NumPy's RuntimeWarning for a too short slice

    @property
    def public(self) -> bool:
        """Whether the row is a function of :mod:`gpuvec.reductions` of its
        NumPy name and signature (dot and the BLAS rows have their own)."""
        return self.inputs == 1 and self.numpy == self.name

    no_empty = property(lambda self: "no_empty" in self.traits)
    position = property(lambda self: "position" in self.traits)
    ddof = property(lambda self: "ddof" in self.traits)
    skips_nan = property(lambda self: "skips_nan" in self.traits)
    whole = property(lambda self: "whole" in self.traits)
    integers = property(lambda self: "integers" in self.traits)
    own_dtype = property(lambda self: "own_dtype" in self.traits)
    axis0 = property(lambda self: "axis0" in self.traits)
    paired = property(lambda self: "paired" in self.traits)

    @property
    def empty_error(self) -> str | None:
        """NumPy's ValueError for a reduction of no elements, None where it has a value."""
        if not self.no_empty:
            return None
        if self.position:
            return f"attempt to get {self.name} of an empty sequence"
        return f"zero-size array to reduction operation {self.ufunc} which has no identity"


def _elementwise(row) -> ElementwiseOp:
    code, name, arity, params, summary, result, truth, numpy, functor, exact, host, cuda = row[:12]
    kind = "TRUTH" if truth else ("SAME" if result is None else result.upper())
    return ElementwiseOp(
        code, name, arity, params, summary, result, kind, numpy or None, functor, exact, host,
        cuda, row[15],
    )  # fmt: skip


def _reduce(row) -> ReduceOp:
    code, name, inputs, _, summary, result, _, numpy, policy = row[:9]
    ufunc, traits, warning = row[12:15]
    words = frozenset(traits.split())
    if not words <= TRAITS:
        unknown = sorted(words - TRAITS)
        raise RuntimeError(f"the op table's {name} row has unknown traits {unknown}")
    return ReduceOp(
        code, name, inputs, summary, result, numpy or None, ufunc or None, policy, words,
        warning or None,
    )  # fmt: skip


ELEMENTWISE_OPS = {row.name: row for row in map(_elementwise, _core.elementwise_ops())}
REDUCE_OPS = {row.name: row for row in map(_reduce, _core.reduce_ops())}

# The op codes by name.
ELEMENTWISE = {name: row.code for name, row in ELEMENTWISE_OPS.items()}
REDUCE = {name: row.code for name, row in REDUCE_OPS.items()}
