# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec's compiled core: the Cython wrappers around the C ABI.

One extension module, written in a few files that are included here, so that
the C ABI's state (the CUDA runtime, the last-error message) exists once.
Everything here is private: the public, validating API is in gpuvec/*.py.
"""

from gpuvec._abi cimport *

include "_check.pxi"
include "_array_fields.pxi"
include "_runtime.pxi"
include "_memory.pxi"
include "_streams.pxi"
include "_dlpack.pxi"
include "_span.pxi"
include "_staged.pxi"
include "_ops.pxi"
include "_fast.pxi"
include "_ops_unary.pxi"
include "_ops_blas.pxi"
include "_ops_reduce.pxi"
