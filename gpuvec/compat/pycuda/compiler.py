"""PyCUDA's ``pycuda.compiler``: ``SourceModule`` and its kernels, over gpuvec's.

gpuvec compiles the source with NVRTC on a GPU and with the host compiler in
its CUDA emulation without one. The source is compiled as written: PyCUDA
wraps it in ``extern "C" { }`` unless ``no_extern_c=True``, so that kernels
keep their plain names; gpuvec finds each kernel by its plain name whether it
is ``extern "C"`` or not (it lowers C++ names itself), so ``get_function``
takes the same names either way, and template kernels work too
(``get_function("scale<float>")``).
"""

from __future__ import annotations

import warnings

import numpy as np

import gpuvec
from gpuvec.compat.pycuda._arguments import launch_arguments
from gpuvec.compat.pycuda._runtime import Event

__all__ = ["DEFAULT_NVCC_FLAGS", "Function", "SourceModule", "compiler_options"]

DEFAULT_NVCC_FLAGS: list[str] = []

# Options that both of gpuvec's compilers read the same way: macros and include folders.
_PASSED = ("-D", "-U", "-I")

# nvcc options that tune or annotate the build, or pick the GPU to build for:
# without effect on what a kernel computes (fast math aside, which gpuvec
# leaves off on both backends so that they give the same bits), and dropped
# without a word. NVRTC builds for the GPU in use. Written "-O3" or
# "--std=c++17"; those in _WITH_VALUE may also take their value as the next item.
_IGNORED = frozenset(
    """
    -O0 -O1 -O2 -O3 -g -G -lineinfo --lineinfo -w -m64 -use_fast_math --use_fast_math
    -ftz --ftz -prec-div --prec-div -prec-sqrt --prec-sqrt -fmad --fmad -std --std
    -Xptxas --ptxas-options -maxrregcount --maxrregcount -arch --gpu-architecture
    -code --gpu-code -gencode --generate-code -ccbin --compiler-bindir
    -res-usage --resource-usage
    """.split()
)
_WITH_VALUE = frozenset(
    """
    -Xptxas --ptxas-options -maxrregcount --maxrregcount -arch --gpu-architecture
    -code --gpu-code -gencode --generate-code -ccbin --compiler-bindir
    """.split()
)


def compiler_options(options, include_dirs=()) -> list[str]:
    """The options of PyCUDA's ``SourceModule`` that gpuvec's compilers take.

    ``-D``, ``-U`` and ``-I`` (and ``include_dirs``) are kept, for NVRTC and
    the host compiler alike; options that only tune nvcc's output (``-O3``,
    ``-use_fast_math``, ``--ptxas-options=-v``, ...) are dropped, and others
    dropped with a warning naming them.

    Examples
    --------
    >>> compiler_options(["-DN=16", "-O3", "-use_fast_math"], include_dirs=["/opt/inc"])
    ['-DN=16', '-I/opt/inc']
    >>> compiler_options(["-D", "M=2", "-gencode", "arch=compute_90,code=sm_90"])
    ['-DM=2']
    """
    kept: list[str] = []
    unknown: list[str] = []
    items = list(options or ())
    k = 0
    while k < len(items):
        option = str(items[k])
        if option in _PASSED and k + 1 < len(items):  # "-D", "N=16": two items
            kept.append(option + str(items[k + 1]))
            k += 2
            continue
        if option.startswith(_PASSED):
            kept.append(option)
        elif option.split("=", 1)[0] in _IGNORED:
            if option in _WITH_VALUE and k + 1 < len(items):
                k += 1  # and its value, the next item
        else:
            unknown.append(option)
        k += 1
    if unknown:
        warnings.warn(
            f"gpuvec.compat.pycuda ignores the nvcc option(s) {unknown}: gpuvec's compilers "
            "(NVRTC, or the host compiler without a GPU) take only -D, -U and -I from them",
            UserWarning,
            stacklevel=3,
        )
    return kept + [f"-I{folder}" for folder in include_dirs or ()]


class SourceModule:
    """CUDA C++ compiled once, with PyCUDA's ``SourceModule`` signature.

    Parameters
    ----------
    source : str
        CUDA C++: ``__global__`` functions and what they use.
    nvcc, keep, cache_dir, arch, code : optional
        Accepted for PyCUDA's sake and unused: NVRTC compiles for the current
        GPU (``arch``), and gpuvec caches compiled kernels on disk itself.
    options : list of str, optional
        nvcc options; see :func:`compiler_options` for those kept.
    no_extern_c : bool, optional
        Accepted: kernels are found by their plain names either way.
    include_dirs : list of str, optional
        Folders for ``#include``.

    Raises
    ------
    gpuvec.CompileError
        When the source does not compile; the message points at its line.

    Examples
    --------
    PyCUDA's tutorial, with only its imports changed:

    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as cuda
    >>> from gpuvec.compat.pycuda.compiler import SourceModule
    >>> mod = SourceModule('''
    ...   __global__ void doublify(float *a)
    ...   {
    ...     int idx = threadIdx.x + threadIdx.y*4;
    ...     a[idx] *= 2;
    ...   }
    ...   ''')
    >>> a = np.random.randn(4, 4).astype(np.float32)
    >>> a_gpu = cuda.mem_alloc(a.nbytes)
    >>> cuda.memcpy_htod(a_gpu, a)
    >>> func = mod.get_function("doublify")
    >>> func(a_gpu, block=(4, 4, 1))
    >>> a_doubled = np.empty_like(a)
    >>> cuda.memcpy_dtoh(a_doubled, a_gpu)
    >>> bool((a_doubled == 2 * a).all())
    True
    """

    def __init__(
        self,
        source: str,
        nvcc: str = "nvcc",
        options=None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch=None,
        code=None,
        cache_dir=None,
        include_dirs=(),
    ):
        self.source = source
        self.no_extern_c = no_extern_c
        self._options = compiler_options([*DEFAULT_NVCC_FLAGS, *(options or ())], include_dirs)
        self.module = gpuvec.SourceModule(source, self._options)
        self._instances: dict[str, gpuvec.SourceModule] = {}
        self._functions: dict[str, Function] = {}

    def get_function(self, name: str) -> Function:
        """The kernel ``name``, launchable PyCUDA's way.

        ``name`` is a ``__global__`` function's name, or a template instance
        such as ``"scale<float>"`` (compiled on first use).

        Raises
        ------
        ValueError
            When the source has no such kernel; the message lists its kernels.
        """
        function = self._functions.get(name)
        if function is None:
            if "<" in name and name not in self.module.kernel_names:
                module = self._instances.get(name)
                if module is None:
                    module = gpuvec.SourceModule(self.source, self._options, (name,))
                    self._instances[name] = module
                kernel = module.get_function(name)
            else:
                kernel = self.module.get_function(name)
            function = self._functions[name] = Function(kernel)
        return function

    def get_global(self, name: str):
        """Not available: gpuvec gives no access to a module's ``__device__`` or
        ``__constant__`` variables."""
        raise NotImplementedError(
            f"get_global({name!r}): gpuvec gives no access to a module's __device__ and "
            "__constant__ variables; pass the values to the kernel as arguments instead"
        )

    def __repr__(self) -> str:
        return f"<SourceModule: {', '.join(self.module.kernel_names) or 'no kernels'}>"


class Function:
    """A kernel, launched PyCUDA's way: ``func(*args, block=(x, y, z), grid=(x, y))``.

    Arguments may be ``In``/``Out``/``InOut`` wrappers of NumPy arrays,
    ``DeviceAllocation``\\ s, ``GPUArray``\\ s, device addresses (ints) for
    pointer parameters, and NumPy or Python numbers for the others; each is
    checked against the kernel's signature.

    Attributes
    ----------
    kernel : gpuvec.Kernel
        gpuvec's kernel.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.gpuarray as gpuarray
    >>> from gpuvec.compat.pycuda.compiler import SourceModule
    >>> saxpy = SourceModule('''
    ... __global__ void saxpy(int n, float a, const float *x, float *y) {
    ...     int i = blockIdx.x * blockDim.x + threadIdx.x;
    ...     if (i < n) y[i] = a * x[i] + y[i];
    ... }''').get_function("saxpy")
    >>> x = gpuarray.to_gpu(np.ones(1000, np.float32))
    >>> y = gpuarray.zeros(1000, np.float32)
    >>> saxpy(np.int32(1000), np.float32(2), x, y, block=(256, 1, 1), grid=(4, 1))
    >>> float(y.get().sum())
    2000.0
    """

    def __init__(self, kernel: gpuvec.Kernel):
        self.kernel = kernel
        self._arg_types = None

    def __call__(
        self,
        *args,
        block=None,
        grid=(1, 1),
        stream=None,
        shared=0,
        texrefs=(),
        time_kernel=False,
    ):
        """Launches the kernel; with ``time_kernel=True``, returns its time in seconds.

        Parameters
        ----------
        *args
            The kernel's arguments.
        block : tuple of int
            Threads per block, ``(x, y, z)``.
        grid : tuple of int, optional
            Blocks, ``(x, y)``; one by default.
        stream : Stream, optional
            The stream to launch on.
        shared : int, optional
            Bytes of dynamic shared memory per block.
        texrefs : sequence, optional
            Must be empty: gpuvec has no texture references.
        time_kernel : bool, optional
            Wait for the kernel and return its run time in seconds.

        Returns
        -------
        float or None
        """
        if block is None:
            raise ValueError("must specify block size: block=(x, y, z)")
        if texrefs:
            raise NotImplementedError("gpuvec has no texture references; pass arrays instead")
        arguments = launch_arguments(self.kernel, args)
        if not time_kernel:
            self.kernel(*arguments, block=block, grid=grid, shared_mem=shared, stream=stream)
            return None
        start, end = Event(), Event()
        start.record(stream)
        self.kernel(*arguments, block=block, grid=grid, shared_mem=shared, stream=stream)
        end.record(stream)
        end.synchronize()
        return start.time_till(end) * 1e-3

    # -- prepared calls ----------------------------------------------------------------------

    def prepare(self, arg_types) -> Function:
        """Declares the argument types for the ``prepared_*`` calls; returns self.

        Parameters
        ----------
        arg_types : str or sequence
            One type per parameter: a :mod:`struct` character (``"P"`` for a
            pointer, ``"i"`` int32, ``"f"`` float32, ...) or a NumPy dtype
            (``numpy.intp`` for a pointer), as in PyCUDA.

        Raises
        ------
        ValueError
            When there is not one type per parameter of the kernel.

        Examples
        --------
        >>> import numpy as np
        >>> import gpuvec.compat.pycuda.gpuarray as gpuarray
        >>> from gpuvec.compat.pycuda.compiler import SourceModule
        >>> scale = SourceModule('''
        ... __global__ void scale(float *x, float a, int n) {
        ...     int i = blockIdx.x * blockDim.x + threadIdx.x;
        ...     if (i < n) x[i] *= a;
        ... }''').get_function("scale").prepare("Pfi")
        >>> x = gpuarray.to_gpu(np.arange(5, dtype=np.float32))
        >>> scale.prepared_call((1, 1), (32, 1, 1), x.gpudata, 3.0, 5)
        >>> x.get()
        array([ 0.,  3.,  6.,  9., 12.], dtype=float32)
        """
        types = list(arg_types)
        parameters = self.kernel.parameters
        if len(types) != len(parameters):
            raise ValueError(
                f"prepare: {self.kernel.signature} has {len(parameters)} parameter(s), and "
                f"{len(types)} type(s) were given"
            )
        converters = []
        for t, parameter in zip(types, parameters, strict=True):
            if parameter.is_pointer or t == "P":
                converters.append(None)  # the launch converts pointers
            else:
                converters.append(np.dtype(t).type)
        self._arg_types = converters
        return self

    def _prepared_arguments(self, args: tuple) -> tuple:
        if self._arg_types is None:
            raise RuntimeError("call prepare(arg_types) before a prepared call")
        if len(args) != len(self._arg_types):
            raise TypeError(
                f"{self.kernel.signature} takes {len(self._arg_types)} argument(s), "
                f"{len(args)} were given"
            )
        return tuple(
            value if convert is None else convert(value)
            for value, convert in zip(args, self._arg_types, strict=True)
        )

    def prepared_call(self, grid, block, *args, shared_size: int = 0) -> None:
        """Launches the prepared kernel on ``grid`` blocks of ``block`` threads."""
        self(*self._prepared_arguments(args), grid=grid, block=block, shared=shared_size)

    def prepared_async_call(self, grid, block, stream, *args, shared_size: int = 0) -> None:
        """Launches the prepared kernel on ``stream``."""
        arguments = self._prepared_arguments(args)
        self(*arguments, grid=grid, block=block, stream=stream, shared=shared_size)

    def prepared_timed_call(self, grid, block, *args, shared_size: int = 0):
        """Launches the prepared kernel; returns a function that gives its run time in seconds.

        Examples
        --------
        >>> import numpy as np
        >>> from gpuvec.compat.pycuda.compiler import SourceModule
        >>> f = SourceModule("__global__ void nop(int n) {}").get_function("nop").prepare("i")
        >>> seconds = f.prepared_timed_call((1, 1), (32, 1, 1), 0)
        >>> seconds() >= 0
        True
        """
        start, end = Event(), Event()
        start.record()
        self(*self._prepared_arguments(args), grid=grid, block=block, shared=shared_size)
        end.record()

        def elapsed() -> float:
            end.synchronize()
            return start.time_till(end) * 1e-3

        return elapsed

    # -- what the compiler says about the kernel ---------------------------------------------

    def _attribute(self, name: str):
        return self.kernel.attributes.get(name)

    @property
    def num_regs(self):
        """Registers per thread (None where the backend cannot tell)."""
        return self._attribute("num_regs")

    @property
    def shared_size_bytes(self):
        """Static shared memory per block, in bytes (None where the backend cannot tell)."""
        return self._attribute("shared_size_bytes")

    @property
    def local_size_bytes(self):
        """Local memory per thread, in bytes (None where the backend cannot tell)."""
        return self._attribute("local_size_bytes")

    @property
    def const_size_bytes(self):
        """Constant memory, in bytes (None where the backend cannot tell)."""
        return self._attribute("const_size_bytes")

    @property
    def max_threads_per_block(self):
        """The most threads a block of this kernel may have (None where unknown)."""
        return self._attribute("max_threads_per_block")

    def __repr__(self) -> str:
        return f"<Function {self.kernel.signature}>"
