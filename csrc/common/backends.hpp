// What each backend implements. The ABI boundary (abi_ops.cpp) validates the
// arguments and simplifies the layout, then calls one of these. Pointers
// already include the layout's offsets. Each function throws gpuvec::Error.
#ifndef GPUVEC_COMMON_BACKENDS_HPP
#define GPUVEC_COMMON_BACKENDS_HPP

#include <stdint.h>

#include "gpuvec/layout.hpp"
#include "gpuvec/ops.h"
#include "gpuvec/reduce.h"
#include "gpuvec/unary.h"

namespace gpuvec {

// Operand 0 of an elementwise layout is the output; the inputs follow. A
// reduction's `rows` layout walks the output (operand 0) and the start of
// each row of x (operand 1); `row` walks the elements of one row of x, in the
// order the reduction visits them.
#define GPUVEC_BACKEND_FUNCTIONS                                                              \
  template <class T>                                                                          \
  void binary(gpuvec_binary_op op, const Layout<3>& layout, T* out, const T* a, const T* b,   \
              int threads_per_block, gpuvec_stream stream);                                   \
  template <class T>                                                                          \
  void scale(const Layout<2>& layout, T* out, T alpha, const T* x, int threads_per_block,     \
             gpuvec_stream stream);                                                           \
  template <class T>                                                                          \
  void axpy(const Layout<3>& layout, T* out, T alpha, const T* x, const T* y,                 \
            int threads_per_block, gpuvec_stream stream);                                     \
  template <class T>                                                                          \
  void sum(const Layout<1>& layout, const T* x, T* result, int threads_per_block,             \
           gpuvec_stream stream);                                                             \
  template <class T>                                                                          \
  void dot(const Layout<2>& layout, const T* x, const T* y, T* result, int threads_per_block, \
           gpuvec_stream stream);                                                             \
  template <class T>                                                                          \
  void axpby(const Layout<3>& layout, T* out, T alpha, const T* x, T beta, const T* y,        \
             int threads_per_block, gpuvec_stream stream);                                    \
  template <class T>                                                                          \
  void unary(gpuvec_unary_op op, const Layout<2>& layout, T* out, const T* x,                 \
             int threads_per_block, gpuvec_stream stream);                                    \
  template <class T>                                                                          \
  void clip(const Layout<4>& layout, T* out, const T* x, const T* lo, const T* hi,            \
            int threads_per_block, gpuvec_stream stream);                                     \
  template <class T>                                                                          \
  void where(const Layout<4>& layout, T* out, const uint8_t* cond, const T* a, const T* b,    \
             int threads_per_block, gpuvec_stream stream);                                    \
  template <class T>                                                                          \
  void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,   \
              void* out, double ddof, int threads_per_block, gpuvec_stream stream);

namespace host {
GPUVEC_BACKEND_FUNCTIONS
}  // namespace host

namespace cuda {
GPUVEC_BACKEND_FUNCTIONS
}  // namespace cuda

#undef GPUVEC_BACKEND_FUNCTIONS

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_BACKENDS_HPP
