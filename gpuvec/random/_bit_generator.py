"""``Philox``: NumPy's Philox4x64-10 bit generator, the state that gpuvec's draws advance.

gpuvec's Philox is NumPy's class under gpuvec's name: its seeding, ``state``
dict, ``jumped()``, ``advance()``, ``spawn()`` and pickling are NumPy's own,
so a state moves between the two unchanged (``state["bit_generator"]`` is
``"Philox"`` in both), and ``numpy.random.Generator(gpuvec.random.Philox(s))``
works as well.
"""

from __future__ import annotations

import numpy as np
from numpy.random import SeedSequence

__all__ = ["Philox", "SeedSequence"]


class Philox(np.random.Philox):
    """NumPy's Philox (4x64, 10 rounds) counter-based bit generator.

    Parameters
    ----------
    seed : None, int, array_like of int, SeedSequence, optional
        As NumPy's: a :class:`SeedSequence` makes the key from it; None draws
        fresh entropy from the operating system.
    counter : None, int or array_like of 4 uint64, optional
        The 256-bit counter to start from (0 by default).
    key : None, int or array_like of 2 uint64, optional
        The 128-bit key, used as given; ``seed`` must then be None.

    Notes
    -----
    The stream is a function of the key and a position alone. The state is
    ``{"bit_generator": "Philox", "state": {"counter", "key"}, "buffer",
    "buffer_pos", "has_uint32", "uinteger"}``: the counter is incremented
    before each block of four uint64 is made, ``buffer`` holds the last block
    and ``buffer_pos`` is the number of its words already drawn (4 after
    seeding, ``jumped()`` and ``advance()``). From such a state, the next
    uint64 is word ``i % 4`` of the block of counter ``counter + 1 + i // 4``:
    in a kernel, ``gpuvec_random_uint64_from(counter, key, i)`` of
    ``<gpuvec/random.h>``, and ``advance(blocks)`` then moves this generator
    past the ``4 * blocks`` uint64 that the kernel used.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuvec.random import Philox
    >>> bits = Philox(7)
    >>> np.array_equal(bits.random_raw(3), np.random.Philox(7).random_raw(3))
    True
    >>> key = bits.state["state"]["key"]  # two uint64, what a kernel is given
    >>> key.dtype, key.shape
    (dtype('uint64'), (2,))
    >>> np.random.Philox(7).jumped().state["state"]["counter"]
    array([0, 0, 1, 0], dtype=uint64)
    """
