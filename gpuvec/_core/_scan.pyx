# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._scan: scans, sorts and counts (gpuvec/scan.h).

Serves gpuvec/scans.py (cumsum, cumprod, bincount, histogram) and
gpuvec/sorting.py (sort, argsort, searchsorted, unique), which move the axis
last, pick the dtypes and make the results; each function here describes the
arrays it is given, at their own shapes and dtypes, and makes one ABI call
without the GIL:

  scan(op, out, x)                       out = cumsum (op 0) / cumprod (op 1) of x's rows
  sort(x, values, indices)               each row of x sorted (values), and argsort (indices)
  histogram(counts, x, weights, edges)   counts of x per bin (edges None: bincount)
  searchsorted(out, sorted, v, right)    insertion points of v in the 1-D `sorted`
  sorted_runs(starts, sorted)            where the runs of equal elements of `sorted` begin

The arrays are DeviceArrays, or NumPy arrays in native byte order whose
strides are whole elements; all of a call's are on one side. Where the first
array's data is decides where the work runs: device data on the cuda
backend, host data (NumPy arrays, host-backend DeviceArrays) on the host.
"""

from gpuvec._core._abi cimport *
from gpuvec._core._launch cimport IN_HOST_MEMORY, NUMPY_DATA, ON_DEVICE, Placement
from gpuvec._core._launch cimport fill_launch, make_current, restore_device
from gpuvec._core._operands cimport ArrayFields, code_of, describe_result
from gpuvec._core._results cimport mark_used
from gpuvec._core._streams cimport resolve_stream

from libc.stdint cimport int64_t

__all__ = ["histogram", "scan", "searchsorted", "sort", "sorted_runs"]


cdef bint _on_device(object array) noexcept:
    """A DeviceArray whose data is device memory (not a host-backend one)."""
    return isinstance(array, ArrayFields) and (<ArrayFields>array)._host is None


cdef int _describe(gpuvec_array* a, object array) except -1:
    """The descriptor of a NumPy array or DeviceArray, at its own shape and dtype."""
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef tuple dims = tuple(array.shape)
    cdef int d, ndim = len(dims)
    if ndim > GPUVEC_MAX_NDIM:
        raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not supported, "
                         f"got {ndim}")
    for d in range(ndim):
        shape[d] = dims[d]
    return describe_result(a, array, ndim, shape, code_of(array.dtype))


cdef class _Call:
    """One call's launch, the device made current for it, and its arrays."""
    cdef gpuvec_launch launch
    cdef int previous
    cdef object stream
    cdef tuple arrays

    def __cinit__(self, object first, tuple arrays, object stream):
        cdef Placement where
        self.previous = -1
        self.arrays = arrays
        self.stream = resolve_stream(stream)
        if _on_device(first):
            where = ON_DEVICE
        elif isinstance(first, ArrayFields):
            where = IN_HOST_MEMORY
        else:
            where = NUMPY_DATA
        fill_launch(&self.launch, where, 0, self.stream)
        if _on_device(first):
            self.previous = make_current((<ArrayFields>first)._device)

    cdef int done(self, object written) except -1:
        """After the call: who used which memory, the stream that wrote `written`."""
        if self.launch.backend == GPUVEC_BACKEND_CUDA:
            mark_used(self.stream, self.arrays)
            for array in written:
                if _on_device(array):
                    (<ArrayFields>array)._stream = self.stream
        return 0

    cdef int restore(self) except -1:
        restore_device(self.previous)
        self.previous = -1
        return 0


def scan(int op, out, x, stream=None):
    """out = the inclusive scan of x's rows (its last dimension), computed in
    out's dtype: op 0 sums (cumsum), op 1 multiplies (cumprod)."""
    cdef gpuvec_array out_desc, x_desc
    cdef gpuvec_status status
    cdef _Call call = _Call(x, (out, x), stream)
    try:
        _describe(&out_desc, out)
        _describe(&x_desc, x)
        with nogil:
            status = scan_abi.scan(<gpuvec_scan_op>op, &out_desc, &x_desc, &call.launch)
        check(status)
        call.done((out,))
    finally:
        call.restore()


def sort(x, values, indices, stream=None):
    """Each row of x sorted stably into values (x's dtype), and the positions
    in their rows into indices (int64); either may be None."""
    cdef gpuvec_array x_desc, values_desc, indices_desc
    cdef gpuvec_array* values_ptr = NULL
    cdef gpuvec_array* indices_ptr = NULL
    cdef gpuvec_status status
    cdef _Call call = _Call(x, (x, values, indices), stream)
    try:
        _describe(&x_desc, x)
        if values is not None:
            _describe(&values_desc, values)
            values_ptr = &values_desc
        if indices is not None:
            _describe(&indices_desc, indices)
            indices_ptr = &indices_desc
        with nogil:
            status = scan_abi.sort(values_ptr, indices_ptr, &x_desc, &call.launch)
        check(status)
        call.done((values, indices))
    finally:
        call.restore()


def histogram(counts, x, weights, edges, stream=None):
    """counts = the number of elements of x (the sum of their weights) per
    bin: bin x of len(counts) bins (edges None: bincount), or the bin among
    the increasing edges (histogram)."""
    cdef gpuvec_array counts_desc, x_desc, weights_desc, edges_desc
    cdef gpuvec_array* weights_ptr = NULL
    cdef gpuvec_array* edges_ptr = NULL
    cdef gpuvec_status status
    cdef _Call call = _Call(x, (counts, x, weights, edges), stream)
    try:
        _describe(&counts_desc, counts)
        _describe(&x_desc, x)
        if weights is not None:
            _describe(&weights_desc, weights)
            weights_ptr = &weights_desc
        if edges is not None:
            _describe(&edges_desc, edges)
            edges_ptr = &edges_desc
        with nogil:
            status = scan_abi.histogram(&counts_desc, &x_desc, weights_ptr, edges_ptr,
                                        &call.launch)
        check(status)
        call.done((counts,))
    finally:
        call.restore()


def searchsorted(out, sorted, v, bint right, stream=None):
    """out (int64, v's shape) = the insertion points of v's elements in the
    sorted 1-D array `sorted` (of v's dtype): before equal elements, or after
    them when `right`."""
    cdef gpuvec_array out_desc, sorted_desc, v_desc
    cdef gpuvec_status status
    cdef _Call call = _Call(v, (out, sorted, v), stream)
    try:
        _describe(&out_desc, out)
        _describe(&sorted_desc, sorted)
        _describe(&v_desc, v)
        with nogil:
            status = scan_abi.searchsorted(&out_desc, &sorted_desc, &v_desc, right,
                                           &call.launch)
        check(status)
        call.done((out,))
    finally:
        call.restore()


def sorted_runs(starts, sorted, stream=None):
    """starts (bool, 1-D) = whether each element of the sorted 1-D array
    begins a run of equal elements (NaNs equal)."""
    cdef gpuvec_array starts_desc, sorted_desc
    cdef gpuvec_status status
    cdef _Call call = _Call(sorted, (starts, sorted), stream)
    try:
        _describe(&starts_desc, starts)
        _describe(&sorted_desc, sorted)
        with nogil:
            status = scan_abi.sorted_runs(&starts_desc, &sorted_desc, &call.launch)
        check(status)
        call.done((starts,))
    finally:
        call.restore()
