"""gpuvec's benchmark harness: its speed next to CuPy, PyTorch and NumPy, in one run.

``python3 -m gpuvec.bench`` (``--help`` for the options) times, on device
data, ``add``, ``axpy``, ``sum``, ``dot`` and ``norm`` over sizes 2^10 to
2^28 in float32 and float64, an add of step-2 views and a row sum of a
4096x4096 matrix; the latency of one tiny add and of one tiny sum returned
as a Python float; and NumPy-in, NumPy-out ``add`` and ``sum`` of float64
2^24 vectors, native and in float32. A second group, "what users write"
(:data:`USER_OPS`, its own table), times code as users write it, next to
the same job in each peer's own API: an expression chain, a row softmax,
column statistics, the cost of one small call by layout (broadcast, view,
scalar, ``dtype=``, stream) against a contiguous add, device arrays copied
back to NumPy, and NumPy-in, NumPy-out calls tiny and large. A third,
users' own kernels (:data:`KERNEL_OPS`, ``--ops kernels``, its own table),
times the launch of a compiled ``RawKernel`` from Python next to CuPy's
``RawKernel``, Numba's ``@cuda.jit`` and gpuvec's own tiny add, the first
and the cached compile of a kernel, and the host emulation (vecadd against
NumPy, a ``__syncthreads`` tree reduction, a warp-shuffle sum, the cost of
a fiber switch), each with the target it is held to. It measures
the device copy bandwidth in the same run, as the limit the bandwidth
figures are compared with, and each peer that imports the same way. Every
benchmark also checks gpuvec's result against NumPy once; the command
exits with status 1 if any disagrees. Where there is no GPU it runs on
the host backend and compares with NumPy alone.

It writes ``bench.json`` (every number), ``bench.md`` (the tables) and
``bench.png`` (GB/s against size). From a notebook:

>>> import gpuvec.bench
>>> results = gpuvec.bench.run(ops="add,tiny_add", quick=True, progress=False)
>>> results["correct"]
True
>>> fig = gpuvec.bench.plot(results)  # a matplotlib Figure

``bench.json`` (schema ``"gpuvec.bench/1"``) holds ``schema``, ``date``,
``command``, ``backend``, ``device`` (properties), ``host``, ``versions``,
``settings``, ``timing`` (how each kind was timed), ``peers_skipped``
(name: reason), ``copy`` (``n``, ``dtype``, ``bytes``, ``reference``,
``reference_gbps`` and per library ``results``), ``rows``, ``kernels``, ``skipped``
(``op``, ``n``, ``dtype``, ``reason``), ``notes`` and ``correct`` (all rows
right) and ``elapsed_s``. Each row has ``op``, ``kind`` (``bandwidth``, ``latency`` or
``roundtrip``), ``n``, ``shape``, ``dtype``, ``bytes``, ``correct``,
``max_rel_error``, ``tolerance``, ``error`` and ``results``: per library,
``how`` (the code timed), ``median_ms``, ``min_ms``, ``runs``,
``times_ms`` (every run; per call for latency rows), ``gbps``,
``pct_copy`` and, for peers, ``ratio`` (peer time over gpuvec time: above
1, gpuvec is faster), or ``error`` where the library failed. Rows of "what
users write" also have ``group`` (``"users"``), ``data`` (``device`` or
``host``), ``baseline`` and ``note``; their entries ``us_per_call`` and,
where the row has a baseline, ``vs_baseline`` (time over the same library's
time for the baseline row).

Rows of ``kernels`` have ``op``, ``kind`` (``latency``, ``compile``,
``bandwidth`` or ``time``), ``backend`` (the one they ran on: ``host`` for
the emulation rows everywhere), ``unit`` (``us`` per launch, ``ms``, or
``ns`` per fiber switch), ``n``, ``shape`` and ``dtype`` (None for the
compile rows), ``bytes`` (None where GB/s means nothing), ``correct``,
``max_rel_error``, ``tolerance``, ``error``, ``target`` (None, or ``text``,
``met``: True, False or None where it could not be judged, and
``unchecked``: why not, clause by clause) and ``results``: per library
(``gpuvec``, ``cupy``, ``numba``, ``numpy``) as above, plus ``value`` (the
median in the row's unit) and, for peers, ``ratio``. The launch rows also
have ``launch`` (``grid``, ``block``) and ``reference``, the entry of
gpuvec's own ``gv.add(a, b, out=c)`` on the same arrays, and gpuvec's
entry ``vs_reference``, its time over the reference's; the compile rows
have ``compiler``; the fiber row ``rounds``, ``switches`` and ``note``.
"""

from gpuvec.bench._cli import main
from gpuvec.bench._report import kernels_table, plot, table, to_markdown, users_table, write
from gpuvec.bench._suite import (
    DTYPES,
    KERNEL_OPS,
    OPS,
    PEERS,
    SCHEMA,
    USER_OPS,
    parse_sizes,
    run,
)

__all__ = [
    "DTYPES",
    "KERNEL_OPS",
    "OPS",
    "PEERS",
    "SCHEMA",
    "USER_OPS",
    "kernels_table",
    "main",
    "parse_sizes",
    "plot",
    "run",
    "table",
    "to_markdown",
    "users_table",
    "write",
]
