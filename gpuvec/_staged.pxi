# Host (NumPy) operands on the CUDA backend: the staging pipeline of
# gpuvec/staged.h gathers, converts and copies them in chunks, so that
# copies and kernels overlap and no whole-array device copy is made.


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
    cdef const unsigned char[::1] raw = span.flat.view("u1")
    cdef Py_ssize_t itemsize = span.flat.dtype.itemsize
    h.dtype = _dtype_code(span)
    h.strides = span.strides
    h.data = NULL
    if raw.shape[0]:
        h.data = <const void*>(&raw[0] + span.offset * itemsize)
    return h


cdef void* _host_output(Span out) except? NULL:
    """Where element (0, ..., 0) of a host output is (NULL when it is empty)."""
    cdef unsigned char[::1] raw = out.flat.view("u1")  # also checks it is writable
    cdef Py_ssize_t itemsize = out.flat.dtype.itemsize
    if raw.shape[0] == 0:
        return NULL
    return <void*>(&raw[0] + out.offset * itemsize)


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
    return check(status)


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
    return check(status)


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
    return check(status)


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
    out.flat[out.offset] = result  # NumPy rounds to out's dtype
    return 0
