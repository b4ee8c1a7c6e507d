# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._select: boolean masks, NumPy's x[mask] and x[mask] = values.

Serves gpuvec.device_array (DeviceArray.__getitem__ and __setitem__ with a
mask) and gpuvec.manipulation:

  count_true(mask)          the number of true elements of a mask
  compress(x, mask)         x[mask]: a new 1-D array of the selected elements
  expand(x, mask, values)   x[mask] = values, in place

x is a DeviceArray or a NumPy array; mask is a bool array of x's shape: a
NumPy array, or a bool DeviceArray; values is a number or an array. Each
function describes its arrays and makes one ABI call without the GIL; the
C++ boundary (csrc/common/abi_select.cpp) checks the shapes and the count
again, and copies an array whose layout the backends do not take.

Where the data is decides where the work runs (_launch.backend_for): device
data on the cuda backend (a NumPy mask is uploaded once, host values are
copied over), host data (NumPy arrays, host-backend DeviceArrays) on the
host. A device mask for host data, or device values for it, is refused
rather than copied back in silence. Host data in the other byte order is
read, and a NumPy x written, through a native copy (native_byte_order).
NumPy's errors for a mask or values of the wrong shape are DeviceArray's
(device_array.py), which calls these.

These make no result of an op's shape, so they use the pieces of the call
scaffold (_results: new_device_array, mark_used) rather than run_call.
"""

cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.string cimport memset

from gpuvec._core._abi cimport *
from gpuvec._core._copy cimport copy, upload_bools
from gpuvec._core._launch cimport IN_HOST_MEMORY, NUMPY_DATA, ON_DEVICE, Placement
from gpuvec._core._launch cimport fill_launch, make_current, restore_device
from gpuvec._core._operands cimport *
from gpuvec._core._results cimport mark_used, new_device_array
from gpuvec._core._streams cimport resolve_stream

import numpy as np

from gpuvec._core._operands import ARRAY_DTYPE_NAMES, ARRAY_DTYPES

cnp.import_array()

__all__ = ["compress", "count_true", "expand"]


cdef gpuvec_dtype _select_code(object dtype) except *:
    """The ABI dtype of an array that a selection reads or writes."""
    if dtype not in ARRAY_DTYPES:
        raise TypeError(f"boolean indexing takes arrays of {ARRAY_DTYPE_NAMES}, got {dtype}")
    return code_of(dtype)


cdef bint _on_device(object array) noexcept:
    """A DeviceArray whose data is device memory (not a host-backend one)."""
    return isinstance(array, ArrayFields) and (<ArrayFields>array)._host is None


cdef object _host_array(object array):
    """A host array to read (a host-backend DeviceArray's own NumPy array, or
    what NumPy makes of array) whose strides the ABI can describe: whole
    elements, aligned, in native byte order; else a copy that is."""
    array = (<ArrayFields>array)._host if isinstance(array, ArrayFields) else np.asarray(array)
    array = native_byte_order(array)
    if not whole_elements(<cnp.ndarray>array):
        array = np.array(array, order="C")
    return array


cdef int _describe_array(gpuvec_array* a, object array, str name) except -1:
    """The descriptor of a NumPy array or DeviceArray, at its own shape and dtype."""
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef tuple dims = tuple(array.shape)
    cdef int d, ndim = len(dims)
    if ndim > GPUVEC_MAX_NDIM:
        raise ValueError(f"arrays of more than {GPUVEC_MAX_NDIM} dimensions are not supported: "
                         f"{name} has {ndim}")
    for d in range(ndim):
        shape[d] = dims[d]
    return describe_result(a, array, ndim, shape, _select_code(array.dtype))


cdef int _launch_for(gpuvec_launch* launch, object x, object stream) except -1:
    """The launch of a call on x's data (_launch.backend_for's rule)."""
    cdef Placement where
    if _on_device(x):
        where = ON_DEVICE
    elif isinstance(x, ArrayFields):
        where = IN_HOST_MEMORY
    else:
        where = NUMPY_DATA
    return fill_launch(launch, where, 0, stream)


cdef object _mask_for(object x, object mask, object stream):
    """mask where x's data is: a NumPy mask of device data is uploaded into a
    bool DeviceArray (its bytes copied once, in C order)."""
    if _on_device(x):
        if _on_device(mask):
            devices = {(<ArrayFields>x)._device, (<ArrayFields>mask)._device}
            if len(devices) > 1:
                raise ValueError(f"the arrays are on different devices: {sorted(devices)}")
            return mask
        return upload_bools(np.asarray(_host_array(mask), order="C"), (<ArrayFields>x)._device,
                            stream)
    if _on_device(mask):
        raise TypeError("mask is on the device, but x is in host memory: index with a host "
                        "mask (mask.to_host()), or move x to the device first")
    return _host_array(mask)


def count_true(mask, stream=None):
    """The number of true elements of a bool mask: counted by NumPy for a
    NumPy mask, by the ABI for a DeviceArray (on the device for device data,
    which waits for the count)."""
    cdef gpuvec_array mask_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef int64_t count = 0
    cdef int previous = -1
    if not isinstance(mask, ArrayFields):
        return int(np.count_nonzero(mask))
    stream = resolve_stream(stream)
    _launch_for(&launch, mask, stream)
    if _on_device(mask):
        previous = make_current((<ArrayFields>mask)._device)
    try:
        _describe_array(&mask_desc, _host_array(mask) if not _on_device(mask) else mask,
                        "mask")
        with nogil:
            status = abi.count_true(&mask_desc, &count, &launch)
        check(status)
    finally:
        restore_device(previous)
    return count


def compress(x, mask, stream=None):
    """x[mask]: a new 1-D array of the elements of x where mask is true, in C
    order. A DeviceArray for a DeviceArray x, a NumPy array for a NumPy one.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuvec import _core
    >>> x = np.array([[1.0, -2.0], [-3.0, 4.0]])
    >>> _core.compress(x, x > 0)
    array([1., 4.])
    """
    cdef gpuvec_array out_desc, x_desc, mask_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef int previous = -1
    if not isinstance(x, ArrayFields):
        x = _host_array(np.asarray(x))
    stream = resolve_stream(stream)
    _launch_for(&launch, x, stream)
    count = count_true(mask, stream)
    if _on_device(x):
        previous = make_current((<ArrayFields>x)._device)
    try:
        mask = _mask_for(x, mask, stream)
        if isinstance(x, ArrayFields):
            result = new_device_array((count,), x.dtype, (<ArrayFields>x)._device, stream,
                                      not _on_device(x))
        else:
            result = np.empty(count, x.dtype)
        _describe_array(&out_desc, result, "out")
        _describe_array(&x_desc, x if _on_device(x) else _host_array(x), "x")
        _describe_array(&mask_desc, mask, "mask")
        with nogil:
            status = abi.compress(&out_desc, &x_desc, &mask_desc, &launch)
        check(status)
        if _on_device(x):
            mark_used(stream, (x, mask, result))
            (<ArrayFields>result)._stream = stream  # the stream that wrote it
    finally:
        restore_device(previous)
    return result


cdef object _values_for(object x, object values, object stream):
    """values as expand reads them: a number, or an array where x's data is.
    Host values are converted to x's dtype by NumPy, as NumPy's assignment
    converts them; one host value becomes a number (nothing to copy over)."""
    if is_python_number(values) or isinstance(values, np.generic):
        return values
    if isinstance(values, ArrayFields):
        if _on_device(values) != _on_device(x):
            where = "on the device" if _on_device(values) else "in host memory"
            raise TypeError(f"values are {where}, but x is not: move them to x's side first")
        return values if _on_device(values) else _host_array(values)
    array = np.asarray(values)
    if array.dtype != x.dtype:
        array = array.astype(x.dtype)
    if array.size == 1:
        return array.reshape(())[()]
    if not _on_device(x):
        return _host_array(array)
    uploaded = new_device_array(array.shape, x.dtype, (<ArrayFields>x)._device, stream, False)
    copy(uploaded, array)
    return uploaded


def expand(x, mask, values, stream=None):
    """x[mask] = values, in place: the selected elements of x (in C order)
    become the elements of values in turn, or all become its one value.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuvec import _core
    >>> x = np.array([1.0, -2.0, 3.0, -4.0])
    >>> _core.expand(x, x < 0, 0.0)
    >>> x
    array([1., 0., 3., 0.])
    """
    cdef gpuvec_array x_desc, mask_desc, values_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef int previous = -1
    cdef object target = None  # a NumPy x the ABI cannot describe: written via a copy
    if not isinstance(x, ArrayFields):
        if not isinstance(x, np.ndarray):
            raise TypeError(f"x must be a DeviceArray or a numpy.ndarray, got {type(x).__name__}")
        if not x.flags.writeable:
            raise ValueError("assignment destination is read-only")
        if not whole_elements(<cnp.ndarray>x) or not x.dtype.isnative:
            target, x = x, native_byte_order(np.array(x, order="C"))
    stream = resolve_stream(stream)
    _launch_for(&launch, x, stream)
    if _on_device(x):
        previous = make_current((<ArrayFields>x)._device)
    try:
        mask = _mask_for(x, mask, stream)
        values = _values_for(x, values, stream)
        _describe_array(&x_desc, x, "x")  # itself: it is written in place
        _describe_array(&mask_desc, mask, "mask")
        if isinstance(values, (ArrayFields, np.ndarray)):
            _describe_array(&values_desc, values, "values")
        else:
            memset(&values_desc, 0, sizeof(gpuvec_array))
            values_desc.memory = GPUVEC_MEMORY_SCALAR
            values_desc.dtype = GPUVEC_FLOAT64
            values_desc.scalar = float(values)  # for a bool x: nonzero (NaN too) is true
        with nogil:
            status = abi.expand(&x_desc, &mask_desc, &values_desc, &launch)
        check(status)
        if _on_device(x):
            mark_used(stream, (x, mask, values))
            (<ArrayFields>x)._stream = stream  # the stream that last wrote it
    finally:
        restore_device(previous)
    if target is not None:
        target[...] = x
