// The definitions of gpuvec's ops, shared by the CUDA and the host backend.
//
// Each op is a small functor that compiles for both the host and the device, so
// a new elementwise op is one line here plus one line where it is dispatched
// (csrc/common/dispatch.hpp). Both backends call the same functor, which is why
// they give bit-identical elementwise results (nvcc builds with -fmad=false so
// that it does not fuse a*b+c where the host compiler would not).
#ifndef GPUVEC_OPS_HPP
#define GPUVEC_OPS_HPP

#if defined(__CUDACC__)
#define GPUVEC_HD __host__ __device__ __forceinline__
#else
#define GPUVEC_HD inline
#endif

namespace gpuvec::ops {

// The binary elementwise family: out = a (op) b. One line per op, kept on one
// line on purpose.
// clang-format off
struct Add { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a + b; } };
struct Subtract { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a - b; } };
struct Multiply { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a * b; } };
struct Divide { template <class T> GPUVEC_HD T operator()(T a, T b) const { return a / b; } };
// clang-format on

// out = alpha * x
template <class T>
struct Scale {
  T alpha;
  GPUVEC_HD T operator()(T x) const { return alpha * x; }
};

// out = alpha * x + y
template <class T>
struct Axpy {
  T alpha;
  GPUVEC_HD T operator()(T x, T y) const { return alpha * x + y; }
};

// Reductions accumulate in double whatever the input type: the extra precision
// costs nothing in a memory-bound loop and keeps float32 sums accurate.
using Accumulator = double;

// The term each element contributes to a sum.
struct SumTerm {
  template <class T>
  GPUVEC_HD Accumulator operator()(T x) const {
    return Accumulator(x);
  }
};
struct DotTerm {
  template <class T>
  GPUVEC_HD Accumulator operator()(T x, T y) const {
    return Accumulator(x) * Accumulator(y);
  }
};

}  // namespace gpuvec::ops

#endif  // GPUVEC_OPS_HPP
