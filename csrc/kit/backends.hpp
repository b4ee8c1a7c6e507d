// What each backend implements. The boundary (csrc/common) validates a call,
// converts and stages its operands and simplifies the layout, then calls one
// of these. Pointers already include the layout's offsets. Each function
// throws gpuvec::Error.
#ifndef GPUVEC_KIT_BACKENDS_HPP
#define GPUVEC_KIT_BACKENDS_HPP

#include <stddef.h>
#include <stdint.h>

#include "gpuvec/gpuvec.h"
#include "gpuvec/layout.hpp"
#include "operand.hpp"
#include "view.hpp"

namespace gpuvec {

// Operand 0 of an elementwise layout is the output, operand k + 1 input k (a
// scalar input has the output's strides, and its memory is never read). A
// reduction's `rows` layout walks the output (operand 0) and the start of
// each row of x (operand 1); `row` walks the elements of one row of x, in the
// order the reduction visits them. The host backend ignores the block size
// and the stream.
#define GPUVEC_BACKEND_FUNCTIONS                                                               \
  /* out is a T, or a bool for the ops whose result is a truth value; the */                   \
  /* inputs are stored as S (GPUVEC_INPUT_TYPES) and computed on in T */                       \
  template <class T, int Arity, class S>                                                       \
  void elementwise(gpuvec_op op, const Layout<Arity + 1>& layout, void* out,                   \
                   const Inputs<T, Arity, S>& in, const double* params, int threads_per_block, \
                   gpuvec_stream stream);                                                      \
  /* out = To(x), element by element: conversions, strided copies and fills */                 \
  template <class To, class From>                                                              \
  void cast(const Layout<2>& layout, To* out, Operand<From> x, gpuvec_stream stream);          \
  /* the sum of x * y over every element: one row of the reduction engine */                   \
  template <class T>                                                                           \
  void dot(const Layout<2>& layout, const T* x, const T* y, T* result, int threads_per_block,  \
           gpuvec_stream stream);                                                              \
  /* plane: mean_var's and mean_std's, from a row's mean to its deviation in out */            \
  template <class T>                                                                           \
  void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,    \
              void* out, double ddof, int64_t plane, int threads_per_block,                    \
              gpuvec_stream stream);

// The (compute, stored) pairs of the elementwise ops' inputs: each compute
// dtype on inputs of its own, and each float dtype on inputs of the other,
// which the kernels convert as they load them (`dtype=` on float32 data).
// Listed by compute dtype too, so that the backends can compile the pairs of
// each in a file of its own: the two cores of a small machine then share
// the build's largest files (csrc/meson.build).
#define GPUVEC_INPUT_TYPES_FLOAT(X) \
  X(float, float)                   \
  X(float, double)
#define GPUVEC_INPUT_TYPES_DOUBLE(X) \
  X(double, double)                  \
  X(double, float)
#define GPUVEC_INPUT_TYPES_BOOL(X) X(bool, bool)
// Integers compute on inputs of their own dtype: the boundary converts the
// others first. The signed ones run only the rows whose bits depend on the
// sign (the kinds column's i); the rest run on the unsigned dtype of the width.
#define GPUVEC_INPUT_TYPES_SIGNED(X) \
  X(int8_t, int8_t)                  \
  X(int16_t, int16_t)                \
  X(int32_t, int32_t)                \
  X(int64_t, int64_t)
#define GPUVEC_INPUT_TYPES_UNSIGNED(X) \
  X(uint8_t, uint8_t)                  \
  X(uint16_t, uint16_t)                \
  X(uint32_t, uint32_t)                \
  X(uint64_t, uint64_t)
// The complex dtypes compute on inputs of their own dtype (the boundary
// converts the others first): the rows of a c in their kinds column alone,
// a few kernels, not one per pair of dtypes.
#define GPUVEC_INPUT_TYPES_COMPLEX(X) \
  X(complex64, complex64)             \
  X(complex128, complex128)
#define GPUVEC_INPUT_TYPES(X)    \
  GPUVEC_INPUT_TYPES_FLOAT(X)    \
  GPUVEC_INPUT_TYPES_DOUBLE(X)   \
  GPUVEC_INPUT_TYPES_BOOL(X)     \
  GPUVEC_INPUT_TYPES_SIGNED(X)   \
  GPUVEC_INPUT_TYPES_UNSIGNED(X) \
  GPUVEC_INPUT_TYPES_COMPLEX(X)

// Instantiates elementwise<T, Arity, S> in the backend namespace it is used in.
#define GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, Arity)                                      \
  template void elementwise<T, Arity, S>(gpuvec_op, const Layout<Arity + 1>&, void*,     \
                                         const Inputs<T, Arity, S>&, const double*, int, \
                                         gpuvec_stream);
// ... for every arity.
#define GPUVEC_INSTANTIATE_ELEMENTWISE_ALL(T, S) \
  GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 1)        \
  GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 2)        \
  GPUVEC_INSTANTIATE_ELEMENTWISE(T, S, 3)

// The types reduce<T> is compiled for: x read in T. Bool x runs any, all and
// count_nonzero alone; integer x those and the rows with the integers trait
// (csrc/kit/dispatch.hpp's visit_reduce_op).
#define GPUVEC_REDUCE_TYPES(X) \
  X(float)                     \
  X(double)                    \
  X(bool)                      \
  X(int8_t)                    \
  X(int16_t)                   \
  X(int32_t)                   \
  X(int64_t)                   \
  X(uint8_t)                   \
  X(uint16_t)                  \
  X(uint32_t)                  \
  X(uint64_t)
// Instantiates reduce<T> in the backend namespace it is used in.
#define GPUVEC_INSTANTIATE_REDUCE(T)                                                             \
  template void reduce<T>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const T*, void*, \
                          double, int64_t, int, gpuvec_stream);

// The (To, From) pairs that cast is compiled for: every pair of the dtypes
// arrays hold, float16 (half) and the complex dtypes included
// (gpuvec/operand.hpp's convert says how each converts).
#define GPUVEC_CAST_FROM_EACH(X, To) \
  X(To, float)                       \
  X(To, double)                      \
  X(To, bool)                        \
  X(To, int8_t)                      \
  X(To, int16_t)                     \
  X(To, int32_t)                     \
  X(To, int64_t)                     \
  X(To, uint8_t)                     \
  X(To, uint16_t)                    \
  X(To, uint32_t)                    \
  X(To, uint64_t)                    \
  X(To, half)                        \
  X(To, complex64)                   \
  X(To, complex128)
#define GPUVEC_CAST_TYPES(X)          \
  GPUVEC_CAST_FROM_EACH(X, float)     \
  GPUVEC_CAST_FROM_EACH(X, double)    \
  GPUVEC_CAST_FROM_EACH(X, bool)      \
  GPUVEC_CAST_FROM_EACH(X, int8_t)    \
  GPUVEC_CAST_FROM_EACH(X, int16_t)   \
  GPUVEC_CAST_FROM_EACH(X, int32_t)   \
  GPUVEC_CAST_FROM_EACH(X, int64_t)   \
  GPUVEC_CAST_FROM_EACH(X, uint8_t)   \
  GPUVEC_CAST_FROM_EACH(X, uint16_t)  \
  GPUVEC_CAST_FROM_EACH(X, uint32_t)  \
  GPUVEC_CAST_FROM_EACH(X, uint64_t)  \
  GPUVEC_CAST_FROM_EACH(X, half)      \
  GPUVEC_CAST_FROM_EACH(X, complex64) \
  GPUVEC_CAST_FROM_EACH(X, complex128)

namespace host {
GPUVEC_BACKEND_FUNCTIONS
}  // namespace host

namespace cuda {
GPUVEC_BACKEND_FUNCTIONS

// Device memory from the current device's stream-ordered pool, and its
// return, ordered after the work queued on `stream`; `bytes` is the size it
// was allocated with (freed blocks are kept for reuse on their stream:
// csrc/cuda/freed_blocks.hpp).
void* allocate(size_t bytes, gpuvec_stream stream);
void deallocate(void* ptr, size_t bytes, gpuvec_stream stream);

// Host (NumPy) arrays through the pinned staging pipeline (staging.cpp).
// Each call holds the pipeline of the current device (one at a time) and
// returns once its result is in host memory.

// out = op(in...) over the `size` elements of the views' walk: each chunk of
// every array input is gathered into pinned memory, converted to the
// `compute` dtype (where's condition stays bytes), the op runs on the device
// and the chunk is scattered into out (of the op's result dtype). Scalars go
// to the kernel as values.
void staged_elementwise(gpuvec_op op, const double* params, gpuvec_dtype compute, int64_t size,
                        const HostView& out, const HostView* in, int n_inputs,
                        int threads_per_block);
// The sum of x, and the sum of x * y, read in `compute` and summed in double.
double staged_sum(gpuvec_dtype compute, int64_t size, const HostView& x, int threads_per_block);
double staged_dot(gpuvec_dtype compute, int64_t size, const HostView& x, const HostView& y,
                  int threads_per_block);
// device_dst[i] = element i of src converted to `to`, for i < size, copied on
// `stream`; returns once the copies are done.
void upload(const HostView& src, int64_t size, gpuvec_dtype to, void* device_dst,
            gpuvec_stream stream);
// Element i of dst = device_src[i] (of dtype `from`) converted to dst's dtype,
// for i < size, after the work queued on `stream`; returns once it has landed.
void download(const void* device_src, gpuvec_dtype from, int64_t size, const HostView& dst,
              gpuvec_stream stream);
}  // namespace cuda

#undef GPUVEC_BACKEND_FUNCTIONS

}  // namespace gpuvec

#endif  // GPUVEC_KIT_BACKENDS_HPP
