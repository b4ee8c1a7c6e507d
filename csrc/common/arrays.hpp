// The boundary's view of gpuvec_array descriptors: their checks, their
// memory, and where a call that takes them runs.
#ifndef GPUVEC_COMMON_ARRAYS_HPP
#define GPUVEC_COMMON_ARRAYS_HPP

#include <stdint.h>

#include <string>

#include "gpuvec/gpuvec.h"

namespace gpuvec {

// An array and the name that error messages give it ("out", "input 1", "x").
// The name is spelled out only for a message: a call that succeeds builds no
// string.
struct Named {
  const gpuvec_array* array;
  const char* role;
  int index = -1;  // "input 1": the role, then the index when there is one

  std::string name() const {
    return index < 0 ? std::string(role) : std::string(role) + " " + std::to_string(index);
  }
};

// Checks ndim, shape, the memory kind and that a non-empty array has data.
// An output (may_be_scalar false) must have memory.
void check_array(const Named& a, bool may_be_scalar);
// Checks that a has `like`'s ndim and shape.
void check_same_shape(const Named& a, const Named& like);
// Checks a's dtype against `dtype`, or that it is a float dtype when `dtype`
// is -1.
void check_dtype(const Named& a, int dtype);
// Checks that a's dtype is one gpuvec knows, float16 included: an op reads
// any, converting it to the dtype it computes in.
void check_value_dtype(const Named& a);

int64_t element_count(const gpuvec_array& a);
inline bool is_scalar(const gpuvec_array& a) { return a.memory == GPUVEC_MEMORY_SCALAR; }

// How a call runs, from its backend and where its arrays are.
enum class Place {
  kHost,    // the host backend, every array in host memory
  kDevice,  // the CUDA backend, every array in device memory
  kStaged,  // the CUDA backend, every array in host memory: the staging pipeline
};

// The place of a call on `backend` over `arrays` (scalars take no part);
// throws, naming the array, where host and device memory are mixed or the
// host backend is given device memory.
Place place_of(gpuvec_backend backend, const Named* arrays, int count);

// True when the elements of a and b share a byte, and when a and b are the
// very same view (same data, dtype and strides): an elementwise op may write
// an output that is an input's very view, every element being read before
// it is written, but not one that overlaps it otherwise.
bool overlaps(const gpuvec_array& a, const gpuvec_array& b);
bool same_view(const gpuvec_array& a, const gpuvec_array& b);

// Element strides that lay shape out densely, the dimension of a's largest
// |stride| outermost (a's own order, so a dense copy of a Fortran-ordered
// array is Fortran-ordered too). Dimensions where a broadcasts (stride 0)
// get stride 0 when keep_broadcast, and take no room.
void dense_strides(const gpuvec_array& a, bool keep_broadcast, int64_t* strides);

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_ARRAYS_HPP
