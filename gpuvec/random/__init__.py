"""Random numbers: NumPy's Philox streams, bit for bit, as DeviceArrays.

``gpuvec.random.default_rng(seed)`` draws exactly what
``numpy.random.Generator(numpy.random.Philox(seed))`` draws, on both backends,
and kernels of your own draw the same stream through ``<gpuvec/random.h>``.
Unlike ``numpy.random.default_rng``, which uses PCG64, gpuvec's uses Philox: a
counter-based generator, whose value number ``i`` is a function of the key and
``i`` alone, so any device, in any chunking, computes the same stream.

- :mod:`._bit_generator`: :class:`Philox`, NumPy's, under gpuvec's name;
- :mod:`._draws`: the drawing step, one function per method;
- :mod:`._placement`: the drawn values into DeviceArrays (``out=`` included);
- :mod:`._generator`: :class:`Generator` and :func:`default_rng`.

The modules load at the first use of a name, not at ``import gpuvec``:
``numpy.random`` takes longer to import than the rest of gpuvec's Python.

Examples
--------
>>> import numpy as np, gpuvec
>>> rng = gpuvec.random.default_rng(42)
>>> d = rng.random(5)
>>> type(d).__name__
'DeviceArray'
>>> np.array_equal(d.to_host(), np.random.Generator(np.random.Philox(42)).random(5))
True
"""

import importlib

__all__ = ["Generator", "Philox", "SeedSequence", "default_rng"]

# Where each public name lives; the module is imported on first access
# (PEP 562), which keeps numpy.random out of `import gpuvec`.
_HOMES = {
    "Generator": "gpuvec.random._generator",
    "default_rng": "gpuvec.random._generator",
    "Philox": "gpuvec.random._bit_generator",
    "SeedSequence": "gpuvec.random._bit_generator",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'gpuvec.random' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups find it without coming here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
