# Host (NumPy) operands on the CUDA backend: the staging pipeline of
# gpuvec/staged.h gathers, converts and copies them in chunks, so that
# copies and kernels overlap and no whole-array device copy is made. Where an
# op does need its operand in device memory at once, _upload moves it through
# the same pinned buffers, converting it on the way.


cdef bint _all_host(list spans):
    for span in spans:
        if span is not None and (<Span>span).flat is None:
            return False
    return True


cdef gpuvec_dtype _dtype_code(Span span) except *:
    cdef int itemsize = span.flat.dtype.itemsize
    if span.flat.dtype.kind != "f" or itemsize not in (4, 8):
        raise TypeError(f"staged operands must be float32 or float64, got {span.flat.dtype}")
    return GPUVEC_FLOAT32 if itemsize == 4 else GPUVEC_FLOAT64


cdef gpuvec_host_array _host_array(Span span) except *:
    """A host input as the staging ABI takes it (valid while `span` lives)."""
    cdef gpuvec_host_array h
    cdef const char* flat = _data_address(span.flat, False)
    cdef Py_ssize_t itemsize = span.flat.dtype.itemsize
    h.dtype = _dtype_code(span)
    h.strides = span.strides
    h.data = NULL
    if flat != NULL:
        h.data = <const void*>(flat + span.offset * itemsize)
    return h


cdef void* _host_output(Span out) except? NULL:
    """Where element (0, ..., 0) of a host output is (NULL when it is empty)."""
    cdef char* flat = _data_address(out.flat, True)  # also checks it is writable
    cdef Py_ssize_t itemsize = out.flat.dtype.itemsize
    if flat == NULL:
        return NULL
    return <void*>(flat + out.offset * itemsize)


cdef int _count_staged(tuple shape, int inputs, gpuvec_dtype compute, bint total) except -1:
    """Adds what a staged op moved to the transfer counters: each input, in
    the compute dtype, and the result (for a total, one double per chunk)."""
    global _bytes_to_device, _bytes_to_host
    cdef size_t n = 1, itemsize = 4 if compute == GPUVEC_FLOAT32 else 8
    cdef size_t chunks
    for extent in shape:
        n *= <size_t>extent
    _bytes_to_device += inputs * n * itemsize
    if total:
        chunks = (n * itemsize + GPUVEC_STAGING_CHUNK_BYTES - 1) // GPUVEC_STAGING_CHUNK_BYTES
        _bytes_to_host += chunks * sizeof(double)
    else:
        _bytes_to_host += n * itemsize
    return 0


cdef int _staged_binary(int op, tuple shape, Span a, Span b, Span out,
                        int threads_per_block) except -1:
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_host_array ha = _host_array(a), hb = _host_array(b)
    cdef gpuvec_dtype compute = _dtype_code(out)
    cdef void* po = _host_output(out)
    cdef gpuvec_status status
    _fill_shape(shape, shp)
    with nogil:
        status = gpuvec_staged_binary(<gpuvec_binary_op>op, compute, ndim, shp, ha, hb, po,
                                      out.strides, threads_per_block)
    check(status)
    return _count_staged(shape, 2, compute, False)


cdef int _staged_scale(double alpha, tuple shape, Span x, Span out,
                       int threads_per_block) except -1:
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_host_array hx = _host_array(x)
    cdef gpuvec_dtype compute = _dtype_code(out)
    cdef void* po = _host_output(out)
    cdef gpuvec_status status
    _fill_shape(shape, shp)
    with nogil:
        status = gpuvec_staged_scale(compute, alpha, ndim, shp, hx, po, out.strides,
                                     threads_per_block)
    check(status)
    return _count_staged(shape, 1, compute, False)


cdef int _staged_axpy(double alpha, tuple shape, Span x, Span y, Span out,
                      int threads_per_block) except -1:
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_host_array hx = _host_array(x), hy = _host_array(y)
    cdef gpuvec_dtype compute = _dtype_code(out)
    cdef void* po = _host_output(out)
    cdef gpuvec_status status
    _fill_shape(shape, shp)
    with nogil:
        status = gpuvec_staged_axpy(compute, alpha, ndim, shp, hx, hy, po, out.strides,
                                    threads_per_block)
    check(status)
    return _count_staged(shape, 2, compute, False)


cdef int _staged_axpby(double alpha, double beta, tuple shape, Span x, Span y, Span out,
                       int threads_per_block) except -1:
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_host_array hx = _host_array(x), hy = _host_array(y)
    cdef gpuvec_dtype compute = _dtype_code(out)
    cdef void* po = _host_output(out)
    cdef gpuvec_status status
    _fill_shape(shape, shp)
    with nogil:
        status = gpuvec_staged_axpby(compute, alpha, beta, ndim, shp, hx, hy, po, out.strides,
                                     threads_per_block)
    check(status)
    return _count_staged(shape, 2, compute, False)


cdef int _staged_unary(int op, tuple shape, Span x, Span out, int threads_per_block) except -1:
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_host_array hx = _host_array(x)
    cdef gpuvec_dtype compute = _dtype_code(out)
    cdef void* po = _host_output(out)
    cdef gpuvec_status status
    _fill_shape(shape, shp)
    with nogil:
        status = gpuvec_staged_unary(<gpuvec_unary_op>op, compute, ndim, shp, hx, po,
                                     out.strides, threads_per_block)
    check(status)
    return _count_staged(shape, 1, compute, False)


cdef int _staged_total(tuple shape, Span x, Span y, Span out,
                       int threads_per_block) except -1:
    """out[0] = sum(x), or dot(x, y), rounded to out's dtype."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    cdef int ndim = len(shape)
    cdef gpuvec_host_array hx = _host_array(x)
    cdef gpuvec_host_array hy
    cdef gpuvec_dtype compute = _dtype_code(out)
    cdef double result = 0
    cdef gpuvec_status status
    cdef bint is_dot = y is not None
    if is_dot:
        hy = _host_array(y)
    _fill_shape(shape, shp)
    with nogil:
        if is_dot:
            status = gpuvec_staged_dot(compute, ndim, shp, hx, hy, &result, threads_per_block)
        else:
            status = gpuvec_staged_sum(compute, ndim, shp, hx, &result, threads_per_block)
    check(status)
    _count_staged(shape, 2 if is_dot else 1, compute, True)
    out.flat[out.offset] = result  # NumPy rounds to out's dtype
    return 0


# Whole arrays to the device, for the ops that need their operands there at
# once, and for gpuvec.to_device: the upload gathers and converts on the way.

cdef int _upload(void* dst, int ndim, const int64_t* shape, gpuvec_host_array src,
                 gpuvec_dtype to, uintptr_t stream) except -1:
    """Copies src's elements (C order over `shape`), converted to `to`, to the
    contiguous device memory at dst, on `stream`; returns once they are there."""
    global _bytes_to_device
    cdef size_t n = 1
    cdef int d
    cdef gpuvec_status status
    for d in range(ndim):
        n *= <size_t>shape[d]
    with nogil:
        status = gpuvec_staged_upload(to, ndim, shape, src, dst, <gpuvec_stream>stream)
    check(status)
    _bytes_to_device += n * (4 if to == GPUVEC_FLOAT32 else 8)
    return 0


cdef int _upload_flat(void* dst, Span span, gpuvec_dtype to, uintptr_t stream) except -1:
    """Copies a host span's whole flat memory (gaps included, so its strides
    hold on the device too), converted to `to`, to dst."""
    cdef int64_t n = span.length
    cdef int64_t unit = 1
    cdef gpuvec_host_array flat
    flat.data = <const void*>_data_address(span.flat, False)
    flat.dtype = _dtype_code(span)
    flat.strides = &unit
    return _upload(dst, 1, &n, flat, to, stream)


def upload(uintptr_t dst, tuple shape, Span src, bint to_float32, uintptr_t stream=0):
    """Copies host span `src`, which views `shape`, to the contiguous device
    memory at `dst` in C order, converted to float32 (else float64) on the way."""
    cdef int64_t shp[GPUVEC_MAX_NDIM]
    if src.flat is None or len(shape) != src.ndim:
        raise ValueError(f"src must be a host span of {len(shape)} dimensions")
    _fill_shape(shape, shp)
    _upload(<void*>dst, len(shape), shp, _host_array(src),
            GPUVEC_FLOAT32 if to_float32 else GPUVEC_FLOAT64, stream)
