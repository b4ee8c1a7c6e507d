// What gpuvec's kernel headers need from the standard library, so that they
// compile everywhere they are used: by nvcc and the host compiler in gpuvec's
// own build, by NVRTC for a user's ElementwiseKernel, and by the host
// compiler against gpuvec/cuda_emulation.h for the same kernel without a GPU.
//
// NVRTC has no standard headers of its own (the nvidia-cuda-nvrtc wheel ships
// none: no <stdint.h>, no <utility>, no <type_traits>), so under NVRTC the few
// fixed-width types are defined here, and the two library templates the
// kernels use (an index sequence, a type comparison) are gpuvec's own
// everywhere, so that one spelling compiles under every compiler.
#ifndef GPUVEC_PORTABLE_HPP
#define GPUVEC_PORTABLE_HPP

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
typedef decltype(sizeof(0)) size_t;
// <stdint.h>'s limits, which argmin's identity and conversions use.
#ifndef INT64_MAX
#define INT64_MAX 0x7fffffffffffffffLL
#endif
#ifndef INT64_MIN
#define INT64_MIN (-INT64_MAX - 1)
#endif
#ifndef INT32_MIN
#define INT32_MIN (-2147483647 - 1)
#endif
// <math.h>'s INFINITY and NAN, which users' kernels write as in C (a
// ReductionKernel's identity "-INFINITY"); NVRTC has no <math.h> to give them.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fc00000)
#endif
#else
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

// A function of both host and device code, always inlined on the device.
#if defined(__CUDACC__)
#define GPUVEC_HD __host__ __device__ __forceinline__
#else
#define GPUVEC_HD inline
#endif

namespace gpuvec {

// std::index_sequence, and index_sequence_for<P...>: 0, 1, ..., sizeof...(P) - 1.
template <size_t... K>
struct index_sequence {};
template <size_t N, size_t... K>
struct make_index_sequence_of : make_index_sequence_of<N - 1, N - 1, K...> {};
template <size_t... K>
struct make_index_sequence_of<0, K...> {
  using type = index_sequence<K...>;
};
template <class... P>
using index_sequence_for = typename make_index_sequence_of<sizeof...(P)>::type;

// std::is_same_v.
template <class A, class B>
constexpr bool is_same_v = false;
template <class A>
constexpr bool is_same_v<A, A> = true;

// The signed integer of an unsigned one's width (std::make_signed).
template <class U>
struct signed_of;
template <>
struct signed_of<uint32_t> {
  using type = int32_t;
};
template <>
struct signed_of<uint64_t> {
  using type = int64_t;
};

// std::is_floating_point_v, for the arithmetic types.
template <class T>
constexpr bool is_float_v = is_same_v<T, float> || is_same_v<T, double>;

// Whether T is one of the integer dtypes' types (bool is not), and a signed one.
template <class T>
constexpr bool is_signed_integer_v = is_same_v<T, int8_t> || is_same_v<T, int16_t> ||
                                     is_same_v<T, int32_t> || is_same_v<T, int64_t>;
template <class T>
constexpr bool is_integer_v =
    is_signed_integer_v<T> || is_same_v<T, uint8_t> || is_same_v<T, uint16_t> ||
    is_same_v<T, uint32_t> || is_same_v<T, uint64_t>;

// The unsigned integer in which T's arithmetic wraps around: uint64_t for a
// 64-bit T, else uint32_t. Never narrower than int, so that no operand is
// promoted to int, whose overflow C++ leaves undefined (uint16 * uint16 would).
template <class T>
struct wrapping_of {
  using type = uint32_t;
};
template <>
struct wrapping_of<int64_t> {
  using type = uint64_t;
};
template <>
struct wrapping_of<uint64_t> {
  using type = uint64_t;
};
template <class T>
using wrapping_t = typename wrapping_of<T>::type;

}  // namespace gpuvec

#endif  // GPUVEC_PORTABLE_HPP
