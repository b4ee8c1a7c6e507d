"""``Generator`` and ``default_rng``: NumPy's Generator API, giving DeviceArrays."""

from __future__ import annotations

import numpy as np

from gpuvec.random import _draws
from gpuvec.random._bit_generator import Philox
from gpuvec.random._placement import host_argument, host_out, placed, shuffled_in_place

__all__ = ["Generator", "default_rng"]


class Generator:
    """NumPy's ``Generator`` over a Philox bit generator, giving DeviceArrays.

    Each method draws exactly the values, in the same order and dtype, that
    ``numpy.random.Generator`` draws from the same Philox state, with NumPy's
    arguments (``size=``, ``dtype=``, ``out=``) and errors, and leaves the
    state where NumPy's would. Arrays come back as DeviceArrays; one value
    (``size=None`` with scalar parameters) as NumPy's scalar; a NumPy array
    given as ``out=`` is filled as NumPy fills it.

    Parameters
    ----------
    bit_generator : Philox
        :class:`gpuvec.random.Philox`, or NumPy's ``numpy.random.Philox``; its
        state is shared, not copied. Other bit generators (PCG64, MT19937)
        raise TypeError: gpuvec's draws are defined on Philox's counter-based
        stream, which a kernel can compute at any position.

    See Also
    --------
    default_rng : a Generator from a seed.
    numpy.random.Generator : the values this class reproduces.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> rng = gpuvec.random.Generator(gpuvec.random.Philox(12345))
    >>> ref = np.random.Generator(np.random.Philox(12345))
    >>> np.array_equal(rng.standard_normal(4).to_host(), ref.standard_normal(4))
    True
    >>> rng.bit_generator.state["buffer_pos"] == ref.bit_generator.state["buffer_pos"]
    True
    """

    def __init__(self, bit_generator) -> None:
        if not isinstance(bit_generator, np.random.Philox):
            raise TypeError(
                f"gpuvec.random.Generator takes a Philox bit generator (gpuvec.random.Philox), "
                f"not {type(bit_generator).__name__}: its draws are defined on Philox's stream"
            )
        self._bit_generator = bit_generator

    def __repr__(self) -> str:
        return f"{self} at 0x{id(self):X}"

    def __str__(self) -> str:
        return f"Generator({type(self._bit_generator).__name__})"

    @property
    def bit_generator(self):
        """The Philox bit generator: its ``state`` is the stream's key and position."""
        return self._bit_generator

    def spawn(self, n_children: int) -> list[Generator]:
        """``n_children`` independent Generators, from the bit generator's SeedSequence.

        Parameters
        ----------
        n_children : int
            How many.

        Returns
        -------
        list of Generator
            Each over ``bit_generator.spawn(n_children)[i]``, as NumPy's.

        Raises
        ------
        TypeError
            The bit generator was not seeded with a SeedSequence (a ``key=``).

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> kids = gpuvec.random.default_rng(1).spawn(2)
        >>> ref = np.random.Generator(np.random.Philox(1)).spawn(2)
        >>> np.array_equal(kids[1].random(3).to_host(), ref[1].random(3))
        True
        """
        return [type(self)(bits) for bits in self._bit_generator.spawn(n_children)]

    def random(self, size=None, dtype=np.float64, out=None):
        """Uniform floats in [0, 1).

        Parameters
        ----------
        size : int or tuple of int, optional
            The shape; None for one value.
        dtype : {float64, float32}, optional
            The values' dtype; float32 values take half the stream.
        out : DeviceArray or ndarray, optional
            Where to write: contiguous (C or Fortran order, filled in memory
            order), of ``dtype`` and, with ``size``, of that shape.

        Returns
        -------
        DeviceArray or float
            ``out`` where given.

        Raises
        ------
        TypeError
            ``dtype`` is not float32 or float64, or ``out``'s dtype is not ``dtype``.
        ValueError
            ``out`` is not contiguous or writable, or its shape is not ``size``.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> out = gpuvec.empty(3, np.float32)
        >>> _ = gpuvec.random.default_rng(0).random(out=out, dtype=np.float32)
        >>> ref = np.random.Generator(np.random.Philox(0)).random(3, np.float32)
        >>> np.array_equal(out.to_host(), ref)
        True
        """
        host = host_out(out)
        values = _draws.random_values(self._bit_generator, size, dtype, host)
        return placed(values, out, host)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Uniform integers in [low, high), or [low, high] with ``endpoint=True``.

        Parameters
        ----------
        low : int or array_like of int
            The lowest value; the highest (exclusive) when ``high`` is None,
            with ``low`` then 0.
        high : int or array_like of int, optional
            One above the highest value (the highest, with ``endpoint``).
        size : int or tuple of int, optional
            The shape; None for one value, or the bounds' broadcast shape.
        dtype : dtype, optional
            int8 to uint64, or bool.
        endpoint : bool, optional
            Include ``high``.

        Returns
        -------
        DeviceArray or NumPy integer

        Raises
        ------
        ValueError
            ``low`` is not below ``high`` (at most ``high`` with ``endpoint``),
            or a bound is outside ``dtype``'s range.
        TypeError
            ``dtype`` is not an integer or bool dtype.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(5).integers(1, 7, size=8, dtype=np.uint8)
        >>> ref = np.random.Generator(np.random.Philox(5)).integers(1, 7, 8, np.uint8)
        >>> d.dtype, np.array_equal(d.to_host(), ref)
        (dtype('uint8'), True)
        """
        values = _draws.integer_values(
            self._bit_generator, host_argument(low), host_argument(high), size, dtype, endpoint
        )
        return placed(values)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Uniform float64 values in [low, high).

        Parameters
        ----------
        low, high : float or array_like of float, optional
            The interval; arrays broadcast.
        size : int or tuple of int, optional
            The shape; None for one value, or the parameters' broadcast shape.

        Returns
        -------
        DeviceArray or float

        Raises
        ------
        OverflowError
            ``high - low`` is not finite.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(2).uniform(-1.0, 1.0, (2, 2))
        >>> ref = np.random.Generator(np.random.Philox(2)).uniform(-1.0, 1.0, (2, 2))
        >>> np.array_equal(d.to_host(), ref)
        True
        """
        values = _draws.uniform_values(
            self._bit_generator, host_argument(low), host_argument(high), size
        )
        return placed(values)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Normal values of mean 0 and standard deviation 1 (NumPy's ziggurat).

        Parameters
        ----------
        size : int or tuple of int, optional
            The shape; None for one value.
        dtype : {float64, float32}, optional
            The values' dtype.
        out : DeviceArray or ndarray, optional
            Where to write, as in :meth:`random`.

        Returns
        -------
        DeviceArray or float

        Raises
        ------
        TypeError
            ``dtype`` is not float32 or float64, or ``out``'s dtype is not ``dtype``.
        ValueError
            ``out`` is not contiguous or writable, or its shape is not ``size``.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(9).standard_normal(1000, np.float32)
        >>> ref = np.random.Generator(np.random.Philox(9)).standard_normal(1000, np.float32)
        >>> np.array_equal(d.to_host(), ref)
        True
        """
        host = host_out(out)
        values = _draws.standard_normal_values(self._bit_generator, size, dtype, host)
        return placed(values, out, host)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal float64 values of mean ``loc`` and standard deviation ``scale``.

        Parameters
        ----------
        loc : float or array_like of float, optional
            The mean.
        scale : float or array_like of float, optional
            The standard deviation, not negative.
        size : int or tuple of int, optional
            The shape; None for one value, or the parameters' broadcast shape.

        Returns
        -------
        DeviceArray or float

        Raises
        ------
        ValueError
            ``scale`` is negative.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(4).normal(10.0, [1.0, 2.0])
        >>> ref = np.random.Generator(np.random.Philox(4)).normal(10.0, [1.0, 2.0])
        >>> d.shape, np.array_equal(d.to_host(), ref)
        ((2,), True)
        """
        values = _draws.normal_values(
            self._bit_generator, host_argument(loc), host_argument(scale), size
        )
        return placed(values)

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        """Exponential values of scale 1.

        Parameters
        ----------
        size : int or tuple of int, optional
            The shape; None for one value.
        dtype : {float64, float32}, optional
            The values' dtype.
        method : {"zig", "inv"}, optional
            NumPy's ziggurat, or the inverse of the distribution function
            (which NumPy, and so gpuvec, uses for any value but ``"zig"``).
        out : DeviceArray or ndarray, optional
            Where to write, as in :meth:`random`.

        Returns
        -------
        DeviceArray or float

        Raises
        ------
        TypeError
            ``dtype`` is not float32 or float64, or ``out``'s dtype is not ``dtype``.
        ValueError
            ``out`` is not contiguous or writable, or its shape is not ``size``.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(8).standard_exponential(5, method="inv")
        >>> ref = np.random.Generator(np.random.Philox(8)).standard_exponential(5, method="inv")
        >>> np.array_equal(d.to_host(), ref)
        True
        """
        host = host_out(out)
        values = _draws.standard_exponential_values(self._bit_generator, size, dtype, method, host)
        return placed(values, out, host)

    def exponential(self, scale=1.0, size=None):
        """Exponential float64 values of scale ``scale`` (the mean).

        Parameters
        ----------
        scale : float or array_like of float, optional
            Not negative.
        size : int or tuple of int, optional
            The shape; None for one value, or ``scale``'s shape.

        Returns
        -------
        DeviceArray or float

        Raises
        ------
        ValueError
            ``scale`` is negative.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(6).exponential(3.0, 4)
        >>> ref = np.random.Generator(np.random.Philox(6)).exponential(3.0, 4)
        >>> np.array_equal(d.to_host(), ref)
        True
        """
        values = _draws.exponential_values(self._bit_generator, host_argument(scale), size)
        return placed(values)

    def permutation(self, x, axis=0):
        """A permuted copy of ``x`` along ``axis``, or of ``arange(x)`` for an int.

        Parameters
        ----------
        x : int, array_like or DeviceArray
            What to permute; at least one-dimensional.
        axis : int, optional
            The axis whose order is permuted.

        Returns
        -------
        DeviceArray
            ``x`` is left as it is.

        Raises
        ------
        IndexError
            ``x`` is zero-dimensional.
        numpy.exceptions.AxisError
            ``axis`` is out of range.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(3).permutation(10)
        >>> ref = np.random.Generator(np.random.Philox(3)).permutation(10)
        >>> np.array_equal(d.to_host(), ref)
        True
        """
        return placed(_draws.permuted_values(self._bit_generator, host_argument(x), axis))

    def shuffle(self, x, axis=0) -> None:
        """Shuffles ``x`` in place along ``axis``.

        Parameters
        ----------
        x : DeviceArray, ndarray or mutable sequence
            Shuffled where it is: a DeviceArray's memory is rewritten.
        axis : int, optional
            The axis whose order is shuffled.

        Raises
        ------
        ValueError
            ``x`` is read-only.
        numpy.exceptions.AxisError
            ``axis`` is out of range.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.arange(6.0)
        >>> gpuvec.random.default_rng(7).shuffle(d)
        >>> ref = np.arange(6.0)
        >>> np.random.Generator(np.random.Philox(7)).shuffle(ref)
        >>> np.array_equal(d.to_host(), ref)
        True
        """

        def shuffle(host, host_axis):
            _draws.shuffle_values(self._bit_generator, host, host_axis)

        shuffled_in_place(x, shuffle, axis)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Elements of ``a`` drawn at random, or of ``arange(a)`` for an int.

        Parameters
        ----------
        a : int, array_like or DeviceArray
            The population.
        size : int or tuple of int, optional
            The shape of the draw; None for one element.
        replace : bool, optional
            Whether an element can be drawn more than once.
        p : array_like of float, optional
            Each element's probability; equal when None.
        axis : int, optional
            The axis of ``a`` to draw along.
        shuffle : bool, optional
            Without replacement, whether the drawn elements are shuffled.

        Returns
        -------
        DeviceArray or scalar

        Raises
        ------
        ValueError
            ``a`` is empty or not positive, ``size`` exceeds the population
            without replacement, or ``p`` is not a probability vector of ``a``'s length.

        Examples
        --------
        >>> import numpy as np, gpuvec
        >>> d = gpuvec.random.default_rng(11).choice(100, 5, replace=False)
        >>> ref = np.random.Generator(np.random.Philox(11)).choice(100, 5, replace=False)
        >>> np.array_equal(d.to_host(), ref)
        True
        """
        values = _draws.choice_values(
            self._bit_generator,
            host_argument(a),
            size,
            replace,
            host_argument(p),
            axis,
            shuffle,
        )
        return placed(values)


def default_rng(seed=None) -> Generator:
    """A :class:`Generator` over :class:`Philox`, seeded with ``seed``.

    Unlike :func:`numpy.random.default_rng`, which uses PCG64, gpuvec's uses
    Philox: a counter-based generator, whose value number ``i`` is a function
    of the key and ``i`` alone, so that a GPU, the host, or a kernel of your
    own computes the same stream, in any chunking. Its values are those of
    ``numpy.random.Generator(numpy.random.Philox(seed))``, not those of
    ``numpy.random.default_rng(seed)``.

    Parameters
    ----------
    seed : None, int, array_like of int, SeedSequence, Philox or Generator, optional
        A seed for :class:`Philox`; None draws fresh entropy. A Philox bit
        generator is used as it is; a Generator (gpuvec's) is returned as it
        is, and NumPy's gives its bit generator.

    Returns
    -------
    Generator

    Raises
    ------
    TypeError
        ``seed`` is a bit generator or NumPy Generator of another kind than Philox.

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> d = gpuvec.random.default_rng(2024).random(3)
    >>> np.array_equal(d.to_host(), np.random.Generator(np.random.Philox(2024)).random(3))
    True
    """
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, np.random.Generator):
        return Generator(seed.bit_generator)
    if isinstance(seed, np.random.BitGenerator):
        return Generator(seed)
    return Generator(Philox(seed))
