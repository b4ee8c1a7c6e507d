# A user's ElementwiseKernel and ReductionKernel: their compiled instances,
# and a call of each.
#
# gpuvec/kernels/_elementwise.py and _reduction.py parse the kernel's
# parameters, resolve their types from the arguments, check each argument
# against its parameter, and compile the kernel once per signature. This
# file describes the arguments as gpuvec's own ops describe theirs
# (_operands.pxi: broadcasting, host or device data, scalars) and runs the
# compiled instance through gpuvec_map or gpuvec_map_reduce in one crossing
# into C, inside the scaffold every call shares (_run_call).
#
# Uses: Operands and the describing helpers (_operands.pxi), _run_call, the
# result, axis and stream helpers of _calls.pxi, LoadedModule (_kernels.pxi),
# check (_check.pxi).


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
        float32, float64 or bool each.
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
            check(gpuvec_module_kernel(module.handle, symbol.encode(), 0, &self.desc.kernels[k]))
        self.desc.n_inputs = len(in_dtypes)
        self.desc.out_dtype = _code_of(out_dtype)
        for k, dtype in enumerate(in_dtypes):
            self.desc.in_dtypes[k] = _code_of(dtype)
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
    stream = _resolve_stream(stream)
    ndim = _describe_kernel_call(ops, args, names, out, kernel.desc.in_dtypes,
                                 kernel.desc.n_inputs, kernel.module, stream, &launch, shape)
    if out is not None:
        ndim = _broadcast_to_out(ops, out, ndim, shape)
        if _check_out(out, ops, ndim, shape, kernel.out_dtype):
            raise TypeError(f"out has dtype {out.dtype}; the kernel writes {kernel.out_dtype}")
    return _run_call(ops, out, ndim, shape, kernel.out_dtype, _code_of(kernel.out_dtype),
                     stream, &launch, _call_map, &kernel.desc, True)


cdef gpuvec_status _call_map(void* context, const gpuvec_array* result,
                             const gpuvec_array* arrays, int count,
                             const gpuvec_launch* launch) noexcept nogil:
    return gpuvec_map(<const gpuvec_map_kernel*>context, result, arrays, count, launch)


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
        _add(ops, args[k], names[k])
        if ops.kinds[k] == _SCALAR:
            ops.arrays[k].dtype = in_dtypes[k]
    if out is not None and isinstance(out, _DeviceArray):
        ops.device_mode = True
        if (<ArrayFields>out)._host is not None:
            ops.host_backed = True
    _check_placement(ops)
    launch.threads_per_block = 0
    launch.stream = <gpuvec_stream>_stream_handle(stream)
    if ops.device_mode and not ops.host_backed:
        _device_scalars(ops, stream)
    if ops.device_mode:
        launch.backend = GPUVEC_BACKEND_HOST if ops.host_backed else GPUVEC_BACKEND_CUDA
    else:
        launch.backend = <gpuvec_backend>_active_backend()
    if launch.backend != module.backend:
        raise RuntimeError("the kernel was compiled for the other backend than the call's")
    return _broadcast(ops, 0, shape)


cdef struct _MapReduceCall:
    const gpuvec_map_reduce_kernel* kernel
    int reduced_ndim


cdef gpuvec_status _call_map_reduce(void* context, const gpuvec_array* result,
                                    const gpuvec_array* arrays, int count,
                                    const gpuvec_launch* launch) noexcept nogil:
    cdef _MapReduceCall* c = <_MapReduceCall*>context
    return gpuvec_map_reduce(c.kernel, result, arrays, count, c.reduced_ndim, launch)


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
    stream = _resolve_stream(stream)
    ndim = _describe_kernel_call(ops, args, names, out, kernel.desc.in_dtypes,
                                 kernel.desc.n_inputs, kernel.module, stream, &launch, shape)
    axes = _normalize_axes(axis, ndim, False, True)
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
        if _check_out(out, ops, kept, shape, kernel.out_dtype):
            raise TypeError(f"out has dtype {out.dtype}; the kernel writes {kernel.out_dtype}")
    call.kernel = &kernel.desc
    call.reduced_ndim = ndim - kept
    result = _run_call(ops, out, kept, shape, kernel.out_dtype, _code_of(kernel.out_dtype),
                       stream, &launch, _call_map_reduce, &call, False)
    if target is not None:
        return target
    if keepdims:
        return result.reshape(keep_shape) if not isinstance(result, np.generic) \
            else np.asarray(result).reshape(keep_shape)
    return result
