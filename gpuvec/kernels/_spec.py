"""CuPy's parameter lists of an ElementwiseKernel or ReductionKernel: ``"float32 a, T b"``.

Each parameter is ``type name``. The type is a NumPy dtype's name, spelled
as NumPy names it (``float32``, ``float64``, ``bool``), or a type placeholder
of one letter (``T``), which each call resolves from its arguments. A
parameter written ``raw type name`` is CuPy's raw parameter: the kernel gets
the whole array, which it indexes itself (``x[i]``), instead of one element.

Examples
--------
>>> a, b = parse_parameters("float32 a, T b", "in_params")
>>> a
Parameter(name='a', type_name='float32', dtype=dtype('float32'), raw=False)
>>> b.is_placeholder
True
>>> parse_parameters("raw T y", "in_params")[0].raw
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuvec._dtypes import KERNEL_DTYPE_NAMES as ARRAY_DTYPE_NAMES
from gpuvec._dtypes import KERNEL_DTYPES as ARRAY_DTYPES
from gpuvec.kernels._signature import NAMED_DTYPES

__all__ = ["C_TYPES", "Parameter", "parse_parameters"]

# The C++ type of each dtype: the first C name that the kernel signatures'
# table gives it (float32: float, int64: int64_t). Parameters take float32,
# float64 and bool; a ReductionKernel's reduce_type any of them.
C_TYPES: dict[np.dtype, str] = {}
for _c_name, _dtype_name in NAMED_DTYPES.items():
    C_TYPES.setdefault(np.dtype(_dtype_name), _c_name)

# Names the generated code uses, which a parameter must not take.
_RESERVED_PREFIX = "gpuvec_"


@dataclass(frozen=True)
class Parameter:
    """One parameter: its name, its type as written, its dtype (None for a
    placeholder), and whether it is ``raw`` (the whole array)."""

    name: str
    type_name: str
    dtype: np.dtype | None
    raw: bool = False

    @property
    def is_placeholder(self) -> bool:
        return self.dtype is None


def parse_parameters(spec: str, what: str) -> tuple[Parameter, ...]:
    """The parameters of a CuPy parameter list.

    Parameters
    ----------
    spec : str
        Such as ``"float32 a, T b"``; empty for none.
    what : str
        ``"in_params"`` or ``"out_params"``, for messages.

    Returns
    -------
    tuple of Parameter

    Raises
    ------
    TypeError
        `spec` is not a str.
    ValueError
        A parameter that is not ``type name``, a name that is not an
        identifier, or a type that is neither a placeholder nor float32,
        float64 or bool; the message names the parameter.
    """
    if not isinstance(spec, str):
        raise TypeError(
            f"{what} must be a str such as 'float32 a, T b', got {type(spec).__name__}"
        )
    parameters = []
    for item in spec.split(","):
        words = item.split()
        if not words and not spec.strip():
            continue  # no parameters at all
        raw = bool(words) and words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2:
            raise ValueError(
                f"{what}: {item.strip()!r} is not a parameter of the form 'type name'"
            )
        type_name, name = words
        if not name.isidentifier() or name.startswith(_RESERVED_PREFIX):
            raise ValueError(f"{what}: {name!r} is not a valid parameter name")
        parameters.append(Parameter(name, type_name, _dtype_of(type_name, name), raw))
    return tuple(parameters)


def _dtype_of(type_name: str, name: str) -> np.dtype | None:
    """The dtype of a parameter's type, None for a placeholder (one letter, as in CuPy)."""
    if len(type_name) == 1 and type_name.isalpha():
        return None
    try:
        dtype = np.dtype(type_name)
    except TypeError:
        dtype = None
    if dtype is None or dtype.name != type_name:
        raise ValueError(
            f"parameter {name!r} has the unknown type {type_name!r}; a type is one of "
            f"{ARRAY_DTYPE_NAMES}, or a placeholder of one letter such as T"
        )
    if dtype not in ARRAY_DTYPES:
        raise ValueError(
            f"parameter {name!r} has type {type_name}; gpuvec holds {ARRAY_DTYPE_NAMES}"
        )
    return dtype
