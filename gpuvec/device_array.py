"""DeviceArray: data that stays on the device between calls.

On the cuda backend a DeviceArray is device memory (an address, a shape and
byte strides, like a NumPy array's); on the host backend it wraps a NumPy
array, with the same API and results. Ops whose array inputs are all
DeviceArrays return DeviceArrays and move nothing to the host.
"""

from __future__ import annotations

import html
import math
import numbers
import operator

import numpy as np
from numpy.exceptions import AxisError
from numpy.lib.stride_tricks import as_strided

from gpuvec import _complex, _core
from gpuvec._dtypes import as_real_array, check_array_dtype, scalar_arg
from gpuvec._table import ELEMENTWISE
from gpuvec.device import Device

__all__ = ["DeviceArray"]

_BASIC_INDEX = (numbers.Integral, slice, type(Ellipsis), type(None))


def _c_strides(shape, itemsize) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


# dtype kinds of text, which NumPy parses into numbers on assignment.
_TEXT_KINDS = ("U", "S")


def _bool_mask(key):
    """The boolean mask that an index is (``d[mask]``), or None for any other index.

    A mask is a bool NumPy array, a bool DeviceArray, a list of bools or a
    bool scalar, alone or as the one item of a tuple, as NumPy takes it.
    """
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, DeviceArray):
        return key if key.dtype == np.bool_ else None
    if isinstance(key, (bool, np.bool_)):
        return np.asarray(key)
    if isinstance(key, np.ndarray):
        return key if key.dtype == np.bool_ else None
    if isinstance(key, list):
        try:
            array = np.asarray(key)
        except (TypeError, ValueError):  # ragged, or not numbers: no mask
            return None
        return array if array.dtype == np.bool_ else None
    return None


def _fit_mask(mask, shape):
    """mask, checked against the array's leading dimensions, with NumPy's IndexError
    where it does not fit.

    NumPy takes a mask axis of length 0 for an array axis of any length (the
    mask selects nothing); such a mask becomes an all-false mask of the
    array's leading shape, which selects nothing the ordinary way.
    """
    if len(mask.shape) > len(shape):
        raise IndexError(
            f"too many indices for array: array is {len(shape)}-dimensional, "
            f"but {len(mask.shape)} were indexed"
        )
    for axis, (n, m) in enumerate(zip(shape, mask.shape, strict=False)):
        if n != m and m != 0:
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis}; size of axis "
                f"is {n} but size of corresponding boolean axis is {m}"
            )
    if mask.shape != shape[: mask.ndim]:
        return np.zeros(shape[: mask.ndim], np.bool_)
    return mask


def _numpy_shape(shape) -> str:
    """A shape as NumPy's messages write it: (3,4), (3,)."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _leading_ones_dropped(value, target, mismatch):
    """value (a NumPy array or a DeviceArray) without the extents of 1 in front of
    its shape that ``target``, a shape, has no room for, as NumPy drops them
    when it assigns; ``mismatch(shape)`` makes the ValueError where value does
    not broadcast to target."""
    shape = value.shape
    lead = 0
    while value.ndim - lead > len(target) and shape[lead] == 1:
        lead += 1
    fits = value.ndim - lead <= len(target) and all(
        v in (1, t) for v, t in zip(reversed(shape[lead:]), reversed(target), strict=False)
    )
    if not fits:
        raise mismatch(shape)
    return value[(0,) * lead] if lead else value


def _values_over(value, target):
    """value broadcast to ``target``, the shape of ``d[mask]`` for a mask of
    fewer dimensions than d (a view), with NumPy's error when it does not fit.
    Extents of 1 in front of value's shape are dropped first, as NumPy does."""
    if not isinstance(value, DeviceArray):
        value = np.asarray(value)
    if value.ndim == 0:
        return value
    value = _leading_ones_dropped(
        value,
        target,
        lambda shape: ValueError(
            f"shape mismatch: value array of shape {_numpy_shape(shape)} could not be "
            f"broadcast to indexing result of shape {_numpy_shape(target)}"
        ),
    )
    if isinstance(value, DeviceArray):
        return value._broadcast_to(target)
    return np.broadcast_to(value, target)


# The dtypes of host data that the copy reads as they are; NumPy converts others.
_COPIED_AS_IS = (
    np.dtype(np.float16),
    np.dtype(np.float32),
    np.dtype(np.float64),
    np.dtype(np.bool_),
)


def _host_value(value, dtype, ndmax=None):
    """``value`` of ``d[key] = value``, for a ``d`` of ``dtype``, as the copy takes it.

    Real numbers, DeviceArrays and other libraries' GPU arrays go as they are.
    Other values are host data, converted as NumPy's assignment converts them:
    a NumPy array of ints is cast to ``dtype``, and what is not an
    array yet (a list, a tuple, text) becomes one of ``dtype`` (``None`` is NaN,
    "1.5" is parsed), with at most ``ndmax`` dimensions where that is given.
    """
    if isinstance(value, (numbers.Real, DeviceArray)) or (
        isinstance(value, np.generic) and value.dtype.kind in "biuf"
    ):
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind not in _TEXT_KINDS:
        value = as_real_array(value, "value")  # refuses complex data and masks, naming it
        return value if value.dtype in _COPIED_AS_IS else value.astype(dtype)
    if _core.on_gpu(value):
        return value
    value = np.asarray(value, dtype=dtype)  # NumPy's own errors: ragged lists, "x"
    if ndmax is not None and value.ndim > ndmax:
        raise ValueError(
            "setting an array element with a sequence. The requested array would exceed "
            f"the maximum number of dimension of {ndmax}."
        )
    return value


def _assigned_value(value, dtype, target):
    """``value`` of ``d[key] = value`` (see :func:`_host_value`), for a view
    ``d[key]`` of shape ``target``, with NumPy's error where it does not
    broadcast to it."""
    value = _host_value(value, dtype, len(target))
    if not isinstance(value, (DeviceArray, np.ndarray)) or value.ndim == 0:
        return value  # a number, or another library's GPU array
    return _leading_ones_dropped(
        value,
        target,
        lambda shape: ValueError(
            f"could not broadcast input array from shape {_numpy_shape(shape)} "
            f"into shape {_numpy_shape(target)}"
        ),
    )


class DeviceArray(_core.ArrayFields):
    """An N-d float32 or float64 array in device memory.

    Create one with :func:`gpuvec.to_device`, :func:`gpuvec.asarray` or the
    creation functions (:func:`gpuvec.zeros`, ...); bring it back with
    :meth:`to_host` or ``numpy.asarray``. It supports the Python operators
    (``+ - * /``, unary ``-``, in place ``+=`` ...), basic slicing that
    returns views, boolean masks (``d[mask]`` copies, ``d[mask] = v`` writes
    in place, as in NumPy), NumPy's own ufuncs and functions (``np.exp(d)``,
    ``np.sum(d, axis=0)``: see :mod:`gpuvec._numpy_protocols`), and zero-copy
    exchange through ``__cuda_array_interface__`` and DLPack.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> d = gpuvec.to_device(np.arange(6.0).reshape(2, 3))
    >>> d
    DeviceArray([[0., 1., 2.],
                 [3., 4., 5.]], dtype=float64)
    >>> (2 * d + 1)[:, ::2].to_host()
    array([[ 1.,  5.],
           [ 7., 11.]])
    """

    # The fields (_host, _owner, _address, _shape, _strides, _dtype, _device,
    # _stream, _readonly, _contiguous, _size) live in the compiled base class,
    # where the short paths read them as C struct members.
    __slots__ = ()

    # Above NumPy arrays' 0.0: libraries that pick the array type of a mixed
    # pair by it (Dask, to join chunks) pick gpuvec's functions.
    __array_priority__ = 1.0

    # -- NumPy's protocols ------------------------------------------------------------------
    #
    # np.add(d, d), np.sum(d), np.concatenate([d, e]) ... run gpuvec's function
    # for the NumPy one, looked up in tables that gpuvec._numpy_protocols (which
    # sits above the op modules) fills. What is not there is NotImplemented, so
    # NumPy raises its TypeError rather than copying the data to the host in
    # silence. `ndarray + DeviceArray` comes here too, and gpuvec explains the mix-up.

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        implementation = NUMPY_UFUNCS.get((ufunc, method))
        if implementation is None:
            return NotImplemented
        return implementation(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        implementation = NUMPY_FUNCTIONS.get(func)
        # Another library's array among the arguments: its own protocol decides.
        if implementation is None or not all(issubclass(t, _ARRAY_TYPES) for t in types):
            return NotImplemented
        return implementation(*args, **kwargs)

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "create device arrays with gpuvec.to_device, gpuvec.asarray, gpuvec.empty, "
            "gpuvec.zeros, gpuvec.ones, gpuvec.full or gpuvec.arange"
        )

    @classmethod
    def _from_host_array(cls, array: np.ndarray, readonly: bool = False) -> DeviceArray:
        """A host-backend DeviceArray holding ``array`` (not copied)."""
        self = _core.ArrayFields.__new__(cls)
        self._host = array
        self._owner = None
        self._address = 0
        self._shape, self._strides, self._dtype = array.shape, array.strides, array.dtype
        self._device = 0
        self._stream = None
        self._readonly = readonly or not array.flags.writeable
        self._contiguous = array.flags.c_contiguous
        self._size = array.size
        return self

    @classmethod
    def _from_device_memory(
        cls, owner, address, shape, strides, dtype, device, stream=None, readonly=False
    ) -> DeviceArray:
        """A cuda-backend DeviceArray over memory that ``owner`` keeps alive.

        ``address`` is that of element (0, ..., 0); ``strides`` are in bytes;
        ``stream`` (a gpuvec.Stream, or None for the default stream) is where
        the array's data was last written.
        """
        self = _core.ArrayFields.__new__(cls)
        self._host = None
        self._owner = owner
        self._address = int(address)
        self._shape = tuple(int(n) for n in shape)
        self._strides = tuple(int(s) for s in strides)
        self._dtype = np.dtype(dtype)
        self._device = int(device)
        self._stream = stream
        self._readonly = readonly
        self._size = math.prod(self._shape)
        expected = _c_strides(self._shape, self._dtype.itemsize)
        dims = zip(self._shape, self._strides, expected, strict=True)
        self._contiguous = all(n <= 1 or s == e for n, s, e in dims)
        return self

    # -- attributes ---------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes to step in each dimension, as in NumPy."""
        return self._strides

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return self._size

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def real(self) -> DeviceArray:
        """The real part of each element, as a new array (float32 of
        complex64, float64 of complex128; of a real array, a copy).

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> gpuvec.to_device(np.array([1 + 2j, 3 - 4j])).real
        DeviceArray([1., 3.], dtype=float64)
        """
        return _complex.real(self)

    @property
    def imag(self) -> DeviceArray:
        """The imaginary part of each element, as a new array (zeros of a
        real array's dtype).

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> gpuvec.to_device(np.array([1 + 2j, 3 - 4j])).imag
        DeviceArray([ 2., -4.], dtype=float64)
        """
        return _complex.imag(self)

    def conj(self) -> DeviceArray:
        """The complex conjugate of each element, as a new array (a copy of a real array).

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> gpuvec.to_device(np.array([1 + 2j])).conj()
        DeviceArray([1.-2.j], dtype=complex128)
        """
        return _complex.conj(self)

    conjugate = conj

    @property
    def device(self) -> Device:
        return Device(self._device)

    @property
    def is_c_contiguous(self) -> bool:
        return self._contiguous

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d DeviceArray")
        return self._shape[0]

    # -- what the ops see ---------------------------------------------------------------------

    @property
    def _stream_handle(self) -> int:
        return 0 if self._stream is None else self._stream.handle

    def _buffer(self):
        """The DeviceBuffer owning the memory, if gpuvec allocated it."""
        owner = self._owner
        while isinstance(owner, DeviceArray):
            owner = owner._owner
        return owner if isinstance(owner, _core.DeviceBuffer) else None

    def _view(self, shape, strides, address_offset) -> DeviceArray:
        return DeviceArray._from_device_memory(
            self,
            self._address + address_offset,
            shape,
            strides,
            self._dtype,
            self._device,
            self._stream,
            self._readonly,
        )

    # -- indexing, reshaping, copying ---------------------------------------------------------

    def __getitem__(self, key) -> DeviceArray:
        mask = _bool_mask(key)
        if mask is not None:
            return self._select(mask)
        key = key if isinstance(key, tuple) else (key,)
        for k in key:
            if isinstance(k, (bool, np.bool_, list, np.ndarray, DeviceArray)):
                raise TypeError(
                    "DeviceArray supports basic indexing only (ints, slices, ..., None), "
                    f"besides a boolean mask on its own; got {key!r}: index a NumPy copy "
                    "(d.to_host()) for index arrays"
                )
            if not isinstance(k, _BASIC_INDEX):
                # NumPy's IndexError for the same index (a float, a string, ...).
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`) and numpy.newaxis (`None`) "
                    f"are valid indices of a DeviceArray; got {k!r}"
                )
        if Ellipsis not in key:
            key = (*key, Ellipsis)  # keeps an all-int index a 0-d view rather than a scalar
        if self._host is not None:
            return DeviceArray._from_host_array(self._host[key], self._readonly)
        # NumPy does the index arithmetic on a stand-in with the same shape and
        # strides over a one-element buffer; the stand-in's memory is never read.
        probe_base = np.empty(1, self._dtype)
        probe = as_strided(probe_base, self._shape, self._strides, writeable=False)
        view = probe[key]
        offset = view.__array_interface__["data"][0] - probe_base.__array_interface__["data"][0]
        return self._view(view.shape, view.strides, offset)

    def __setitem__(self, key, value) -> None:
        mask = _bool_mask(key)
        if mask is not None:
            self._assign(mask, value)
            return
        target = self[key]
        if target._readonly:
            raise ValueError("assignment destination is read-only")
        # Host data is copied over through the pinned staging buffers, broadcast.
        _core.copy_into(target, _assigned_value(value, self._dtype, target._shape))

    # -- boolean masks ------------------------------------------------------------------------

    def _mask_over(self, mask):
        """mask, of this array's leading dimensions, broadcast over the others:
        a view with stride 0 there (the selection copies it densely once)."""
        extra = self.ndim - mask.ndim
        if extra == 0:
            return mask
        mask = mask[(Ellipsis,) + (None,) * extra]
        if isinstance(mask, DeviceArray):
            return mask._broadcast_to(self._shape)
        return np.broadcast_to(mask, self._shape)

    def _select(self, mask) -> DeviceArray:
        """``self[mask]``: a new array of the elements where the mask is true.

        The mask is a bool array (NumPy or DeviceArray) of this array's shape,
        or of its leading dimensions, as in NumPy; the result has one
        dimension for the mask's, then the dimensions it does not cover. A
        bool scalar is a mask of no dimensions: ``d[True]`` has shape
        ``(1, *d.shape)`` and ``d[False]`` ``(0, *d.shape)``, as in NumPy.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
        >>> d = gpuvec.to_device(x)
        >>> d[x > 0].to_host()
        array([1., 3., 5.])
        >>> d[np.array([False, True])].to_host()
        array([[-4.,  5., -6.]])
        """
        mask = _fit_mask(mask, self._shape)
        result = _core.compress(self, self._mask_over(mask))
        trailing = self._shape[mask.ndim :]
        if not trailing:
            return result
        per_row = math.prod(trailing)
        rows = result.size // per_row if per_row else _core.count_true(mask)
        return result.reshape((rows, *trailing))

    def _assign(self, mask, value) -> None:
        """``self[mask] = value``, in place, with NumPy's rules and errors.

        For a mask of this array's shape, value is a number, or a 0-d or 1-D
        array of one element or of one per true element; for a mask of
        fewer dimensions, anything that broadcasts to the shape of
        ``self[mask]``.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> x = np.array([1.0, -2.0, 3.0, -4.0])
        >>> d = gpuvec.to_device(x)
        >>> d[x < 0] = 0.0
        >>> d[x > 2] = [30.0]
        >>> d.to_host()
        array([ 1.,  0., 30.,  0.])
        """
        if self._readonly:
            raise ValueError("assignment destination is read-only")
        mask = _fit_mask(mask, self._shape)
        value = _host_value(value, self._dtype)  # as NumPy does: ints cast, "1.5" parsed
        if mask.ndim == self.ndim:
            shape = value.shape if isinstance(value, DeviceArray) else np.shape(value)
            if len(shape) > 1:
                raise TypeError(
                    "NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                    f"input, input has {len(shape)} dimensions"
                )
            if len(shape) == 1 and shape[0] != 1:
                count = _core.count_true(mask)
                if shape[0] != count:
                    raise ValueError(
                        f"NumPy boolean array indexing assignment cannot assign {shape[0]} "
                        f"input values to the {count} output values where the mask is true"
                    )
        else:
            rows = _core.count_true(mask)
            value = _values_over(value, (rows, *self._shape[mask.ndim :]))
        _core.expand(self, self._mask_over(mask), value)

    def _broadcast_to(self, shape) -> DeviceArray:
        """A read-only view broadcast to ``shape`` (strides of 0, no copy)."""
        shape = tuple(shape)
        # NumPy's check and error (a target smaller than the array too), on a
        # stand-in of this shape that takes no memory.
        np.broadcast_to(as_strided(np.zeros(1, np.uint8), self._shape, (0,) * self.ndim), shape)
        if self._host is not None:
            return DeviceArray._from_host_array(np.broadcast_to(self._host, shape), True)
        pad = len(shape) - len(self._shape)
        strides = (0,) * pad + tuple(
            0 if n == 1 else s for n, s in zip(self._shape, self._strides, strict=True)
        )
        view = self._view(shape, strides, 0)
        view._readonly = True
        return view

    def _permuted(self, axes) -> DeviceArray:
        """A view with the dimensions in the order ``axes`` (a transpose, no copy)."""
        if self._host is not None:
            return DeviceArray._from_host_array(self._host.transpose(axes), self._readonly)
        shape = tuple(self._shape[d] for d in axes)
        strides = tuple(self._strides[d] for d in axes)
        return self._view(shape, strides, 0)

    def transpose(self, *axes) -> DeviceArray:
        """A view with the axes reversed, or in the order ``axes``; no copy.

        Examples
        --------
        >>> import gpuvec
        >>> m = gpuvec.arange(6).reshape(2, 3)
        >>> m.transpose().shape, m.transpose(1, 0).strides
        ((3, 2), (8, 24))
        """
        ndim = self.ndim
        if not axes or axes == (None,):  # no axes given: reversed
            return self._permuted(tuple(range(ndim))[::-1])
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        # NumPy's errors, in NumPy's order: the count, each axis, repeats.
        order = tuple(operator.index(a) for a in axes)
        if len(order) != ndim:
            raise ValueError("axes don't match array")
        for a in order:
            if not -ndim <= a < ndim:
                raise AxisError(a, ndim)
        order = tuple(a % ndim for a in order)
        if len(set(order)) != ndim:
            raise ValueError("repeated axis in transpose")
        return self._permuted(order)

    @property
    def T(self) -> DeviceArray:
        """The transposed view: ``self.transpose()``."""
        return self.transpose()

    def reshape(self, *shape) -> DeviceArray:
        """A view with another shape; the data must be C-contiguous.

        Examples
        --------
        >>> import gpuvec
        >>> gpuvec.arange(6).reshape(2, -1).shape
        (2, 3)
        """
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(n) for n in shape)
        if shape.count(-1) > 1:
            raise ValueError("can only specify one unknown dimension (-1)")
        known = math.prod(n for n in shape if n != -1)
        if -1 in shape:
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into shape {shape}")
            shape = tuple(self.size // known if n == -1 else n for n in shape)
        if math.prod(shape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {shape}")
        if self._host is not None:
            if not self._host.flags.c_contiguous:
                raise ValueError("reshape needs C-contiguous data: call .copy() first")
            return DeviceArray._from_host_array(self._host.reshape(shape), self._readonly)
        if not self.is_c_contiguous:
            raise ValueError("reshape needs C-contiguous data: call .copy() first")
        return self._view(shape, _c_strides(shape, self.itemsize), 0)

    def copy(self) -> DeviceArray:
        """A C-contiguous copy on the same device."""
        return self.astype(self._dtype)

    def astype(self, dtype) -> DeviceArray:
        """A copy converted to `dtype`, as NumPy's ``astype`` converts.

        A bool is true where the value is nonzero (NaN too); a float becomes
        an integer rounded toward zero; integers wrap around. A NaN, an
        infinity or a float out of the integer dtype's range, for which
        NumPy warns "invalid value encountered in cast", gives what NumPy
        gives on x86-64, on both backends.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> gpuvec.to_device(np.array([-1.5, 0.5, 2.7])).astype(np.int64)
        DeviceArray([-1,  0,  2], dtype=int64)
        >>> gpuvec.to_device(np.array([255, 256, -1])).astype(np.uint8)
        DeviceArray([255,   0, 255], dtype=uint8)
        """
        result = _core.new_array(
            self._shape, check_array_dtype(dtype), self._stream, device=self._device
        )
        _core.copy_into(result, self)
        return result

    def ravel(self) -> DeviceArray:
        """The elements as a 1-D array: a view of C-contiguous data, else a copy.

        Examples
        --------
        >>> import gpuvec
        >>> m = gpuvec.arange(6).reshape(2, 3)
        >>> m.ravel().shape, m.T.ravel().to_host()
        ((6,), array([0, 3, 1, 4, 2, 5]))
        """
        source = self if self.is_c_contiguous else self.copy()
        return source.reshape(-1)

    @property
    def flat(self) -> DeviceArray:
        """A 1-D copy of the elements in C order.

        Unlike NumPy's ``flat`` (an iterator that reads element by element),
        this copies: reading a device array one element at a time would cost
        a transfer per element.
        """
        return self.copy().reshape(-1)

    def fill(self, value) -> None:
        """Sets every element to ``value``, in place.

        Examples
        --------
        >>> import gpuvec
        >>> d = gpuvec.zeros(3)
        >>> d.fill(2.5)
        >>> d.to_host()
        array([2.5, 2.5, 2.5])
        """
        if self._readonly:
            raise ValueError("assignment destination is read-only")
        if isinstance(value, (complex, np.complexfloating)):
            _core.copy_into(self, value)  # both parts (a real array's warns, as NumPy's)
            return
        _core.copy_into(self, scalar_arg(value, "value"))

    # -- back to the host ---------------------------------------------------------------------

    def to_host(self) -> np.ndarray:
        """The data as a new NumPy array (waits for the work that writes it).

        Examples
        --------
        >>> import gpuvec
        >>> gpuvec.ones(3).to_host()
        array([1., 1., 1.])
        """
        # Through the pinned staging buffers: several times faster than a
        # pageable copy, and a strided array is gathered on the way.
        return _core.to_host(self)

    def get(self, stream=None) -> np.ndarray:
        """The data as a new NumPy array: :meth:`to_host`, by the name PyCUDA's and
        CuPy's arrays give it.

        Parameters
        ----------
        stream : gpuvec.Stream, optional
            A stream whose queued work the copy waits for too; the copy always
            waits for the work that writes the array on its own stream.

        Returns
        -------
        numpy.ndarray
            A C-contiguous copy, of the array's shape and dtype.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> a_gpu = gpuvec.to_device(np.array([1.0, 2.0, 3.0]))
        >>> (2 * a_gpu).get()
        array([2., 4., 6.])
        """
        if stream is not None:
            if not callable(getattr(stream, "synchronize", None)):
                raise TypeError(f"stream must be a gpuvec.Stream or None, got {stream!r}")
            stream.synchronize()
        return self.to_host()

    # -- copies and pickling ------------------------------------------------------------------
    #
    # A DeviceArray pickles by value: its data is copied to the host, and
    # unpickling copies it to the current device of the process that loads it
    # (a Dask worker's GPU, say), where an address from another process would
    # mean nothing. As NumPy's, the copy is C-contiguous and writable.

    def __reduce__(self):
        return _unpickle, (self.to_host(),)

    def __copy__(self) -> DeviceArray:
        return self.copy()  # on the device: no round trip through a pickle

    def __deepcopy__(self, memo) -> DeviceArray:
        return self.copy()

    def __array__(self, dtype=None, copy=None):
        result = self.to_host()
        return result if dtype is None else result.astype(dtype, copy=False)

    def _scalar(self):
        if self._size != 1:
            raise TypeError(f"only one-element arrays convert to Python scalars, not {self.shape}")
        owner = self._owner
        if type(owner) is _core.ResultSlot:  # the GPU wrote it to host memory
            return owner.read(self._dtype, 0 if self._stream is None else self._stream.handle)
        if self._host is None:  # one small copy through pinned memory, on the array's device
            return _core.read_scalar(self._address, self._dtype, self._stream_handle, self._device)
        return self._host.reshape(())[()]

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                "the truth value of a DeviceArray with more than one element is ambiguous"
            )
        return bool(self._scalar())

    # -- display ------------------------------------------------------------------------------

    def _preview(self) -> np.ndarray:
        """Enough of the data to print: all of it when small, the corners otherwise."""
        if self.size <= 1000:
            return self.to_host()
        corner = tuple(slice(0, 3) for _ in self._shape)
        return self[corner].to_host()

    def __repr__(self) -> str:
        prefix = "DeviceArray("
        if self.size <= 1 << 20:  # NumPy summarizes what it prints; copy it over first
            body = np.array2string(self.to_host(), separator=", ", prefix=prefix)
        else:
            body = f"<{' x '.join(map(str, self._shape))} elements>"
        return f"{prefix}{body}, dtype={self._dtype})"

    def _repr_html_(self) -> str:
        where = self.device.properties["name"]
        preview = html.escape(np.array2string(self._preview(), threshold=50, edgeitems=3))
        note = "" if self.size <= 1000 else " (first elements)"
        rows = [
            ("shape", self._shape),
            ("dtype", self._dtype),
            ("device", f"{self._device}: {where}"),
            ("nbytes", f"{self.nbytes:,}"),
            (f"data{note}", f"<pre style='margin:0'>{preview}</pre>"),
        ]
        cells = "".join(
            f"<tr><th style='text-align:left'>{k}</th><td>{v}</td></tr>" for k, v in rows
        )
        return f"<table><caption>gpuvec.DeviceArray</caption>{cells}</table>"

    # -- operators and methods ------------------------------------------------------------------
    #
    # Each operator is one call into the core with the op's code from the op
    # table, so DeviceArray needs no import of the modules that define the
    # public functions (they sit above it). The reductions with NumPy's
    # warnings and errors are gpuvec.reductions' functions, which that module
    # registers here (METHODS).

    def __add__(self, other):
        return _core.elementwise(_OP["add"], (self, other), _AB)

    def __radd__(self, other):
        return _core.elementwise(_OP["add"], (other, self), _AB)

    def __sub__(self, other):
        return _core.elementwise(_OP["subtract"], (self, other), _AB)

    def __rsub__(self, other):
        return _core.elementwise(_OP["subtract"], (other, self), _AB)

    def __mul__(self, other):
        return _core.elementwise(_OP["multiply"], (self, other), _AB)

    def __rmul__(self, other):
        return _core.elementwise(_OP["multiply"], (other, self), _AB)

    def __truediv__(self, other):
        return _core.elementwise(_OP["divide"], (self, other), _AB)

    def __rtruediv__(self, other):
        return _core.elementwise(_OP["divide"], (other, self), _AB)

    def __pow__(self, other):
        return _core.elementwise(_OP["power"], (self, other), _AB)

    def __rpow__(self, other):
        return _core.elementwise(_OP["power"], (other, self), _AB)

    def __matmul__(self, other):
        return self.dot(other)

    def __rmatmul__(self, other):
        return METHODS["dot"](other, self)

    def __neg__(self):
        return _core.elementwise(_OP["negative"], (self,), _X)

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        return _core.elementwise(_OP["absolute"], (self,), _X)

    def __iadd__(self, other):
        return _core.elementwise(_OP["add"], (self, other), _AB, self)

    def __isub__(self, other):
        return _core.elementwise(_OP["subtract"], (self, other), _AB, self)

    def __imul__(self, other):
        return _core.elementwise(_OP["multiply"], (self, other), _AB, self)

    def __itruediv__(self, other):
        return _core.elementwise(_OP["divide"], (self, other), _AB, self)

    def __ipow__(self, other):
        return _core.elementwise(_OP["power"], (self, other), _AB, self)

    # Comparisons give bool arrays, as NumPy's do. None and text equal no
    # number: == with them is false everywhere and != true, as NumPy 2 answers.

    def __eq__(self, other):
        if other is None or isinstance(other, (str, bytes)):
            return self._everywhere(False)
        return _core.elementwise(_OP["equal"], (self, other), _AB)

    def __ne__(self, other):
        if other is None or isinstance(other, (str, bytes)):
            return self._everywhere(True)
        return _core.elementwise(_OP["not_equal"], (self, other), _AB)

    def _everywhere(self, value: bool) -> DeviceArray:
        """A new bool array of this one's shape, on its device, ``value`` everywhere."""
        result = _core.new_array(self._shape, _BOOL, self._stream, device=self._device)
        _core.copy_into(result, np.bool_(value))
        return result

    def __lt__(self, other):
        return _core.elementwise(_OP["less"], (self, other), _AB)

    def __le__(self, other):
        return _core.elementwise(_OP["less_equal"], (self, other), _AB)

    def __gt__(self, other):
        return _core.elementwise(_OP["greater"], (self, other), _AB)

    def __ge__(self, other):
        return _core.elementwise(_OP["greater_equal"], (self, other), _AB)

    # Hashed by identity: a DeviceArray can be a dict key (looked up by
    # identity first), although == compares elements.
    __hash__ = object.__hash__

    # NumPy's integer operators: ~ & | ^ (on bools, the logical ops), << >>,
    # // and %, each the op table's row of NumPy's name, so the dtypes they
    # take and give are NumPy's (~ of a float is NumPy's TypeError).

    def __invert__(self):
        return _core.elementwise(_OP["invert"], (self,), _X)

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __and__(self, other):
        return _core.elementwise(_OP["bitwise_and"], (self, other), _AB)

    def __rand__(self, other):
        return _core.elementwise(_OP["bitwise_and"], (other, self), _AB)

    def __iand__(self, other):
        return _core.elementwise(_OP["bitwise_and"], (self, other), _AB, self)

    def __or__(self, other):
        return _core.elementwise(_OP["bitwise_or"], (self, other), _AB)

    def __ror__(self, other):
        return _core.elementwise(_OP["bitwise_or"], (other, self), _AB)

    def __ior__(self, other):
        return _core.elementwise(_OP["bitwise_or"], (self, other), _AB, self)

    def __xor__(self, other):
        return _core.elementwise(_OP["bitwise_xor"], (self, other), _AB)

    def __rxor__(self, other):
        return _core.elementwise(_OP["bitwise_xor"], (other, self), _AB)

    def __ixor__(self, other):
        return _core.elementwise(_OP["bitwise_xor"], (self, other), _AB, self)

    def __lshift__(self, other):
        return _core.elementwise(_OP["left_shift"], (self, other), _AB)

    def __rlshift__(self, other):
        return _core.elementwise(_OP["left_shift"], (other, self), _AB)

    def __ilshift__(self, other):
        return _core.elementwise(_OP["left_shift"], (self, other), _AB, self)

    def __rshift__(self, other):
        return _core.elementwise(_OP["right_shift"], (self, other), _AB)

    def __rrshift__(self, other):
        return _core.elementwise(_OP["right_shift"], (other, self), _AB)

    def __irshift__(self, other):
        return _core.elementwise(_OP["right_shift"], (self, other), _AB, self)

    def __floordiv__(self, other):
        return _core.elementwise(_OP["floor_divide"], (self, other), _AB)

    def __rfloordiv__(self, other):
        return _core.elementwise(_OP["floor_divide"], (other, self), _AB)

    def __ifloordiv__(self, other):
        return _core.elementwise(_OP["floor_divide"], (self, other), _AB, self)

    def __mod__(self, other):
        return _core.elementwise(_OP["remainder"], (self, other), _AB)

    def __rmod__(self, other):
        return _core.elementwise(_OP["remainder"], (other, self), _AB)

    def __imod__(self, other):
        return _core.elementwise(_OP["remainder"], (self, other), _AB, self)

    def dot(self, other):
        """The dot product with ``other`` (see :func:`gpuvec.dot`): a 0-d DeviceArray."""
        return METHODS["dot"](self, other)

    def sum(self, axis=None, *, dtype=None, keepdims=False):
        """The sum over ``axis`` (see :func:`gpuvec.sum`)."""
        return METHODS["sum"](self, axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, *, dtype=None, keepdims=False):
        """The mean over ``axis`` (see :func:`gpuvec.mean`)."""
        return METHODS["mean"](self, axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, *, keepdims=False):
        """The largest element over ``axis`` (see :func:`gpuvec.max`)."""
        return METHODS["max"](self, axis, keepdims=keepdims)

    def min(self, axis=None, *, keepdims=False):
        """The smallest element over ``axis`` (see :func:`gpuvec.min`)."""
        return METHODS["min"](self, axis, keepdims=keepdims)

    def prod(self, axis=None, *, dtype=None, keepdims=False):
        """The product over ``axis`` (see :func:`gpuvec.prod`)."""
        return METHODS["prod"](self, axis, dtype=dtype, keepdims=keepdims)

    def argmax(self, axis=None, *, keepdims=False):
        """The index of the largest element over ``axis`` (see :func:`gpuvec.argmax`)."""
        return METHODS["argmax"](self, axis, keepdims=keepdims)

    def argmin(self, axis=None, *, keepdims=False):
        """The index of the smallest element over ``axis`` (see :func:`gpuvec.argmin`)."""
        return METHODS["argmin"](self, axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        """The cumulative sum along ``axis`` (see :func:`gpuvec.cumsum`)."""
        return METHODS["cumsum"](self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """The cumulative product along ``axis`` (see :func:`gpuvec.cumprod`)."""
        return METHODS["cumprod"](self, axis, dtype, out)

    def sort(self, axis=-1, kind=None, order=None) -> None:
        """Sorts the array in place along ``axis``, stably (see :func:`gpuvec.sort`).

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.to_device(np.array([3, 1, 2]))
        >>> d.sort()
        >>> d
        DeviceArray([1, 2, 3], dtype=int64)
        """
        METHODS["sort"](self, axis, kind, order)

    def argsort(self, axis=-1, kind=None, order=None):
        """The indices that sort the array along ``axis`` (see :func:`gpuvec.argsort`)."""
        return METHODS["argsort"](self, axis, kind, order)

    def any(self, axis=None, *, keepdims=False):
        """Whether any element over ``axis`` is nonzero (see :func:`gpuvec.any`)."""
        return METHODS["any"](self, axis, keepdims=keepdims)

    def all(self, axis=None, *, keepdims=False):
        """Whether every element over ``axis`` is nonzero (see :func:`gpuvec.all`)."""
        return METHODS["all"](self, axis, keepdims=keepdims)

    def var(self, axis=None, *, ddof=0, dtype=None, keepdims=False):
        """The variance over ``axis`` (see :func:`gpuvec.var`).

        Examples
        --------
        >>> import gpuvec
        >>> m = gpuvec.arange(6).reshape(2, 3)
        >>> float(m.var()), m.std(axis=1, keepdims=True).shape
        (2.9166666666666665, (2, 1))
        """
        return METHODS["var"](self, axis, ddof=ddof, dtype=dtype, keepdims=keepdims)

    def std(self, axis=None, *, ddof=0, dtype=None, keepdims=False):
        """The standard deviation over ``axis`` (see :func:`gpuvec.std`)."""
        return METHODS["std"](self, axis, ddof=ddof, dtype=dtype, keepdims=keepdims)

    # -- zero-copy exchange -------------------------------------------------------------------

    @property
    def __cuda_array_interface__(self) -> dict:
        if self._host is not None:
            raise AttributeError("a host-backend DeviceArray is in host memory")
        return {
            "shape": self._shape,
            "typestr": self._dtype.str,
            "data": (self._address, self._readonly),
            "version": 3,
            "strides": None if self.is_c_contiguous else self._strides,
            # The consumer waits for this stream; 1 is CUDA's legacy default stream.
            "stream": self._stream_handle or 1,
        }

    @property
    def __array_interface__(self) -> dict:
        if self._host is None:
            raise AttributeError("a cuda-backend DeviceArray is in device memory")
        return self._host.__array_interface__

    def __dlpack_device__(self) -> tuple[int, int]:
        if self._host is not None:
            return (_core.DLPACK_CPU, 0)
        return (_core.DLPACK_CUDA, self._device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self._host is not None:
            return self._host.__dlpack__(stream=stream)
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to device {dl_device} without a copy")
        source = self.copy() if copy else self
        if stream is not None and stream != -1:
            # The consumer reads on its stream: make it wait for our work.
            consumer = 0 if stream == 1 else int(stream)
            event = _core.CudaEvent()
            event.record(source._stream_handle)
            event.wait_on(consumer)
        itemsize = self.itemsize
        return _core.to_dlpack(
            source,
            source._address,
            source._shape,
            tuple(s // itemsize for s in source._strides),
            itemsize,
            _core.DLPACK_CUDA,
            source._device,
            _DLPACK_CODES[self._dtype.kind],
        )


# The op codes the operators use, from the op table; the argument names of
# their error messages.
_OP = ELEMENTWISE
_AB, _X = ("a", "b"), ("x",)
_BOOL = np.dtype(np.bool_)

# The reductions behind the methods, registered by gpuvec.reductions (which
# sits above this module): sum, mean, max, min, prod, argmax, argmin, any,
# all, var, std and dot.
METHODS: dict = {}

# The implementations of NumPy's protocols, filled by gpuvec._numpy_protocols
# (which sits above every op module): (ufunc, method) -> callable, and NumPy
# function -> callable. A callable returns NotImplemented for arguments it
# does not take.
NUMPY_UFUNCS: dict = {}
NUMPY_FUNCTIONS: dict = {}

# The array types __array_function__ answers for; NumPy arrays among
# DeviceArrays get gpuvec's error, which says to copy them to the device.
_ARRAY_TYPES = (DeviceArray, np.ndarray)


def _unpickle(data: np.ndarray) -> DeviceArray:
    """A pickled DeviceArray's data, copied to the current device in its own dtype."""
    # An explicit float dtype, so that a precision set where it is loaded
    # cannot change it; bool data stays bool without one.
    return _core.to_device(data, None if data.dtype == np.bool_ else data.dtype)


# DLPack's type code of each dtype kind a DeviceArray holds.
_DLPACK_CODES = {
    "f": _core.DLPACK_FLOAT,
    "i": _core.DLPACK_INT,
    "u": _core.DLPACK_UINT,
    "b": _core.DLPACK_BOOL,
    "c": _core.DLPACK_COMPLEX,
}
