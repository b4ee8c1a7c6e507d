"""Jupyter magics, after ``%load_ext gpuvec``.

- ``%gpuvec_info`` shows the backend, the devices and the memory in use, as
  an HTML table in a notebook and as text in a terminal.
- ``%%gpuvec_timeit [-n N] [-r R]`` times the GPU work of a cell with CUDA
  events (the host clock on the host backend), not the wall clock: each of R
  repeats runs the cell N times between two events, and the magic returns
  the median time per run (a :class:`Timing`, which the notebook shows).
- ``%%gpuvec_kernel [-e EXPR] [OPTIONS]`` compiles the cell's CUDA C++ (NVRTC
  on a GPU, the host compiler and gpuvec's emulation without one) as
  ``cell_N.cu``, N the cell's execution count, and binds each ``__global__``
  function into the namespace as a :class:`gpuvec.Kernel`. A compile error
  shows as a short message naming the line of the cell, counted as the cell
  shows it: the ``%%gpuvec_kernel`` line is line 1.
"""

from __future__ import annotations

import html
import shlex
import statistics
import time

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

import gpuvec
from gpuvec._backend import _cuda_unusable_reason
from gpuvec._errors import CompileError
from gpuvec.kernels import kernel_cache


class Info:
    """What ``%gpuvec_info`` shows: backend, devices and memory."""

    def __init__(self):
        self.backend = gpuvec.backend()
        self.devices = gpuvec.devices()
        self.memory = gpuvec.memory_info()
        cache = kernel_cache()
        self.kernel_folder = cache.directory
        self.kernels = cache.stats()

    def _rows(self) -> list[tuple[str, str]]:
        rows = [("gpuvec", gpuvec.__version__), ("backend", self.backend)]
        for d in self.devices:
            major, minor = d["compute_capability"]
            rows.append(
                (
                    f"device {d['id']}",
                    f"{d['name']}, compute capability {major}.{minor}, "
                    f"{d['total_memory'] / 2**30:.1f} GiB, {d['multiprocessors']} SMs",
                )
            )
        if not self.devices:
            rows.append(("why not CUDA", _cuda_unusable_reason() or "the host backend was chosen"))
        m = self.memory
        if self.backend == "cuda":
            rows.append(("memory in use / cached", f"{m['in_use']:,} / {m['cached']:,} bytes"))
            free_total = "device free / total"
        else:
            # gpuvec.memory_info() on the host backend: no pool (NumPy allocates),
            # and the "device" figures are the host's RAM.
            rows.append(("memory in use / cached", "none: NumPy allocates on the host backend"))
            free_total = "host RAM free / total"
        rows.append((free_total, f"{m['device_free']:,} / {m['device_total']:,} bytes"))
        k = self.kernels
        rows.append(("kernel cache", str(self.kernel_folder)))
        rows.append(
            (
                "kernel cache use",
                f"{k.entries} entries, {k.bytes:,} bytes; "
                f"{k.hits} hits, {k.misses} misses in this process",
            )
        )
        return rows

    def __repr__(self) -> str:
        width = max(len(k) for k, _ in self._rows())
        return "\n".join(f"{k:<{width}}  {v}" for k, v in self._rows())

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        return f"<table><caption>gpuvec</caption>{cells}</table>"


class Timing:
    """What ``%%gpuvec_timeit`` measured: milliseconds per run of the cell."""

    def __init__(self, per_run_ms: list[float], number: int, clock: str):
        self.all_ms = per_run_ms
        self.number = number
        self.clock = clock
        self.median_ms = statistics.median(per_run_ms)
        self.best_ms = min(per_run_ms)

    def __repr__(self) -> str:
        return (
            f"{self.median_ms:.4g} ms per run (median of {len(self.all_ms)} repeats of "
            f"{self.number} runs, best {self.best_ms:.4g} ms; {self.clock})"
        )


@magics_class
class GpuvecMagics(Magics):
    @line_magic
    def gpuvec_info(self, line: str = "") -> Info:
        """Shows gpuvec's backend, devices and memory."""
        return Info()

    @magic_arguments()
    @argument("-n", "--number", type=int, default=10, help="runs of the cell per repeat")
    @argument("-r", "--repeat", type=int, default=7, help="repeats; the median is reported")
    @cell_magic
    def gpuvec_timeit(self, line: str, cell: str) -> Timing:
        """Times the cell's GPU work with events; returns a Timing.

        It prints nothing itself: as a cell's result, the Timing is shown
        once, as the cell's output (``Out[N]``).
        """
        args = parse_argstring(self.gpuvec_timeit, line)
        if args.number < 1 or args.repeat < 1:
            raise ValueError("-n and -r must be at least 1")
        code = compile(cell, "<gpuvec_timeit>", "exec")
        namespace = self.shell.user_ns
        exec(code, namespace)  # warm-up: compilation, allocations, first launches
        gpuvec.synchronize()
        per_run = []
        for _ in range(args.repeat):
            start, end = gpuvec.Event(), gpuvec.Event()
            start.record()
            for _ in range(args.number):
                exec(code, namespace)
            end.record()
            end.synchronize()
            per_run.append(start.elapsed_time(end) / args.number)
        clock = "CUDA events" if gpuvec.backend() == "cuda" else "host clock (host backend)"
        return Timing(per_run, args.number, clock)

    @cell_magic
    def gpuvec_kernel(self, line: str, cell: str) -> None:
        """Compiles the cell's CUDA C++ and binds each kernel into the namespace.

        Usage: ``%%gpuvec_kernel [-e 'scale<float, 3>'] [compiler options such as -DBLOCK=256]``.
        ``-e`` (``--expression``) names a template instance to compile; it is
        bound as ``scale_float_3``. Every other word is a compiler option.
        """
        expressions, options = _kernel_magic_arguments(line)
        name = f"cell_{_running_cell_number(self.shell)}.cu"
        start = time.perf_counter()
        hits = kernel_cache().stats().hits
        try:
            # An empty line in place of the %%gpuvec_kernel line, which IPython
            # leaves out of `cell`: the compiler then counts the lines as the
            # cell shows them, and errors name the line the user sees.
            module = gpuvec.SourceModule("\n" + cell, options, expressions, name=name)
        except CompileError as error:
            # The message already names the cell's line and shows it: a
            # traceback through gpuvec would only hide it.
            raise UsageError(str(error)) from None
        bound = []
        for kernel in module.kernel_names:
            variable = _variable_name(kernel)
            self.shell.user_ns[variable] = module.get_function(kernel)
            bound.append(variable)
        cached = kernel_cache().stats().hits > hits
        print(
            f"{name}: {', '.join(bound) or 'no __global__ functions'} "
            f"({gpuvec.backend()} backend, {1e3 * (time.perf_counter() - start):.0f} ms"
            f"{', from the cache' if cached else ''})"
        )


def _running_cell_number(shell) -> int:
    """The execution count of the cell being run: ``In [N]``'s N.

    IPython counts the cell up before running it (``shell.execution_count``
    is then the next cell's number); the count of the cell running is kept
    in the displayhook's result for it. A magic called from code
    (``run_cell_magic``), outside a running cell, takes the count as it is.
    """
    running = getattr(shell.displayhook, "exec_result", None)
    count = getattr(running, "execution_count", None)
    return count if count is not None else shell.execution_count


def _kernel_magic_arguments(line: str) -> tuple[list[str], list[str]]:
    """``-e EXPR`` pairs, and the compiler options: everything else.

    Not argparse: it would take a compiler's ``-DBLOCK=256`` for an unknown flag.
    """
    words = shlex.split(line)
    expressions, options = [], []
    while words:
        word = words.pop(0)
        if word in ("-e", "--expression"):
            if not words:
                raise UsageError(f"{word} needs a template instance, such as 'scale<float, 3>'")
            expressions.append(words.pop(0))
        else:
            options.append(word)
    return expressions, options


def _variable_name(kernel: str) -> str:
    """``scale<float, 4>`` is bound as ``scale_float_4``."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in kernel.replace(" ", "")).strip(
        "_"
    )


def register(ipython) -> None:
    ipython.register_magics(GpuvecMagics)
