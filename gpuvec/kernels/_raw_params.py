"""What CuPy's kernels see besides one element of each input: raw arrays and indices.

gpuvec's elementwise and reduction engines hand the user's code one value
of each input. CuPy's kernels also see, where their code asks for them:

- a ``raw`` parameter, the whole array, indexed by the code (``y[i]``,
  ``y.size()``), as CuPy's ``CArray``;
- the index of the element: ``i`` and ``_ind.size()`` in an
  ElementwiseKernel, ``_J`` (the element's place in its reduction) and
  ``_i`` (the output's index) in a ReductionKernel's ``map_expr``.

Each comes in as one more input of the engine, so that every layout,
broadcast and launch plan of the engine keeps working: an index is an
int64 array broadcast to the call's shape (its values are the C-order
index of each element, whatever the layout the engine walks; float64
values, converted to int64 in the kernel), and a raw
array is an int64 scalar, the address of its descriptor (its data's
address, size, shape and strides) in the memory the kernel runs in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from gpuvec.creation import to_device
from gpuvec.device_array import DeviceArray
from gpuvec.kernels._lexer import tokenize

__all__ = ["SUPPORT_SOURCE", "Staging", "identifiers"]

# The C++ the generated sources define before the user's code: CuPy's
# CArray (``Raw``) over a descriptor, and CuPy's indexer's size (``Indexer``).
SUPPORT_SOURCE = """\
namespace gpuvec_cupy {
// A raw parameter: the whole array, read from its descriptor
// {data address, size, ndim, C-contiguous, shape..., strides in bytes...}.
template <class T>
struct Raw {
  const int64_t* d;
  GPUVEC_HD explicit Raw(int64_t descriptor) : d(reinterpret_cast<const int64_t*>(descriptor)) {}
  GPUVEC_HD T* data() const { return reinterpret_cast<T*>(d[0]); }
  GPUVEC_HD int64_t size() const { return d[1]; }
  GPUVEC_HD int ndim() const { return static_cast<int>(d[2]); }
  GPUVEC_HD const int64_t* shape() const { return d + 4; }
  GPUVEC_HD const int64_t* strides() const { return d + 4 + d[2]; }
  // Element i in C order, as CuPy's CArray::operator[](ptrdiff_t).
  GPUVEC_HD T& operator[](int64_t i) const {
    if (d[3]) return data()[i];
    int64_t bytes = 0;
    for (int k = ndim() - 1; k >= 0; --k) {
      const int64_t n = shape()[k];
      bytes += (i % n) * strides()[k];
      i /= n;
    }
    return *reinterpret_cast<T*>(d[0] + bytes);
  }
  // The element at index idx[0], ..., idx[ndim - 1].
  template <class I>
  GPUVEC_HD T& operator[](const I* idx) const {
    int64_t bytes = 0;
    for (int k = 0; k < ndim(); ++k) bytes += static_cast<int64_t>(idx[k]) * strides()[k];
    return *reinterpret_cast<T*>(d[0] + bytes);
  }
};
// CuPy's _ind, _in_ind and _out_ind: here only their size.
struct Indexer {
  int64_t n;
  GPUVEC_HD int64_t size() const { return n; }
};
}  // namespace gpuvec_cupy
"""


def identifiers(*texts: str) -> set[str]:
    """The identifiers that the texts use (outside comments and strings).

    Examples
    --------
    >>> sorted(identifiers("z = x[i] // _J", "w"))
    ['i', 'w', 'x', 'z']
    """
    return {t.text for text in texts for t in tokenize(text) if t.kind == "name"}


class Staging:
    """The raw arrays and index arrays of one call, in the memory its kernel runs in.

    Parameters
    ----------
    on_gpu : bool
        The call runs on the CUDA backend: descriptors and the arrays they
        point at are device memory (a NumPy array is copied there, and back
        after the call when the kernel may write it).
    device_data : bool
        An argument is a DeviceArray: an index array is one too, as the
        call's results are.
    stream : gpuvec.Stream or None
        The call's stream.
    """

    def __init__(self, on_gpu: bool, device_data: bool, stream):
        self.on_gpu = on_gpu
        self.device_data = device_data
        self.stream = stream
        self._alive: list = []  # what the descriptors point at, until the call is over
        self._write_back: list[tuple[np.ndarray, DeviceArray]] = []

    def descriptor(self, array, writable: bool) -> np.int64:
        """The address of `array`'s descriptor, an int64 scalar input of the kernel."""
        if self.on_gpu:
            if isinstance(array, DeviceArray) and array._host is None:
                device = array
            else:
                host = np.asarray(array._host if isinstance(array, DeviceArray) else array)
                device = to_device(np.ascontiguousarray(host), stream=self.stream)
                if writable:
                    self._write_back.append((host, device))
            address, shape, strides = device._address, device.shape, device.strides
        else:
            host = array._host if isinstance(array, DeviceArray) else array
            address, shape, strides = host.ctypes.data, host.shape, host.strides
            self._alive.append(host)
        itemsize = array.dtype.itemsize
        c_strides = [math.prod(shape[k + 1 :]) * itemsize for k in range(len(shape))]
        contiguous = all(
            n <= 1 or s == c for n, s, c in zip(shape, strides, c_strides, strict=True)
        )
        fields = [address, math.prod(shape), len(shape), int(contiguous), *shape, *strides]
        words = np.array(fields, dtype=np.int64)
        if self.on_gpu:
            words = to_device(words, stream=self.stream)
            self._alive.append(words)
            return np.int64(words._address)
        self._alive.append(words)
        return np.int64(words.ctypes.data)

    def index(self, shape: Iterable[int]):
        """An array of `shape` whose values count its elements in C order: a
        dimension of 1 broadcasts, so that the values count over the others.

        The values are float64, exact below 2**53, which the kernel converts
        to int64: the kernels' calls take NumPy arrays of float dtypes as
        they are (integer data is converted to the compute dtype first)."""
        shape = tuple(shape)
        values = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
        if self.device_data:
            return to_device(values, stream=self.stream)
        return values

    def finish(self) -> None:
        """Copies each staged array the kernel may have written back into its NumPy array."""
        for host, device in self._write_back:
            host[...] = device.get(self.stream)
        self._write_back.clear()
        self._alive.clear()
