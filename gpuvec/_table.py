"""The op table's codes by name, as the compiled core reports them.

The table itself is ``csrc/include/gpuvec/op_table.h``: one row per op.

Examples
--------
>>> ELEMENTWISE["add"] != ELEMENTWISE["subtract"]
True
>>> "argmax" in REDUCE
True
"""

from __future__ import annotations

from gpuvec import _core

ELEMENTWISE = {name: code for code, name, *_ in _core.elementwise_ops()}
REDUCE = {name: code for code, name, *_ in _core.reduce_ops()}
