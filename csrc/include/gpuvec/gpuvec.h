/* The gpuvec C ABI: include this one header.
 *
 * Every op takes its arrays as gpuvec_array descriptors: one self-describing
 * argument each (where the data is, its dtype, shape and strides), as DLPack's
 * DLTensor and CCCL's cccl_iterator_t do. There is one entry point per op
 * family:
 *
 *   gpuvec_elementwise   out = f(in0, in1, in2; params)   every elementwise op
 *   gpuvec_reduce        out = reduction of x over its last dimensions
 *   gpuvec_copy          out = in, converting dtype and moving host <-> device
 *   gpuvec_compress      out = x[mask], and gpuvec_expand: x[mask] = values
 *
 * Each returns a status (gpuvec/status.h) and takes a gpuvec_launch: the
 * backend, the block size and the stream. Behind the entry points the
 * boundary (csrc/common) decides, once, what the call needs:
 *   - host (NumPy) data on the CUDA backend is streamed through pinned
 *     staging buffers, converted to the compute dtype on the way;
 *   - a device input of another dtype is converted into a temporary;
 *   - an out that partly overlaps an input is computed in a temporary first,
 *     so every result is what NumPy gives;
 *   - the layout is simplified, so contiguous, reversed and Fortran-ordered
 *     arrays take the kernels' contiguous path.
 *
 * Which ops exist is gpuvec/op_table.h: one row per op.
 */
#ifndef GPUVEC_GPUVEC_H
#define GPUVEC_GPUVEC_H

#include <stdint.h>

#include "gpuvec/limits.h" /* GPUVEC_MAX_NDIM, GPUVEC_MAX_INPUTS */
#include "gpuvec/op_table.h"
#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The element types. The dtype is data: a new dtype is a new row here and in
 * the dispatch, not a new entry point. */
typedef enum gpuvec_dtype {
  GPUVEC_FLOAT32 = 0,
  GPUVEC_FLOAT64 = 1,
  GPUVEC_INT64 = 2, /* also argmin's and argmax's results */
  GPUVEC_BOOL = 3,  /* one byte, 0 or 1: comparisons, tests, where's condition */
  GPUVEC_INT8 = 4,
  GPUVEC_INT16 = 5,
  GPUVEC_INT32 = 6,
  GPUVEC_UINT8 = 7,
  GPUVEC_UINT16 = 8,
  GPUVEC_UINT32 = 9,
  GPUVEC_UINT64 = 10,
  /* IEEE half, stored only: the ops read it as float32 (as NumPy's float16
   * loops compute), so no op computes in it; copies and conversions move it. */
  GPUVEC_FLOAT16 = 11,
  /* Complex numbers, as NumPy's: two float32 (complex64) or two float64
   * (complex128), the real part first. The ops that NumPy defines for them
   * compute in them (gpuvec/portable.hpp's complex: + - * / as NumPy's loops). */
  GPUVEC_COMPLEX64 = 12,
  GPUVEC_COMPLEX128 = 13
} gpuvec_dtype;

/* Where an array's elements are. */
typedef enum gpuvec_memory {
  GPUVEC_MEMORY_HOST = 0,   /* host memory, e.g. a NumPy array */
  GPUVEC_MEMORY_DEVICE = 1, /* memory the current CUDA device can address */
  GPUVEC_MEMORY_SCALAR = 2  /* no memory: every element is `scalar` (an input only) */
} gpuvec_memory;

/* An array: element (i0, ..., ik) is at data + i0*strides[0] + ... + ik*strides[k]
 * elements. Strides count elements, not bytes; 0 broadcasts, negative walks
 * backwards. An elementwise op's inputs have the output's shape (broadcast
 * dimensions have stride 0). */
typedef struct gpuvec_array {
  void* data; /* element (0, ..., 0); NULL for a scalar or an empty array */
  gpuvec_dtype dtype;
  gpuvec_memory memory;
  /* The value of a GPUVEC_MEMORY_SCALAR input: `integer` for an integer
   * dtype (a uint64 above 2^63 - 1 as its two's complement bits), so that
   * every 64-bit value is exact; `scalar` for a float or bool dtype. */
  union {
    double scalar;
    int64_t integer;
  };
  int ndim;
  int64_t shape[GPUVEC_MAX_NDIM];
  int64_t strides[GPUVEC_MAX_NDIM];
} gpuvec_array;

/* How to run a call. */
typedef struct gpuvec_launch {
  gpuvec_backend backend;
  int threads_per_block; /* 0: a good default. Above 1024 fails as CUDA does, on both backends */
  gpuvec_stream stream;  /* NULL: the default stream. The host backend runs in order */
} gpuvec_launch;

/* The ops, from the table: GPUVEC_ADD = 1, GPUVEC_SQRT, ..., GPUVEC_REDUCE_SUM = 1, ...
 * Each code is the row's code column: codes are stable, never reused. */
#define GPUVEC_ENUM_ROW(code, NAME, name, numpy, arity, params, result, kinds, Functor, rounding, \
                        host_ulps, cuda_ulps, summary)                                            \
  GPUVEC_##NAME = code,
typedef enum gpuvec_op { GPUVEC_ELEMENTWISE_OPS(GPUVEC_ENUM_ROW) } gpuvec_op;
#undef GPUVEC_ENUM_ROW
#define GPUVEC_ENUM_ROW(code, NAME, name, numpy, ufunc, inputs, result, Policy, traits, warning, \
                        summary)                                                                 \
  GPUVEC_REDUCE_##NAME = code,
typedef enum gpuvec_reduce_op { GPUVEC_REDUCE_OPS(GPUVEC_ENUM_ROW) } gpuvec_reduce_op;
#undef GPUVEC_ENUM_ROW

/* One row of the op table, for bindings that build their functions from it:
 * its columns (gpuvec/op_table.h says what each means). For reductions,
 * arity is the number of inputs, params is 0 and the elementwise columns
 * (exact, the ulp budgets) are 0; for elementwise rows the reduction
 * columns (ufunc, traits, warning) are "". result is the row's result
 * column: GPUVEC_BOOL (comparisons, tests, any, all), GPUVEC_INT64 (argmin,
 * argmax, count_nonzero), or -1 for the compute dtype. Fields are only ever
 * added at the end. */
typedef struct gpuvec_op_info {
  int code;
  const char* name;
  int arity;
  int params;
  const char* summary;
  int result;          /* the result's dtype, or -1 for the compute dtype */
  int reads_truth;     /* 1: each input is read as a truth value (result column TRUTH) */
  const char* numpy;   /* NumPy's name of the function, "" for none */
  const char* functor; /* the functor (policy, for a reduction) in gpuvec::ops */
  int exact;           /* 1: correctly rounded, NumPy's bits (rounding column EXACT) */
  int host_ulps;       /* the ulp budget against NumPy on the host backend */
  int cuda_ulps;       /* and on the CUDA backend */
  const char* ufunc;   /* reductions: NumPy's ufunc whose reduce computes it, or "" */
  const char* traits;  /* reductions: the traits column, words separated by spaces */
  const char* warning; /* reductions: NumPy's RuntimeWarning for a too short slice, or "" */
  const char* kinds;   /* elementwise: the kinds column, the dtypes it computes in; "" else */
} gpuvec_op_info;

/* The op table's result column as gpuvec_op_info.result: a dtype, or -1
 * for the compute dtype. */
#define GPUVEC_RESULT_SAME (-1)
#define GPUVEC_RESULT_INT64 GPUVEC_INT64
#define GPUVEC_RESULT_BOOL GPUVEC_BOOL
#define GPUVEC_RESULT_TRUTH GPUVEC_BOOL
#define GPUVEC_RESULT_UINT8 GPUVEC_UINT8
/* The rounding column as gpuvec_op_info.exact. */
#define GPUVEC_ROUNDING_EXACT 1
#define GPUVEC_ROUNDING_NEAR 0

/* The table's rows; *count receives their number. Never fails. */
const gpuvec_op_info* gpuvec_elementwise_ops(int* count);
const gpuvec_op_info* gpuvec_reduce_ops(int* count);

/* out = op(inputs[0], ..., inputs[n_inputs - 1]; params), computed in `compute`.
 *
 * compute is a dtype of the op's kinds (gpuvec_op_info.kinds: floats, the
 * integers, bool); the caller picks it as NumPy's ufunc resolves its loop.
 * A row whose integer bits do not depend on the sign computes a signed
 * dtype as the unsigned one of its width. Every input has out's ndim and
 * shape, and any dtype: an input of another dtype than `compute` is
 * converted as the call reads it. Where's condition (input 0) is
 * GPUVEC_BOOL whatever `compute` is. out's dtype is the op's result
 * (gpuvec_op_info.result): `compute`, GPUVEC_BOOL or GPUVEC_UINT8. params holds
 * the op's parameters (alpha, beta), NULL when it has none. On the host
 * backend every array is host memory; on the CUDA backend the arrays are all
 * device memory, or all host memory (staged). Scalars may be mixed with
 * either; a scalar's value is its `integer` for an integer dtype, else its
 * double (for a bool, nonzero is true). out
 * may be any view, also one of an input; a 0-d array has ndim 0. */
gpuvec_status gpuvec_elementwise(gpuvec_op op, const gpuvec_array* out, const gpuvec_array* inputs,
                                 int n_inputs, const double* params, gpuvec_dtype compute,
                                 const gpuvec_launch* launch);

/* out = the reduction op of x (and y, for DOT) over x's last reduced_ndim
 * dimensions, computed in `compute` (x is converted as it is read).
 *
 * x and y are arrays of any dtype, not scalars. compute is float32 or
 * float64; for ANY, ALL and COUNT_NONZERO, which ask only whether each
 * element is nonzero (NaN is), it may also be bool or an integer dtype:
 * pass x's own dtype to read x as it is; the rows with the integers trait
 * (sum, prod, min, max, argmin, argmax and their nan forms) reduce an
 * integer compute dtype exactly in it, wrapping around as NumPy's do. out's shape is x's first
 * x.ndim - reduced_ndim dimensions; its dtype is the row's result (gpuvec_op_info.result):
 * `compute`, GPUVEC_INT64 (ARGMIN, ARGMAX, COUNT_NONZERO) or GPUVEC_BOOL
 * (ANY, ALL). MEAN_VAR and MEAN_STD write two results per row in one pass
 * over x: out has a leading dimension of 2 before those, the means at
 * out[0] and the variances (standard deviations) at out[1]. Float sums
 * accumulate in double. ddof is the delta degrees of freedom of var, std, MEAN_VAR and
 * MEAN_STD. MIN, MAX, ARGMIN and ARGMAX of no elements fail with
 * GPUVEC_ERROR_INVALID_ARGUMENT; ANY of none is false, ALL true. y is NULL
 * except for DOT, which reduces every dimension (reduced_ndim == x.ndim) of
 * x and y, of one shape. */
gpuvec_status gpuvec_reduce(gpuvec_reduce_op op, const gpuvec_array* out, const gpuvec_array* x,
                            const gpuvec_array* y, int reduced_ndim, gpuvec_dtype compute,
                            double ddof, const gpuvec_launch* launch);

/* out = in, element by element over out's shape (in may broadcast), with
 * the dtype converted and the data moved between host and device memory as
 * the two descriptors say. A host <-> device copy goes through the pinned
 * staging buffers; the call returns once a copy to host memory has landed.
 * float32, float64 and bool convert into each other (a float is true when
 * nonzero); int64 copies only to int64. A scalar `in` fills out. */
gpuvec_status gpuvec_copy(const gpuvec_array* out, const gpuvec_array* in,
                          const gpuvec_launch* launch);

/* Boolean masks: NumPy's x[mask] (compress) and x[mask] = values (expand).
 *
 * mask is a GPUVEC_BOOL array (one byte, 0 or 1) of x's ndim and shape, with
 * any strides (0 included: a mask may broadcast). The elements it selects are
 * those of x where it is true, taken in C order of x's shape (row-major, as
 * NumPy takes them, whatever x's strides are); the k-th selected element is
 * the k-th in that order. x may be of any dtype. On the host backend every
 * array is host memory; on the CUDA backend the arrays are all device memory,
 * or all host memory: a selection only moves elements, so host arrays are
 * moved on the host rather than sent to the device and back. */

/* *count = the number of true elements of mask (of any shape and strides).
 * On the CUDA backend the call waits for the device to read the count back. */
gpuvec_status gpuvec_count_true(const gpuvec_array* mask, int64_t* count,
                                const gpuvec_launch* launch);

/* out = x[mask]: the selected elements of x, in order, written to out's
 * elements in C order (out is usually 1-D). out has x's dtype and as many
 * elements as mask has true ones: that is checked before anything is
 * written, which costs a count of the mask (on the CUDA backend, a wait for
 * the device). out may overlap x or mask. */
gpuvec_status gpuvec_compress(const gpuvec_array* out, const gpuvec_array* x,
                              const gpuvec_array* mask, const gpuvec_launch* launch);

/* x[mask] = values, in place: the k-th selected element of x becomes element
 * k of values (read in C order, converted to x's dtype as gpuvec_copy
 * converts), or every selected element becomes values' one value when values
 * is a scalar or an array of one element. Any other values must have as many
 * elements as mask has true ones, which is checked first as compress checks
 * out. values and mask may overlap x (as in NumPy's b[b] = False). */
gpuvec_status gpuvec_expand(const gpuvec_array* x, const gpuvec_array* mask,
                            const gpuvec_array* values, const gpuvec_launch* launch);

#ifdef __cplusplus
}
#endif

#include "gpuvec/scan.h" /* scans, sorts and counts: cumsum, sort, histogram, ... */

#endif /* GPUVEC_GPUVEC_H */
