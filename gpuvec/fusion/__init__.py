"""Fused expressions: ``gpuvec.fuse`` traces a function of gpuvec ops into a
few elementwise kernels (gpuvec.ElementwiseKernel) plus eager reductions.

- :mod:`._ops`: the fusable ops (the op table's rows) and their dtype rules;
- :mod:`._graph`: the traced values;
- :mod:`._tracer`: running the function on stand-ins;
- :mod:`._plan`: which values are written to memory, and the steps;
- :mod:`._paired`: a mean and a std or var of one value as one reduction pass;
- :mod:`._codegen`: each kernel's source;
- :mod:`._explain`: ``fn.explain(...)``;
- :mod:`._fuse`: the decorator and its cache of plans.
"""

from gpuvec.fusion._explain import Explanation
from gpuvec.fusion._fuse import FusedFunction, fuse

__all__ = ["Explanation", "FusedFunction", "fuse"]
