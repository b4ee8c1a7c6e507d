# gpuvec._core._reduce's interface: NumPy's axis= rules (see _reduce.pyx).

# axis= as a sorted tuple of axes in range(ndim), with NumPy's errors.
cdef tuple normalize_axes(object axis, int ndim, bint single, bint ufunc_like)
