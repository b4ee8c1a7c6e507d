"""Reductions to a single number: sum and dot."""

from __future__ import annotations

from gpuvec import _core
from gpuvec._operands import reduction

__all__ = ["dot", "sum"]


def sum(x, *, dtype=None, threads_per_block=None) -> float:
    """Sum of all elements, like :func:`numpy.sum` with no axis.

    Elements are accumulated in float64 in a fixed tree order (warp-shuffle
    trees on the GPU, blocks added pairwise on the host), so a float32 sum is
    as accurate as a float64 one and the same input always gives the same
    result.

    Parameters
    ----------
    x : array_like
        Real input of any shape and strides.
    dtype : {numpy.float32, numpy.float64}, optional
        The dtype to read the input in; the result is rounded to it.
    threads_per_block : int, optional
        CUDA block size: a multiple of 32, at most 1024.

    Returns
    -------
    float
        The sum (0.0 for an empty input; NaN if any element is NaN).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.sum(np.arange(53735, dtype=np.float64))
    1443698245.0
    """

    def launch(shape, sx, backend, tpb):
        return _core.reduce(shape, sx, None, backend, tpb)

    return reduction(launch, {"x": x}, dtype, threads_per_block)


def dot(x, y, *, dtype=None, threads_per_block=None) -> float:
    """Dot product: the sum of ``x * y`` over all elements.

    Like :func:`numpy.vdot` for real input: ``x`` and ``y`` must have the
    same shape, and N-d inputs are treated as flat vectors.

    Parameters
    ----------
    x, y : array_like
        Real inputs of one shape, with any strides.
    dtype, threads_per_block
        As for :func:`gpuvec.sum`.

    Returns
    -------
    float
        The dot product (0.0 for empty inputs).

    Examples
    --------
    >>> import numpy as np, gpuvec
    >>> gpuvec.dot(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
    32.0
    """

    def launch(shape, sx, sy, backend, tpb):
        return _core.reduce(shape, sx, sy, backend, tpb)

    return reduction(launch, {"x": x, "y": y}, dtype, threads_per_block, same_shape=True)
