"""A mean and a std (or var) of one value over the same axes, run as one
reduction pass over that value.

``(x - x.mean(axis=0)) / x.std(axis=0)`` traces two eager reductions of
``x``; each alone reads all of ``x``. Where both have the same source node,
the same axes (``0``, ``-1`` and ``(0,)`` of a 1-d value are the same;
``None`` stays apart, since its results are numbers, not arrays), the same
``keepdims`` and the same ``dtype``, the plan runs them as one
:class:`PairedStep`, which calls
:func:`gpuvec.reductions._mean_and_deviation`: one reduction that writes
both results, read from ``x`` once. The step runs where the first of the
two ran; both read only ``x``, so nothing between them could need the
second's result before it.

Examples
--------
>>> import numpy as np, gpuvec
>>> f = gpuvec.fuse(lambda x: (x - x.mean(axis=0)) / x.std(axis=0))
>>> print(f.explain(np.ones((4, 2))))  # doctest: +ELLIPSIS
fused function <lambda>(x: ndarray float64[4, 2])
step 1: eager gpuvec.mean(x, axis=0) and gpuvec.std(x, axis=0)...: one reduction pass, ...
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuvec import reductions
from gpuvec.fusion._graph import Node, normalized_axes
from gpuvec.fusion._plan import Plan, ReduceStep, checked

__all__ = ["PairedStep", "pair_reductions"]

_DEVIATIONS = ("std", "var")


@dataclass
class PairedStep:
    """A mean (`node`) and a std or var (`deviation`) of one value, from one pass."""

    node: Node
    deviation: Node
    map = None  # no map-and-reduce pair: the source feeds both reductions

    @property
    def nodes(self) -> tuple[Node, Node]:
        return (self.node, self.deviation)

    def run(self, values: dict[int, object]) -> None:
        kwargs = self.node.kwargs
        results = reductions._mean_and_deviation(
            values[self.node.operands[0].id],
            kwargs.get("axis"),
            ddof=self.deviation.kwargs.get("ddof") or 0,
            root=self.deviation.op == "std",
            keepdims=bool(kwargs.get("keepdims")),
            dtype=kwargs.get("dtype"),
        )
        for node, result in zip(self.nodes, results, strict=True):
            values[node.id] = checked(node, result)


def _key(node: Node) -> tuple:
    """What a mean and a deviation must share to be one pass: the source, the
    axes (normalized), keepdims and dtype."""
    kwargs = node.kwargs
    axis = kwargs.get("axis")
    dtype = kwargs.get("dtype")
    return (
        node.operands[0].id,
        None if axis is None else normalized_axes(axis, node.operands[0].ndim),
        bool(kwargs.get("keepdims")),
        None if dtype is None else np.dtype(dtype),
    )


def pair_reductions(plan: Plan) -> Plan:
    """`plan` with each mean and a std or var of the same key run as one PairedStep."""
    reduces = [s for s in plan.steps if type(s) is ReduceStep]
    means = [s for s in reduces if s.node.op == "mean"]
    deviations = [s for s in reduces if s.node.op in _DEVIATIONS]
    replaced: dict[int, PairedStep | None] = {}  # by id() of a ReduceStep; None: dropped
    for mean in means:
        key = _key(mean.node)
        partner = next(
            (d for d in deviations if id(d) not in replaced and _key(d.node) == key), None
        )
        if partner is None:
            continue
        paired = PairedStep(mean.node, partner.node)
        first, second = (
            (mean, partner)
            if plan.steps.index(mean) < plan.steps.index(partner)
            else (partner, mean)
        )
        replaced[id(first)] = paired
        replaced[id(second)] = None
    steps = []
    for step in plan.steps:
        if id(step) not in replaced:
            steps.append(step)
        elif replaced[id(step)] is not None:
            steps.append(replaced[id(step)])
    plan.steps = steps
    return plan
