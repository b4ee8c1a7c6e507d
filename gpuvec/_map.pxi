# A user's ElementwiseKernel: its compiled instances, and a call of it.
#
# gpuvec/kernels/_elementwise.py parses the kernel's parameters, resolves
# their types from the arguments, checks each argument against its
# parameter, and compiles the kernel once per signature. This file describes
# the arguments as gpuvec's own ops describe theirs (_operands.pxi:
# broadcasting, host or device data, scalars), makes the result, and runs
# the compiled instance through gpuvec_map in one crossing into C.
#
# Uses: Operands and the describing helpers (_operands.pxi), the result and
# stream helpers of _calls.pxi, LoadedModule (_kernels.pxi), check (_check.pxi).


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
        float32, float64 or bool each.
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
            check(gpuvec_module_kernel(module.handle, symbol.encode(), 0, &self.desc.kernels[k]))
        self.desc.n_inputs = len(in_dtypes)
        self.desc.out_dtype = _code_of(out_dtype)
        for k, dtype in enumerate(in_dtypes):
            self.desc.in_dtypes[k] = _code_of(dtype)


def backend_of_call(tuple args, out):
    """The backend a call on `args` (and out) runs on: the host's for
    host-backend DeviceArrays, CUDA's for device ones, else the active one."""
    for value in (*args, out):
        if isinstance(value, _DeviceArray):
            return GPUVEC_BACKEND_HOST if (<ArrayFields>value)._host is not None \
                else GPUVEC_BACKEND_CUDA
        if value is not None and not isinstance(value, (np.ndarray, np.generic)) \
                and not _is_python_number(value) and _on_gpu(value):
            return GPUVEC_BACKEND_CUDA
    return _active_backend()


def map_call(MapKernel kernel, tuple args, tuple names, out=None, stream=None):
    """out = the kernel's operation on `args` (named `names`), broadcast.

    The result is a new DeviceArray when an argument (or out) is device
    data, else a NumPy array (a NumPy scalar when it is 0-d), as from
    gpuvec's own ops. The arguments' dtypes are the kernel's (checked by
    the caller): a number is converted to its parameter's dtype.
    """
    cdef Operands ops = Operands()
    cdef int64_t shape[GPUVEC_MAX_NDIM]
    cdef gpuvec_array result_desc
    cdef gpuvec_launch launch
    cdef gpuvec_status status
    cdef int k, ndim, previous
    cdef Py_ssize_t size = 1
    if len(args) != kernel.desc.n_inputs:
        raise TypeError(f"the kernel takes {kernel.desc.n_inputs} inputs, got {len(args)}")
    ops.reserve(len(args))
    for k in range(len(args)):
        _add(ops, args[k], names[k])
        if ops.kinds[k] == _SCALAR:
            ops.arrays[k].dtype = kernel.desc.in_dtypes[k]
    if out is not None and isinstance(out, _DeviceArray):
        ops.device_mode = True
        if (<ArrayFields>out)._host is not None:
            ops.host_backed = True
    _check_placement(ops)
    stream = _resolve_stream(stream)
    launch.threads_per_block = 0
    launch.stream = <gpuvec_stream>_stream_handle(stream)
    if ops.device_mode and not ops.host_backed:
        _device_scalars(ops, stream)
    result_dtype = kernel.out_dtype
    ndim = _broadcast(ops, 0, shape)
    if out is not None:
        ndim = _broadcast_to_out(ops, out, ndim, shape)
        if _check_out(out, ops, ndim, shape, result_dtype):
            raise TypeError(f"out has dtype {out.dtype}; the kernel writes {result_dtype}")
    for k in range(ndim):
        size *= shape[k]
    if ops.device_mode:
        launch.backend = GPUVEC_BACKEND_HOST if ops.host_backed else GPUVEC_BACKEND_CUDA
    else:
        launch.backend = <gpuvec_backend>_active_backend()
    if launch.backend != kernel.module.backend:
        raise RuntimeError("the kernel was compiled for the other backend than the call's")
    cdef gpuvec_dtype result_code = _code_of(result_dtype)
    if ops.device_mode:
        if ops.device < 0 and not ops.host_backed:
            ops.device = _current_device()
        previous = _make_current(ops.device if not ops.host_backed else -1)
        try:
            result = out if out is not None else _new_result(ops, ndim, shape, result_dtype,
                                                             stream)
            if size:
                _describe_result(&result_desc, result, ndim, shape, result_code)
                with nogil:
                    status = gpuvec_map(&kernel.desc, &result_desc, ops.arrays, ops.count,
                                        &launch)
                check(status)
                _mark_stream_use(ops, result, stream)
                (<ArrayFields>result)._stream = stream  # the stream that last wrote it
        finally:
            _restore_device(previous)
        return result
    result = out
    if out is None:
        result = cnp.PyArray_EMPTY(ndim, <cnp.npy_intp*>shape, _npy_type(result_code),
                                   _fortran_result(ops, ndim, shape))
    if size:
        _describe_result(&result_desc, result, ndim, shape, result_code)
        with nogil:
            status = gpuvec_map(&kernel.desc, &result_desc, ops.arrays, ops.count, &launch)
        check(status)
    if out is None and ndim == 0:
        return result[()]
    return result
