# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._copy: moving and converting data.

Serves gpuvec.device_array and gpuvec.creation (copy_into, to_device,
to_host) and the modules of the core that run ops: a ResultSlot operand is
copied into device memory first (device_scalars), a host bool array
uploaded (upload_bools), a result cast into an out of another dtype (copy).
A copy between host and device goes through the pinned staging buffers on
the C++ side.
"""

cimport numpy as cnp
from libc.stdint cimport int64_t

from gpuvec._core._abi cimport *
from gpuvec._core._launch cimport IN_HOST_MEMORY, ON_DEVICE, fill_launch, make_current
from gpuvec._core._launch cimport restore_device
from gpuvec._core._memory cimport PinnedHostMemory, ResultSlot, count_transfer, upload
from gpuvec._core._operands cimport *
from gpuvec._core._results cimport new_device_array
from gpuvec._core._streams cimport stream_handle

import warnings

import numpy as np
from numpy.exceptions import ComplexWarning

from gpuvec._core._operands import ARRAY_DTYPES, check_array_dtype, result_dtype
from gpuvec._core._results import new_array

cnp.import_array()

__all__ = ["copy_into", "to_device", "to_host"]


cdef int copy(object target, object source) except -1:
    """target[...] = source for DeviceArrays (or NumPy arrays) of one shape, any dtypes."""
    cdef Operands ops = Operands()
    cdef gpuvec_array result_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef int ndim, d, device = -1, previous
    cdef gpuvec_dtype out_code
    cdef Py_ssize_t size = 1
    if is_complex_number(source):  # no double holds it: a 0-d array of its dtype
        source = np.asarray(source)
    add(ops, source, "source")
    if ops.arrays[0].dtype in (GPUVEC_COMPLEX64, GPUVEC_COMPLEX128) \
            and target.dtype.kind != "c":
        # NumPy's warning, for astype and for an assignment alike.
        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=3)
    # Host ints are converted by NumPy into the dtype the copy writes (add
    # keeps them as they are until the dtype is known); floats by gpuvec.
    out_code = code_of(target.dtype)
    convert_host_inputs(ops, dtype_of_code(out_code))
    # The copy runs on the device that holds the device data (one device: the
    # kernels of a strided or converting copy cannot read another's memory).
    for array in (target, source):
        if isinstance(array, ArrayFields) and (<ArrayFields>array)._host is None:
            if device >= 0 and (<ArrayFields>array)._device != device:
                raise ValueError(f"the arrays are on different devices: "
                                 f"{sorted({device, (<ArrayFields>array)._device})}: copy "
                                 f"through the host (x.to_host()) or compute on one device")
            device = (<ArrayFields>array)._device
    target_shape = tuple(target.shape)
    ndim = len(target_shape)
    for d in range(ndim):
        shape[d] = target_shape[d]
        size *= shape[d]
    if size == 0:
        return 0
    # Broadcast the source to the target's shape.
    a = &ops.arrays[0]
    if ops.kinds[0] != SCALAR:
        np.broadcast_shapes(shape_of(ops.objects[0]), target_shape)
    broadcast_to(a, ndim, shape)
    describe_result(&result_desc, target, ndim, shape, out_code)
    # The copy queues behind the work that wrote the device data: on the
    # target's stream, or for a download on the source's (a reduction on a
    # gpuvec.Stream writes its result there, which the default stream does
    # not wait for).
    if isinstance(target, ArrayFields):
        stream = target._stream
    elif isinstance(source, ArrayFields):
        stream = source._stream
    else:
        stream = None
    # A copy computes nothing: it runs where its data is, NumPy's included.
    on_device = (result_desc.memory == GPUVEC_MEMORY_DEVICE or a.memory == GPUVEC_MEMORY_DEVICE)
    fill_launch(&launch, ON_DEVICE if on_device else IN_HOST_MEMORY, 0, stream)
    previous = make_current(device)
    try:
        with nogil:  # a scalar source fills the target
            status = abi.copy(&result_desc, a, &launch)
        check(status)
    finally:
        restore_device(previous)
    _count_copy(a.memory, result_desc.memory, size * itemsize_of(out_code))
    return 0


cdef int _count_copy(gpuvec_memory source, gpuvec_memory target, Py_ssize_t nbytes) except -1:
    if source == GPUVEC_MEMORY_HOST and target == GPUVEC_MEMORY_DEVICE:
        count_transfer(nbytes, 0)
    elif source == GPUVEC_MEMORY_DEVICE and target == GPUVEC_MEMORY_HOST:
        count_transfer(0, nbytes)
    return 0


def copy_into(target, source):
    """target[...] = source: a DeviceArray (or NumPy array) from a DeviceArray, a
    NumPy array or a number, broadcast, with the dtype converted. Host data
    reaches the device through the pinned staging buffers, and comes back
    through them."""
    copy(target, source)


def to_device(array, dtype=None, stream=None):
    """A new DeviceArray holding a copy of host data (anything NumPy takes),
    of `dtype` (check_array_dtype's). By default bools and integers keep
    their dtype, and floats take the policy's (result_dtype: their own, or
    the precision's where one is set)."""
    array = as_real_array(array, "x")
    held = native_dtype(array.dtype)
    if dtype is not None:
        target = check_array_dtype(dtype)
    elif held.kind in "fc":
        target = result_dtype(array)  # complex: its own (a longer one complex128)
    else:
        target = held
    if held not in ARRAY_DTYPES:
        array = array.astype(target)  # a longer float: NumPy converts it
    result = new_array(array.shape, target, stream)
    # Converted by gpuvec on either backend (never by NumPy, whose values for
    # what an integer dtype cannot hold depend on the processor).
    copy(result, array)
    return result


def to_host(array):
    """A new NumPy array holding a copy of a DeviceArray's data."""
    cdef ArrayFields f = <ArrayFields>array
    if f._host is not None:
        return np.array(f._host, copy=True)
    result = _host_result(f._shape, f._dtype, f._size * f._dtype.itemsize)
    copy(result, array)
    return result


cdef object _host_result(tuple shape, object dtype, Py_ssize_t nbytes):
    """An empty C-ordered NumPy array of `nbytes` for a download: in pinned
    memory where gpuvec's pool gives some (the copy then lands at the bus's
    full speed), else NumPy's own."""
    memory = PinnedHostMemory.take(nbytes) if nbytes > 0 else None
    if memory is None:
        return np.empty(shape, dtype)
    return np.frombuffer(memory, dtype).reshape(shape)


cdef object as_float16(object result, object stream):
    """A new float16 array (or NumPy scalar) of a float32 result's values,
    each rounded to the nearest float16: the result of an op whose NumPy
    result is float16, which gpuvec computes in float32 as NumPy does.
    NumPy rounds its own arrays, as gpuvec's conversion does."""
    cdef ArrayFields f
    if not isinstance(result, ArrayFields):
        return result.astype(FLOAT16)
    f = <ArrayFields>result
    rounded = new_device_array(f._shape, FLOAT16, f._device, stream, f._host is not None)
    copy(rounded, result)
    return rounded


cdef int complex_scalars(Operands ops, object compute, object stream, int first=0) except -1:
    """Complex scalar operands (a Python complex, a NumPy complex scalar),
    whose value the ABI's one double cannot hold, become 0-d arrays of the
    compute dtype: NumPy's for host data (and the host backend), a
    DeviceArray on the data's device for device data. The kernels read the
    one element through stride 0, as a broadcast array."""
    cdef int k
    cdef gpuvec_array* a
    for k in range(first, ops.count):
        a = &ops.arrays[k]
        if ops.kinds[k] != SCALAR or not (a.dtype == GPUVEC_COMPLEX64
                                          or a.dtype == GPUVEC_COMPLEX128):
            continue
        if compute.kind != "c":
            raise TypeError(f"{ops.names[k]} is complex, but the op computes in {compute}")
        value = np.asarray(ops.objects[k], dtype=compute)
        if ops.device_mode and not ops.host_backed:
            held = new_device_array((), compute, ops.device if ops.device >= 0 else 0, stream,
                                    False)
            copy(held, value)
            ops.objects[k] = held
            describe_device_array(ops, k, <ArrayFields>held)
        else:
            ops.objects[k] = value
            describe_host_array(ops, k, value)
            if ops.device_mode:
                ops.kinds[k] = DEVICE_DATA  # host-backend device data is host memory
    return 0


cdef int device_scalars(Operands ops, object stream) except -1:
    """A reduction result of one element still in mapped host memory (a
    ResultSlot: 0-d, or of shape (1, ...) with keepdims) is copied into device
    memory, in its shape, before it is read as an operand: every thread
    reading it would otherwise cross the bus."""
    cdef int k
    cdef ArrayFields f
    for k in range(ops.count):
        if ops.kinds[k] == DEVICE_DATA and isinstance(ops.objects[k], ArrayFields):
            f = <ArrayFields>ops.objects[k]
            if type(f._owner) is ResultSlot:
                copied = new_device_array(f._shape, f._dtype, f._device, stream, False)
                copy(copied, f)
                ops.objects[k] = copied
                describe_device_array(ops, k, <ArrayFields>copied)
    return 0


cdef object upload_bools(cnp.ndarray host, int device, object stream):
    """A new bool DeviceArray on `device` holding a C-ordered host bool array:
    where's condition or a mask for device data. Its bytes are copied once,
    and a 0-d array stays 0-d."""
    uploaded = new_device_array((<object>host).shape, BOOL, device, stream, False)
    upload((<ArrayFields>uploaded)._address, cnp.PyArray_DATA(host), cnp.PyArray_NBYTES(host),
           stream_handle(stream))
    return uploaded
