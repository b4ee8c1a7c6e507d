// gpuvec's own kernels on the CUDA backend, compiled at their first use.
//
// The elementwise ops, reductions and conversions are templates of the
// installed headers (gpuvec/map.hpp, gpuvec/reduce.hpp), instantiated for
// an op, its dtypes and a launch shape. nvcc would have to compile every
// instance for every GPU architecture at build time: thousands of kernels,
// most of a 12-minute build, and a driver's PTX compile of minutes on a GPU
// newer than the list. Instead each instance is compiled by NVRTC when a call
// first needs it, for the device at hand (about 0.2 s), and kept in the
// kernel cache on disk, so that later processes load it in a millisecond.
// The compiler is the Python layer's (gpuvec_set_kernel_compiler): the same
// NVRTC, options and cache as users' ElementwiseKernels, which are built
// from the same templates.
#ifndef GPUVEC_CUDA_OWN_KERNELS_HPP
#define GPUVEC_CUDA_OWN_KERNELS_HPP

#include <stdint.h>

#include <atomic>
#include <string>

#include "gpuvec/kernels.h"
#include "gpuvec/portable.hpp"

namespace gpuvec::cuda {

// The sources the kernels are instantiated from: each includes the headers
// of one family, with the ops' functors or the reductions' policies.
extern const char* const kMapSource;
extern const char* const kReduceSource;

// The kernel that `expression` names in `source`, compiled for the current
// device (device); the process-wide table behind OwnKernel.
void* own_kernel(const char* source, const std::string& expression, int device);

// The device calls run on (cudaGetDevice).
int current_device();

// One launch site's kernel, per device: a lock-free load once compiled. A
// launch site is a template instantiated for an op and its types, so a
// static OwnKernel there stands for exactly one name expression per device.
class OwnKernel {
 public:
  // The kernel for the current device; expression() is called only the first
  // time, to name it.
  template <class Expression>
  void* get(const char* source, Expression&& expression) {
    const int device = current_device();
    if (device < kDevices) {
      void* kernel = slots_[device].load(std::memory_order_acquire);
      if (kernel != nullptr) return kernel;
    }
    void* kernel = own_kernel(source, expression(), device);
    if (device < kDevices) slots_[device].store(kernel, std::memory_order_release);
    return kernel;
  }

 private:
  static constexpr int kDevices = 16;  // beyond: the table's lookup, under its lock
  std::atomic<void*> slots_[kDevices] = {};
};

// How name expressions spell the types of the kernels' template arguments.
template <class T>
const char* type_name();
template <>
inline const char* type_name<float>() {
  return "float";
}
template <>
inline const char* type_name<double>() {
  return "double";
}
template <>
inline const char* type_name<bool>() {
  return "bool";
}
#define GPUVEC_TYPE_NAME(type)           \
  template <>                            \
  inline const char* type_name<type>() { \
    return #type;                        \
  }
GPUVEC_TYPE_NAME(int8_t)
GPUVEC_TYPE_NAME(int16_t)
GPUVEC_TYPE_NAME(int32_t)
GPUVEC_TYPE_NAME(int64_t)
GPUVEC_TYPE_NAME(uint8_t)
GPUVEC_TYPE_NAME(uint16_t)
GPUVEC_TYPE_NAME(uint32_t)
GPUVEC_TYPE_NAME(uint64_t)
#undef GPUVEC_TYPE_NAME
template <>
inline const char* type_name<half>() {  // float16, which conversions move
  return "gpuvec::half";
}
template <>
inline const char* type_name<complex64>() {  // gpuvec/portable.hpp's complex
  return "gpuvec::complex64";
}
template <>
inline const char* type_name<complex128>() {
  return "gpuvec::complex128";
}

// gpuvec::Operand<T, S>: an input computed in T and stored as S.
template <class T, class S>
std::string operand_name() {
  return std::string("gpuvec::Operand<") + type_name<T>() + ", " + type_name<S>() + ">";
}

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_OWN_KERNELS_HPP
