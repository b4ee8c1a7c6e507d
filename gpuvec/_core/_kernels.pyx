# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""gpuvec._core._kernels: users' own kernels, loaded and launched.

Serves gpuvec.kernels: SourceModule and RawKernel (kernels/_module.py,
_user_kernel.py) compile the source and parse each kernel's signature; this
module loads what was compiled (LoadedModule) and turns a launch's Python
arguments into gpuvec_kernel_arg descriptors, each checked against its
parameter, in one crossing into C (KernelLauncher). NVRTC is reached here
too. An ElementwiseKernel or ReductionKernel (kernels/_elementwise.py,
_reduction.py; folded in from what was _map.pxi) describes its arguments
as gpuvec's own ops do (_operands: broadcasting, host or device data,
scalars) and runs its compiled instance (MapKernel, MapReduceKernel)
through gpuvec_map or gpuvec_map_reduce inside the call scaffold
(_results.run_call).
"""

cimport numpy as cnp
from libc.math cimport isinf
from libc.stdint cimport int64_t, uint32_t, uintptr_t
from libc.stdio cimport fflush, stdout
from libc.stdlib cimport free, getenv, malloc
from libc.string cimport memcpy, memset

import operator

from gpuvec._core._abi cimport *
from gpuvec._core._copy cimport device_scalars
from gpuvec._core._launch cimport IN_HOST_MEMORY, NUMPY_DATA, ON_DEVICE, backend_for
from gpuvec._core._launch cimport fill_launch
from gpuvec._core._operands cimport *
from gpuvec._core._reduce cimport normalize_axes
from gpuvec._core._results cimport *
from gpuvec._core._streams cimport resolve_stream, stream_handle

import numpy as np

cnp.import_array()

__all__ = [
    "KERNEL_CHECKED",
    "KERNEL_COOPERATIVE",
    "KernelLauncher",
    "LoadedModule",
    "MAX_MAP_INPUTS",
    "MapKernel",
    "MapReduceKernel",
    "backend_of_call",
    "kernel_check_requested",
    "map_call",
    "map_reduce_call",
    "nvrtc_compile",
    "nvrtc_version",
]

MAX_MAP_INPUTS = GPUVEC_MAX_MAP_INPUTS


# How a parameter takes its argument.
cdef enum:
    _PARAM_POINTER = 0  # an array: its memory
    _PARAM_SIGNED = 1  # a signed integer of `itemsize` bytes
    _PARAM_UNSIGNED = 2
    _PARAM_FLOAT = 3  # float or double
    _PARAM_BOOL = 4
    _PARAM_UNKNOWN = 5  # a type gpuvec cannot make from Python (a struct, float2, ...)
    _ARGS_ON_STACK = 16  # a launch's arguments live on the C stack up to this many

KERNEL_COOPERATIVE = GPUVEC_KERNEL_COOPERATIVE
KERNEL_CHECKED = GPUVEC_KERNEL_CHECKED

_KINDS = {"b": _PARAM_BOOL, "i": _PARAM_SIGNED, "u": _PARAM_UNSIGNED, "f": _PARAM_FLOAT}


cdef class LoadedModule:
    """A compiled module loaded into this process: a CUBIN or PTX image on the
    CUDA backend, a shared library on the host backend. Unloaded when collected."""

    def __cinit__(self, int backend, bytes image=None, str path=None):
        cdef const char* data = NULL
        cdef const char* c_path = NULL
        cdef size_t size = 0
        cdef bytes path_bytes = path.encode() if path is not None else None
        self.handle = NULL
        self.backend = backend
        if image is not None:
            data = image
            size = len(image)
        if path_bytes is not None:
            c_path = path_bytes
        check(abi.module_load(<gpuvec_backend>backend, data, size, c_path, &self.handle))

    def __dealloc__(self):
        if self.handle != NULL:
            abi.module_unload(self.handle)  # at exit CUDA may be gone: nothing to report


cdef class KernelLauncher:
    """One kernel of a LoadedModule, with what its parameters take.

    Parameters
    ----------
    module : LoadedModule
    symbol : str
        The kernel's lowered name (CUDA) or generated entry (host).
    flags : int
        GPUVEC_KERNEL_* bits (the host backend's cooperative and checked modes).
    parameters : list of tuple
        One ``(name, c_type, is_pointer, is_const, dtype, lanes)`` per
        parameter; dtype is the NumPy dtype of the pointee or value, None
        where gpuvec does not know the C type (``void`` pointees accept any
        array); lanes the components of a pointee of a CUDA vector type
        (``float2``: float32, 2 lanes), 1 for the others.
    signature : str
        The kernel's C signature, for messages.
    """

    cdef gpuvec_kernel handle
    cdef LoadedModule module
    cdef int count
    cdef gpuvec_kernel_arg* args
    cdef int* codes
    cdef int* type_nums  # a pointee's NumPy type number; -1: any (void*)
    cdef list names
    cdef list c_types
    cdef list dtypes
    cdef list lanes
    cdef list name_bytes  # keeps args[k].name alive
    cdef readonly str signature

    def __cinit__(self, LoadedModule module, str symbol, int flags, list parameters,
                  str signature):
        cdef int k
        self.args = NULL
        self.codes = NULL
        self.type_nums = NULL
        self.module = module
        self.signature = signature
        self.count = len(parameters)
        self.names, self.c_types, self.dtypes, self.name_bytes = [], [], [], []
        self.lanes = []
        check(abi.module_kernel(module.handle, symbol.encode(), flags, &self.handle))
        self.args = <gpuvec_kernel_arg*>malloc(max(1, self.count) * sizeof(gpuvec_kernel_arg))
        self.codes = <int*>malloc(max(1, self.count) * sizeof(int))
        self.type_nums = <int*>malloc(max(1, self.count) * sizeof(int))
        if self.args == NULL or self.codes == NULL or self.type_nums == NULL:
            raise MemoryError()
        memset(self.args, 0, max(1, self.count) * sizeof(gpuvec_kernel_arg))
        for k, (name, c_type, is_pointer, is_const, dtype, lanes) in enumerate(parameters):
            self.names.append(name)
            self.c_types.append(c_type)
            self.dtypes.append(dtype)
            self.lanes.append(lanes)
            self.name_bytes.append(name.encode())
            self.args[k].name = <const char*>self.name_bytes[k]
            self.args[k].writes = not is_const
            self.type_nums[k] = -1 if dtype is None else (<cnp.dtype>dtype).type_num
            if is_pointer:
                self.codes[k] = _PARAM_POINTER
                self.args[k].kind = GPUVEC_KERNEL_ARG_POINTER
            else:
                self.codes[k] = _KINDS.get(dtype.kind, _PARAM_UNKNOWN) if dtype else _PARAM_UNKNOWN
                self.args[k].kind = GPUVEC_KERNEL_ARG_VALUE
                self.args[k].size = dtype.itemsize if dtype else 0

    def __dealloc__(self):
        free(self.args)
        free(self.codes)
        free(self.type_nums)

    def attributes(self):
        """What the backend can tell about the compiled kernel (None where it cannot)."""
        cdef gpuvec_kernel_attributes a
        check(abi.kernel_get_attributes(self.handle, &a))
        values = {
            "max_threads_per_block": a.max_threads_per_block,
            "num_regs": a.num_regs,
            "shared_size_bytes": a.shared_size_bytes,
            "local_size_bytes": a.local_size_bytes,
            "const_size_bytes": a.const_size_bytes,
            "ptx_version": a.ptx_version,
            "binary_version": a.binary_version,
        }
        return {key: (None if v < 0 else v) for key, v in values.items()}

    def launch(self, tuple args, grid, block, shared_mem, stream, double timeout=0.0):
        """Runs the kernel on `args` with the launch configuration given; the
        host emulation stops it after `timeout` seconds (0: GPUVEC_KERNEL_TIMEOUT's)."""
        cdef gpuvec_kernel_config config
        cdef gpuvec_launch launch
        cdef gpuvec_status status
        cdef int k
        if len(args) != self.count:
            raise TypeError(f"{self.signature} takes {self.count} argument"
                            f"{'' if self.count == 1 else 's'}, {len(args)} "
                            f"{'was' if len(args) == 1 else 'were'} given")
        _dim3(grid, "grid", &config.grid)
        _dim3(block, "block", &config.block)
        config.shared_mem = _shared_mem(shared_mem)
        config.timeout = timeout
        args = self._native_inputs(args)
        stream = resolve_stream(stream)
        launch.backend = <gpuvec_backend>self.module.backend
        launch.threads_per_block = 0
        launch.stream = <gpuvec_stream>stream_handle(stream)
        # Each launch fills its own copy of the arguments: another Python
        # thread may launch the same kernel while this one runs without the GIL.
        cdef gpuvec_kernel_arg on_stack[_ARGS_ON_STACK]
        cdef gpuvec_kernel_arg* own = on_stack
        if self.count > _ARGS_ON_STACK:
            own = <gpuvec_kernel_arg*>malloc(self.count * sizeof(gpuvec_kernel_arg))
            if own == NULL:
                raise MemoryError()
        try:
            memcpy(own, self.args, self.count * sizeof(gpuvec_kernel_arg))
            for k in range(self.count):
                if self.codes[k] == _PARAM_POINTER:
                    self._set_pointer(k, args[k], &own[k])
                else:
                    self._set_value(k, args[k], &own[k])
            with nogil:
                status = abi.kernel_launch(self.handle, own, self.count, &config, &launch)
                # What the kernel printed so far (all of it on the host backend; on a
                # GPU what the driver has written at a synchronization) leaves C's
                # buffer now: in Jupyter it then shows in the cell that launched
                # the kernel, before what the cell prints next.
                fflush(stdout)
        finally:
            if own != on_stack:
                free(own)
        if status != GPUVEC_SUCCESS:
            raise error_from_status(status, self.module.backend == GPUVEC_BACKEND_HOST)
        for k in range(self.count):
            if self.args[k].writes and isinstance(args[k], ArrayFields):
                (<ArrayFields>args[k])._stream = stream  # the stream that last wrote it

    cdef tuple _native_inputs(self, tuple args):
        """args, with each byte-swapped NumPy array that a const pointer takes
        replaced by its converted copy (native_byte_order), which the tuple
        keeps alive through the launch. One the kernel writes stays, for
        _set_host_array's TypeError: its writes would land in the copy."""
        cdef int k
        cdef list converted = None
        for k in range(self.count):
            value = args[k]
            if self.codes[k] == _PARAM_POINTER and not self.args[k].writes \
                    and isinstance(value, np.ndarray) \
                    and not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>value):
                if converted is None:
                    converted = list(args)
                converted[k] = native_byte_order(value)
        return args if converted is None else tuple(converted)

    cdef int _set_pointer(self, int k, object value, gpuvec_kernel_arg* a) except -1:
        cdef ArrayFields f
        cdef cnp.ndarray array
        cdef bint on_host = self.module.backend == GPUVEC_BACKEND_HOST
        if isinstance(value, ArrayFields):
            f = <ArrayFields>value
            if f._host is not None:
                return self._set_host_array(k, f._host, f._readonly, value, a)
            self._check_array(k, f._dtype, f._contiguous, f._readonly, value, f._size)
            a.data = <void*>f._address
            a.memory = GPUVEC_MEMORY_DEVICE
            a.count = f._size
            a.itemsize = (<cnp.dtype>f._dtype).itemsize
        elif isinstance(value, np.ndarray):
            array = <cnp.ndarray>value
            return self._set_host_array(k, array, not cnp.PyArray_ISWRITEABLE(array), value, a)
        elif on_gpu(value):
            if on_host:
                raise TypeError(f"parameter '{self.names[k]}' got a GPU array, but gpuvec runs "
                                f"on its host backend: pass a NumPy array")
            self._set_foreign_array(k, value, a)
        else:
            raise TypeError(f"parameter '{self.names[k]}' ({self.c_types[k]}) takes an array "
                            f"(a NumPy array, a gpuvec.DeviceArray or another library's GPU "
                            f"array), got {type(value).__name__}")
        if on_host and a.memory == GPUVEC_MEMORY_DEVICE:
            raise TypeError(f"parameter '{self.names[k]}' got device memory, but the kernel "
                            f"was compiled for the host backend")
        return 0

    cdef int _set_host_array(self, int k, cnp.ndarray array, bint readonly, object given,
                             gpuvec_kernel_arg* a) except -1:
        if not cnp.PyArray_ISNOTSWAPPED(array):  # a const pointer's was converted
            raise TypeError(f"parameter '{self.names[k]}' ({self.c_types[k]}) is written by "
                            f"the kernel, and the array given is byte-swapped {array.dtype}: "
                            f"the writes would land in a converted copy; pass an array in "
                            f"native byte order, a.astype(a.dtype.newbyteorder('='))")
        self._check_array(k, array.dtype, cnp.PyArray_IS_C_CONTIGUOUS(array), readonly, given,
                          cnp.PyArray_SIZE(array))
        a.data = cnp.PyArray_DATA(array)
        a.memory = GPUVEC_MEMORY_HOST
        a.count = cnp.PyArray_SIZE(array)
        a.itemsize = cnp.PyArray_ITEMSIZE(array)
        return 0

    cdef int _set_foreign_array(self, int k, object value, gpuvec_kernel_arg* a) except -1:
        """Another library's GPU array, through its CUDA array interface (zero copy)."""
        if not hasattr(value, "__cuda_array_interface__"):
            value = to_device_array(value)  # DLPack only: gpuvec.asarray takes it
            return self._set_pointer(k, value, a)
        cai = value.__cuda_array_interface__
        dtype = np.dtype(cai["typestr"])
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        contiguous = strides is None or strides == _c_strides(shape, dtype.itemsize)
        address, readonly = cai["data"]
        self._check_array(k, dtype, contiguous, readonly, value, _product(shape))
        a.data = <void*><uintptr_t>address
        a.memory = GPUVEC_MEMORY_DEVICE
        a.count = _product(shape)
        a.itemsize = dtype.itemsize
        return 0

    cdef int _check_array(self, int k, object dtype, bint contiguous, bint readonly,
                          object given, int64_t count) except -1:
        cdef int wanted = self.type_nums[k]
        cdef str name = self.names[k]
        cdef int lanes = self.lanes[k]
        if lanes == 2 and dtype.kind == "c" and dtype.itemsize == 2 * self.dtypes[k].itemsize:
            # complex64 for a float2* (cuFloatComplex*), complex128 for a double2*:
            # the same bytes, (real, imaginary) pairs
            lanes = 1
        # (int64 is two type numbers, long and long long: equal dtypes)
        elif wanted >= 0 and (<cnp.dtype>dtype).type_num != wanted \
                and dtype != self.dtypes[k]:
            raise TypeError(f"parameter '{name}' is {self.c_types[k]} ({self.dtypes[k]}), got "
                            f"an array of {dtype}; gpuvec never reinterprets the bytes: convert "
                            f"it with .astype(np.{self.dtypes[k]})")
        if wanted < 0 and self.dtypes[k] is None and not _is_void_pointer(self.c_types[k]):
            raise TypeError(f"parameter '{name}' has type {self.c_types[k]}, whose element "
                            f"type gpuvec cannot check against an array; declare it with a "
                            f"scalar type (float*, int*, ...) or void*")
        if count % lanes:
            raise ValueError(f"parameter '{name}' ({self.c_types[k]}) reads {lanes} "
                             f"{self.dtypes[k]} at a time, and the array has {count} elements, "
                             f"not a multiple of {lanes}: the last element would be read past "
                             f"the array's end")
        if not contiguous:
            raise ValueError(f"parameter '{name}' got a non-contiguous array: a kernel sees "
                             f"memory, not a view; pass np.ascontiguousarray(...) (or the "
                             f"array's copy())")
        if readonly and self.args[k].writes:
            raise ValueError(f"parameter '{name}' ({self.c_types[k]}) is not const, and the "
                             f"array given is read-only; declare it const {self.c_types[k]} "
                             f"if the kernel only reads it")
        return 0

    cdef int _set_value(self, int k, object value, gpuvec_kernel_arg* a) except -1:
        cdef int code = self.codes[k]
        cdef long long v
        # The common case first, in C: a Python int that fits an integer parameter.
        if type(value) is int and (code == _PARAM_SIGNED or code == _PARAM_UNSIGNED) \
                and -(1 << 62) < value < (1 << 62):
            v = value
            if _fits(v, code, a.size):
                a.value.i = v
                return 0
        return self._set_value_slowly(k, value, a)

    cdef int _set_value_slowly(self, int k, object value, gpuvec_kernel_arg* a) except -1:
        cdef int code = self.codes[k]
        cdef str name = self.names[k]
        cdef double x
        cdef float f
        if code == _PARAM_UNKNOWN:
            raise TypeError(f"parameter '{name}' has type {self.c_types[k]}, which gpuvec "
                            f"cannot make from a Python value")
        if isinstance(value, (np.ndarray, str, bytes, complex)) or (
                isinstance(value, np.generic) and value.dtype.kind not in "biuf"):
            raise TypeError(f"parameter '{name}' ({self.c_types[k]}) takes a number, got "
                            f"{type(value).__name__}")
        if code == _PARAM_FLOAT:
            if not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"parameter '{name}' ({self.c_types[k]}) takes a number, got "
                                f"{type(value).__name__}")
            x = value
            if a.size == 4:
                f = <float>x
                if isinf(f) and not isinf(x):
                    raise TypeError(f"{value!r} does not fit parameter '{name}' "
                                    f"({self.c_types[k]})")
                a.value.i = 0
                (<float*>&a.value)[0] = f
            else:
                a.value.d = x
            return 0
        if isinstance(value, (float, np.floating)):
            raise TypeError(f"parameter '{name}' ({self.c_types[k]}) is an integer; got the "
                            f"float {value!r}: pass int(...) if you mean it")
        if not isinstance(value, (int, np.integer, np.bool_)):
            raise TypeError(f"parameter '{name}' ({self.c_types[k]}) takes an integer, got "
                            f"{type(value).__name__}")
        v = int(value)
        if code == _PARAM_BOOL:
            if v not in (0, 1):
                raise TypeError(f"{value!r} does not fit parameter '{name}' (bool)")
        else:
            bits = 8 * a.size
            low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) \
                if code == _PARAM_SIGNED else (0, (1 << bits) - 1)
            if not low <= v <= high:
                raise TypeError(f"{value!r} does not fit parameter '{name}' "
                                f"({self.c_types[k]}: {low} to {high})")
        # Little-endian: the value's low bytes come first, whatever its size.
        if v < 0:
            a.value.i = v
        else:
            a.value.u = v
        return 0


cdef inline bint _fits(long long v, int code, int64_t size) noexcept:
    """Whether v fits a (signed or unsigned) integer of `size` bytes."""
    if code == _PARAM_UNSIGNED:
        return v >= 0 and (size >= 8 or v < (<long long>1 << (8 * size)))
    if size >= 8:
        return True
    return -(<long long>1 << (8 * size - 1)) <= v < (<long long>1 << (8 * size - 1))


def kernel_check_requested(bint default=False):
    """Whether launches run checked: GPUVEC_KERNEL_CHECK's answer ("0" no, any
    other value yes), `default` where it is unset or empty (read with C's
    getenv, which sees what os.environ sets, at a fraction of its cost)."""
    cdef const char* value = getenv("GPUVEC_KERNEL_CHECK")
    if value == NULL or value[0] == 0:
        return default
    return not (value[0] == 48 and value[1] == 0)  # "0"


cdef bint _is_void_pointer(str c_type):
    return c_type.replace("const", "").replace("*", "").replace("__restrict__", "").strip() \
        == "void"


cdef tuple _c_strides(tuple shape, Py_ssize_t itemsize):
    strides = []
    cdef Py_ssize_t step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


cdef Py_ssize_t _product(tuple shape):
    cdef Py_ssize_t n = 1
    for d in shape:
        n *= d
    return n


cdef int _dim3(object value, str name, gpuvec_dim3* out) except -1:
    """grid= and block=: an int or a tuple of 1 to 3 ints (missing ones are 1)."""
    out.x = out.y = out.z = 1
    if isinstance(value, (tuple, list)):
        if not 1 <= len(value) <= 3:
            raise ValueError(f"{name} must have 1 to 3 dimensions, got {value!r}")
        out.x = _dim(value[0], name)
        if len(value) > 1:
            out.y = _dim(value[1], name)
        if len(value) > 2:
            out.z = _dim(value[2], name)
    else:
        out.x = _dim(value, name)
    return 0


cdef uint32_t _dim(object value, str name) except? 0xFFFFFFFF:
    if type(value) is int and 0 <= value <= 0xFFFFFFFE:
        return value
    if isinstance(value, (bool, float)) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} dimensions must be ints, got {value!r}")
    n = operator.index(value)
    if n < 0:
        raise ValueError(f"{name} dimensions must not be negative, got {n}")
    # Beyond 32 bits is beyond every CUDA limit: the launch fails as CUDA's does.
    return <uint32_t>min(n, 0xFFFFFFFE)


cdef size_t _shared_mem(object value) except? <size_t>-1:
    if type(value) is int and 0 <= value <= (1 << 40):
        return value
    if isinstance(value, (bool, float)) or not hasattr(value, "__index__"):
        raise TypeError(f"shared_mem must be an int (bytes), got {value!r}")
    n = operator.index(value)
    if n < 0:
        raise ValueError(f"shared_mem must not be negative, got {n}")
    return <size_t>min(n, 1 << 40)


def nvrtc_version(str path):
    """NVRTC's (major, minor) version, loading the library at `path`."""
    cdef int major = 0, minor = 0
    check(abi.nvrtc_version(path.encode(), &major, &minor))
    return major, minor


def nvrtc_compile(str path, str source, str program_name, int arch, list options,
                  list name_expressions):
    """Compiles `source` with NVRTC for compute capability `arch` (e.g. 90).

    Returns
    -------
    ok : bool
    log : str
    image : bytes or None
        A CUBIN, or PTX where NVRTC does not know the architecture.
    is_cubin : bool
    lowered_names : list of str
        The lowered name of each name expression.
    """
    cdef gpuvec_nvrtc_output out
    cdef gpuvec_status status
    cdef list option_bytes = [o.encode() for o in options]
    cdef list name_bytes = [n.encode() for n in name_expressions]
    cdef const char** c_options = <const char**>malloc((len(options) + 1) * sizeof(char*))
    cdef const char** c_names = <const char**>malloc((len(name_expressions) + 1) * sizeof(char*))
    cdef bytes b_path = path.encode(), b_source = source.encode(), b_name = program_name.encode()
    cdef const char* c_path = b_path
    cdef const char* c_source = b_source
    cdef const char* c_name = b_name
    cdef int n_options = len(option_bytes), n_names = len(name_bytes)
    cdef int k
    if c_options == NULL or c_names == NULL:
        free(c_options)
        free(c_names)
        raise MemoryError()
    memset(&out, 0, sizeof(out))
    try:
        for k in range(len(option_bytes)):
            c_options[k] = <const char*>option_bytes[k]
        for k in range(len(name_bytes)):
            c_names[k] = <const char*>name_bytes[k]
        with nogil:
            status = abi.nvrtc_compile(c_path, c_source, c_name, arch, c_options, n_options,
                                       c_names, n_names, &out)
        log = out.log.decode("utf-8", "replace") if out.log != NULL else ""
        if status == GPUVEC_ERROR_COMPILE:
            return False, log, None, False, []
        check(status)
        image = out.image[:out.image_size]
        lowered = [out.lowered_names[k].decode() for k in range(out.n_names)]
        return True, log, image, bool(out.is_cubin), lowered
    finally:
        abi.nvrtc_output_free(&out)
        free(c_options)
        free(c_names)


# -- ElementwiseKernel and ReductionKernel -------------------------------------------------------


cdef class MapKernel:
    """A compiled ElementwiseKernel for one signature and backend.

    Parameters
    ----------
    module : LoadedModule
    symbols : list of str
        The lowered names of the four CUDA instances, in the order of
        gpuvec::MapKernel, or the one entry of the host library.
    out_dtype : numpy.dtype
    in_dtypes : list of numpy.dtype
        Each one of ARRAY_DTYPES.
    """

    cdef gpuvec_map_kernel desc
    cdef LoadedModule module
    cdef readonly object out_dtype

    def __cinit__(self, LoadedModule module, list symbols, object out_dtype, list in_dtypes):
        cdef int k
        if len(in_dtypes) > GPUVEC_MAX_MAP_INPUTS:
            raise ValueError(f"an ElementwiseKernel takes at most {GPUVEC_MAX_MAP_INPUTS} "
                             f"inputs, got {len(in_dtypes)}")
        memset(&self.desc, 0, sizeof(gpuvec_map_kernel))
        self.module = module
        self.out_dtype = out_dtype
        for k, symbol in enumerate(symbols):
            check(abi.module_kernel(module.handle, symbol.encode(), 0, &self.desc.kernels[k]))
        self.desc.n_inputs = len(in_dtypes)
        self.desc.out_dtype = code_of(out_dtype)
        for k, dtype in enumerate(in_dtypes):
            self.desc.in_dtypes[k] = code_of(dtype)


def backend_of_call(tuple args, out):
    """The backend a call on `args` (and out) runs on (_launch.backend_for's
    rule, on the first array that is not NumPy's), for compiling the kernel
    for it before the call."""
    for value in (*args, out):
        if isinstance(value, ArrayFields):
            return backend_for(IN_HOST_MEMORY if (<ArrayFields>value)._host is not None
                               else ON_DEVICE)
        if value is not None and not isinstance(value, (np.ndarray, np.generic)) \
                and not is_python_number(value) and on_gpu(value):
            return backend_for(ON_DEVICE)
    return backend_for(NUMPY_DATA)


cdef class MapReduceKernel:
    """A compiled ReductionKernel for one signature and backend.

    Parameters
    ----------
    module : LoadedModule
    symbols : list of str
        The lowered names of the seven CUDA instances, in the order of
        gpuvec::ReduceKernel, or the one entry of the host library.
    out_dtype : numpy.dtype
    in_dtypes : list of numpy.dtype
        Each one of ARRAY_DTYPES.
    state_size : int
        The bytes of the reduction's state.
    has_identity : bool
        Whether a reduction of no elements has a value.
    """

    cdef gpuvec_map_reduce_kernel desc
    cdef LoadedModule module
    cdef readonly object out_dtype

    def __cinit__(self, LoadedModule module, list symbols, object out_dtype, list in_dtypes,
                  int64_t state_size, bint has_identity):
        cdef int k
        if not 1 <= len(in_dtypes) <= GPUVEC_MAX_MAP_INPUTS:
            raise ValueError(f"a ReductionKernel takes 1 to {GPUVEC_MAX_MAP_INPUTS} inputs, "
                             f"got {len(in_dtypes)}")
        memset(&self.desc, 0, sizeof(gpuvec_map_reduce_kernel))
        self.module = module
        self.out_dtype = out_dtype
        for k, symbol in enumerate(symbols):
            check(abi.module_kernel(module.handle, symbol.encode(), 0, &self.desc.kernels[k]))
        self.desc.n_inputs = len(in_dtypes)
        self.desc.out_dtype = code_of(out_dtype)
        for k, dtype in enumerate(in_dtypes):
            self.desc.in_dtypes[k] = code_of(dtype)
        self.desc.state_size = state_size
        self.desc.has_identity = has_identity


def map_call(MapKernel kernel, tuple args, tuple names, out=None, stream=None):
    """out = the kernel's operation on `args` (named `names`), broadcast.

    The result is a new DeviceArray when an argument (or out) is device
    data, else a NumPy array (a NumPy scalar when it is 0-d), as from
    gpuvec's own ops. The arguments' dtypes are the kernel's (checked by
    the caller): a number is converted to its parameter's dtype.
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef gpuvec_launch launch
    cdef int ndim
    stream = resolve_stream(stream)
    ndim = _describe_kernel_call(ops, args, names, out, kernel.desc.in_dtypes,
                                 kernel.desc.n_inputs, kernel.module, stream, &launch, shape)
    if out is not None:
        ndim = broadcast_to_out(ops, out, ndim, shape)
        if check_out(out, ops, ndim, shape, kernel.out_dtype):
            raise TypeError(f"out has dtype {out.dtype}; the kernel writes {kernel.out_dtype}")
    return run_call(ops, out, ndim, shape, kernel.out_dtype, code_of(kernel.out_dtype),
                    stream, &launch, _call_map, &kernel.desc, LIKE_OPERANDS | NUMPY_SCALAR)


cdef gpuvec_status _call_map(void* context, const gpuvec_array* result,
                             const gpuvec_array* arrays, int count,
                             const gpuvec_launch* launch) noexcept nogil:
    return abi.map(<const gpuvec_map_kernel*>context, result, arrays, count, launch)


cdef int _describe_kernel_call(Operands ops, tuple args, tuple names, object out,
                               const gpuvec_dtype* in_dtypes, int n_inputs,
                               LoadedModule module, object stream, gpuvec_launch* launch,
                               int64_t* shape) except -1:
    """A user kernel's arguments as operands of the kernel's dtypes (a number
    converted to its parameter's), broadcast together into `shape` (returns
    its ndim), and the launch on the call's backend and (resolved) stream."""
    cdef int k
    if len(args) != n_inputs:
        raise TypeError(f"the kernel takes {n_inputs} inputs, got {len(args)}")
    ops.reserve(len(args))
    for k in range(len(args)):
        add(ops, args[k], names[k])
        _as_parameter_dtype(ops, k, in_dtypes[k])
    if out is not None and isinstance(out, ArrayFields):
        ops.device_mode = True
        if (<ArrayFields>out)._host is not None:
            ops.host_backed = True
    check_placement(ops)
    fill_launch(launch, placement(ops), 0, stream)
    if ops.device_mode and not ops.host_backed:
        device_scalars(ops, stream)
    if launch.backend != module.backend:
        raise RuntimeError("the kernel was compiled for the other backend than the call's")
    return broadcast(ops, 0, shape)


# The NumPy arrays add() describes as they are (their dtypes are checked against
# the kernel's by the caller); add leaves the others (ints) for the call to convert.
_READ_AS_IS = frozenset(
    np.dtype(t) for t in (np.float16, np.float32, np.float64, np.bool_, np.complex64,
                          np.complex128))


cdef int _as_parameter_dtype(Operands ops, int k, gpuvec_dtype code) except -1:
    """Operand k as its parameter's dtype: a number converted as NumPy casts it
    (exactly, for an integer parameter), a NumPy array of integers converted
    by NumPy (add leaves such arrays for the caller to convert; float and
    bool arrays are read where they are, converted as they are read)."""
    cdef gpuvec_array* a = &ops.arrays[k]
    if ops.kinds[k] == SCALAR:
        dtype = dtype_of_code(code)
        value = np.asarray(ops.objects[k]).astype(dtype)  # NumPy's cast of the number
        if dtype.kind in "iu":
            a.integer = (int(value) + 2**63) % 2**64 - 2**63  # a uint64's bits from 2^63 up
        else:
            a.scalar = float(value)
        a.dtype = code
    elif ops.kinds[k] == HOST_DATA and ops.objects[k].dtype not in _READ_AS_IS:
        converted = native_byte_order(ops.objects[k]).astype(dtype_of_code(code), copy=False)
        if not whole_elements(converted):
            converted = np.array(converted, order="C")
        ops.objects[k] = converted
        describe_host_array(ops, k, converted)
    return 0


cdef struct _MapReduceCall:
    const gpuvec_map_reduce_kernel* kernel
    int reduced_ndim


cdef gpuvec_status _call_map_reduce(void* context, const gpuvec_array* result,
                                    const gpuvec_array* arrays, int count,
                                    const gpuvec_launch* launch) noexcept nogil:
    cdef _MapReduceCall* c = <_MapReduceCall*>context
    return abi.map_reduce(c.kernel, result, arrays, count, c.reduced_ndim, launch)


def map_reduce_call(MapReduceKernel kernel, tuple args, tuple names, str name, axis=None,
                    bint keepdims=False, out=None, stream=None):
    """The kernel's reduction of `args` (named `names`), broadcast, over `axis`.

    The result is a new DeviceArray when an argument (or out) is device
    data, else a NumPy array (a NumPy scalar when it is 0-d), of the
    broadcast shape less the reduced axes (kept with length 1 with
    `keepdims`); `out` itself when given. A reduction of no elements by a
    kernel without an identity raises CuPy's ValueError.
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef int64_t moved[GPUVEC_MAX_NDIM]
    cdef int64_t moved_strides[GPUVEC_MAX_NDIM]
    cdef gpuvec_launch launch
    cdef gpuvec_array* a
    cdef _MapReduceCall call
    cdef int k, d, ndim, kept
    cdef int64_t n = 1
    stream = resolve_stream(stream)
    ndim = _describe_kernel_call(ops, args, names, out, kernel.desc.in_dtypes,
                                 kernel.desc.n_inputs, kernel.module, stream, &launch, shape)
    axes = normalize_axes(axis, ndim, False, True)
    kept = ndim - len(axes)
    # The reduced axes go last (a transposed view of the descriptors: no copy).
    order = [d for d in range(ndim) if d not in axes] + list(axes)
    for k in range(ops.count):
        a = &ops.arrays[k]
        for d in range(ndim):
            moved[d] = a.shape[order[d]]
            moved_strides[d] = a.strides[order[d]]
        for d in range(ndim):
            a.shape[d] = moved[d]
            a.strides[d] = moved_strides[d]
    for d in range(ndim):
        shape[d] = ops.arrays[0].shape[d]
    for d in range(kept, ndim):
        n *= shape[d]
    if n == 0 and not kernel.desc.has_identity:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    keep_shape = tuple([1 if d in axes else ops.arrays[0].shape[order.index(d)]
                        for d in range(ndim)])
    target = out
    if out is not None:
        if keepdims:
            if tuple(out.shape) != keep_shape:
                raise ValueError(f"out has shape {tuple(out.shape)}; the reduction with "
                                 f"keepdims=True has shape {keep_shape}")
            # A view without the reduced axes (the Ellipsis keeps a 0-d view 0-d).
            out = out[(*[0 if d in axes else slice(None) for d in range(ndim)], Ellipsis)]
        if check_out(out, ops, kept, shape, kernel.out_dtype):
            raise TypeError(f"out has dtype {out.dtype}; the kernel writes {kernel.out_dtype}")
    call.kernel = &kernel.desc
    call.reduced_ndim = ndim - kept
    result = run_call(ops, out, kept, shape, kernel.out_dtype, code_of(kernel.out_dtype),
                      stream, &launch, _call_map_reduce, &call, NUMPY_SCALAR)
    if target is not None:
        return target
    if keepdims:
        return result.reshape(keep_shape) if not isinstance(result, np.generic) \
            else np.asarray(result).reshape(keep_shape)
    return result
