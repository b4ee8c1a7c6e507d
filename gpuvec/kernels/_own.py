"""gpuvec's own kernels on a GPU, compiled at their first use.

gpuvec's elementwise ops, reductions and conversions are the templates of
its installed headers (``gpuvec/map.hpp`` and ``gpuvec/reduce.hpp``, with the
functors of ``gpuvec/ops.hpp`` and the policies of ``gpuvec/reduce_ops.hpp``),
instantiated per op, dtypes and launch shape. The CUDA backend names each
instance it needs by a C++ name expression, such as
``gpuvec::map_contiguous<float, 4, gpuvec::ops::Add, gpuvec::Operand<float,
float>, gpuvec::Operand<float, float>>``, and asks the function below for it:
NVRTC compiles it for the current device, in about 0.2 s, and the kernel
cache keeps it on disk, so that a later process loads it in a millisecond.
That is the compile path of users' ElementwiseKernels and ReductionKernels,
which are made from the same templates.

So the build compiles none of these kernels (it took most of a 12-minute
build to compile them for five architectures), a GPU newer than the build
gets code made for it rather than PTX for the driver to translate, and a
dtype that no one uses costs nothing.

:func:`register` hands the compiler to the core; :mod:`gpuvec.kernels` calls
it on import (which ``import gpuvec`` does).
"""

from __future__ import annotations

from gpuvec import _core
from gpuvec._errors import GpuvecError
from gpuvec.kernels import _module
from gpuvec.kernels._user_kernel import headers_text

__all__ = ["compile_own_kernel", "register"]


def _internal_error(log: str, compiler: str) -> GpuvecError:
    return GpuvecError(
        f"internal error in gpuvec (please report it): {compiler} could not compile one of "
        f"gpuvec's own kernels:\n{log}"
    )


def compile_own_kernel(source: str, name_expression: str) -> tuple[bytes, str]:
    """One of gpuvec's kernels, compiled by NVRTC for the current device.

    Parameters
    ----------
    source : str
        The headers to instantiate from (``#include`` lines).
    name_expression : str
        The template instance wanted.

    Returns
    -------
    image : bytes
        The CUBIN (or PTX) image, from the kernel cache when it is there.
    lowered_name : str
        The instance's symbol in the image.

    Raises
    ------
    FileNotFoundError
        When NVRTC cannot be found; the message says what to install.

    Examples
    --------
    >>> import gpuvec
    >>> if gpuvec.backend() == "cuda":
    ...     image, name = compile_own_kernel(
    ...         "#include <gpuvec/map.hpp>\\n#include <gpuvec/ops.hpp>\\n",
    ...         "gpuvec::map_contiguous<float, 1, gpuvec::ops::Add, "
    ...         "gpuvec::Operand<float, float>, gpuvec::Operand<float, float>>",
    ...     )
    ...     assert name.startswith("_Z")
    """
    image, lowered = _module.compile_nvrtc(
        source,
        "gpuvec_kernels.cu",
        [*_module._NVRTC_OPTIONS, f"-I{_module._INCLUDE_DIR}"],
        [name_expression],
        _internal_error,
        header=headers_text(),
    )
    return image, lowered[0]


def register() -> None:
    """Makes :func:`compile_own_kernel` the compiler of the CUDA backend's own kernels."""
    _core.set_kernel_compiler(compile_own_kernel)
