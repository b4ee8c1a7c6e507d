# The fields of a DeviceArray, kept in a C struct.
#
# gpuvec.DeviceArray (device_array.py) is a Python class that derives from
# ArrayFields. Python code reads and writes the fields as plain attributes
# (self._shape, self._address, ...). The call path (_calls.pxi) reads them as
# C struct members, which costs a few nanoseconds where an attribute lookup
# costs tens. A tiny op reads about thirty of them per call, so this matters
# next to a launch of a few microseconds.

from libc.stdint cimport uintptr_t


cdef class ArrayFields:
    """The data of a DeviceArray: the base class that holds its fields.

    Not meant to be used alone; see :class:`gpuvec.DeviceArray`.
    """

    cdef public object _host  # the NumPy array holding the data (host backend), else None
    cdef public object _owner  # what keeps the device memory alive (a DeviceBuffer, ...)
    cdef public uintptr_t _address  # device address of element (0, ..., 0); 0 on the host
    cdef public tuple _shape
    cdef public tuple _strides  # in bytes, as in NumPy
    cdef public object _dtype  # numpy.dtype: float32 or float64
    cdef public int _device
    cdef public object _stream  # the gpuvec.Stream that last wrote the data, or None
    cdef public bint _readonly
    cdef public bint _contiguous  # C-contiguous
    cdef public Py_ssize_t _size
