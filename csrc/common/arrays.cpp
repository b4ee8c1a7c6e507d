// Checks and geometry of gpuvec_array descriptors (see arrays.hpp).
#include "arrays.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "../kit/dtype.hpp"
#include "../kit/error.hpp"

namespace gpuvec {
namespace {

const char* memory_name(gpuvec_memory memory) {
  switch (memory) {
    case GPUVEC_MEMORY_HOST:
      return "host memory";
    case GPUVEC_MEMORY_DEVICE:
      return "device memory";
    case GPUVEC_MEMORY_SCALAR:
      return "a scalar";
  }
  return "an unknown memory kind";
}

// The bytes [lo, hi) that a's elements span.
struct Span {
  uintptr_t lo;
  uintptr_t hi;
};

Span span_of(const gpuvec_array& a) {
  int64_t low = 0, high = 0;
  for (int d = 0; d < a.ndim; ++d) {
    const int64_t reach = (a.shape[d] - 1) * a.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const int64_t item = static_cast<int64_t>(itemsize(a.dtype));
  const uintptr_t base = reinterpret_cast<uintptr_t>(a.data);
  return {base + low * item, base + (high + 1) * item};
}

}  // namespace

int64_t element_count(const gpuvec_array& a) {
  int64_t n = 1;
  for (int d = 0; d < a.ndim; ++d) n *= a.shape[d];
  return n;
}

void check_array(const Named& n, bool may_be_scalar) {
  const gpuvec_array* a = n.array;
  if (a == nullptr) throw_invalid_argument(n.name() + " is a null pointer");
  if (a->ndim < 0 || a->ndim > GPUVEC_MAX_NDIM) {
    throw_invalid_argument(n.name() + ": ndim must be between 0 and " +
                           std::to_string(GPUVEC_MAX_NDIM) + ", got " + std::to_string(a->ndim));
  }
  for (int d = 0; d < a->ndim; ++d) {
    if (a->shape[d] < 0) {
      throw_invalid_argument(n.name() + " has a negative extent in dimension " +
                             std::to_string(d));
    }
  }
  switch (a->memory) {
    case GPUVEC_MEMORY_HOST:
    case GPUVEC_MEMORY_DEVICE:
      break;
    case GPUVEC_MEMORY_SCALAR:
      if (may_be_scalar) return;  // no memory to check
      throw_invalid_argument(n.name() + " must be an array, not a scalar");
    default:
      throw_invalid_argument(n.name() + " has an unknown memory kind " +
                             std::to_string(static_cast<int>(a->memory)));
  }
  if (a->data == nullptr && element_count(*a) > 0) {
    throw_invalid_argument(n.name() + " is a null pointer");
  }
}

void check_same_shape(const Named& a, const Named& like) {
  bool same = a.array->ndim == like.array->ndim;
  for (int d = 0; same && d < a.array->ndim; ++d) same = a.array->shape[d] == like.array->shape[d];
  if (!same) throw_invalid_argument(a.name() + " does not have the shape of " + like.name());
}

void check_dtype(const Named& a, int dtype) {
  const gpuvec_dtype has = a.array->dtype;
  if (dtype < 0) {
    if (!is_float(has)) {
      throw_invalid_argument(a.name() + " has dtype " + dtype_name(has) +
                             "; float32 or float64 was expected");
    }
  } else if (has != static_cast<gpuvec_dtype>(dtype)) {
    throw_invalid_argument(a.name() + " has dtype " + dtype_name(has) + "; " +
                           dtype_name(static_cast<gpuvec_dtype>(dtype)) + " was expected");
  }
}

void check_value_dtype(const Named& a) {
  const gpuvec_dtype has = a.array->dtype;
  // Throws for a code that is no dtype; float16 is read as float32 (the
  // boundary converts it first, as any input of another dtype).
  with_stored_dtype(has, [](auto) {});
}

Place place_of(gpuvec_backend backend, const Named* arrays, int count) {
  const Named* first = nullptr;
  for (int k = 0; k < count; ++k) {
    const Named& n = arrays[k];
    if (n.array == nullptr || is_scalar(*n.array)) continue;
    if (backend == GPUVEC_BACKEND_HOST && n.array->memory != GPUVEC_MEMORY_HOST) {
      throw_invalid_argument(n.name() + " is in " + memory_name(n.array->memory) +
                             ", but the host backend takes host memory only");
    }
    if (first == nullptr) {
      first = &n;
    } else if (n.array->memory != first->array->memory) {
      throw_invalid_argument(
          n.name() + " is in " + memory_name(n.array->memory) + " but " + first->name() +
          " is in " + memory_name(first->array->memory) +
          ": the CUDA backend takes every array in device memory, or every array in host "
          "memory (staged)");
    }
  }
  if (backend == GPUVEC_BACKEND_HOST) return Place::kHost;
  return first != nullptr && first->array->memory == GPUVEC_MEMORY_HOST ? Place::kStaged
                                                                        : Place::kDevice;
}

bool overlaps(const gpuvec_array& a, const gpuvec_array& b) {
  if (is_scalar(a) || is_scalar(b) || a.memory != b.memory) return false;
  if (element_count(a) == 0 || element_count(b) == 0) return false;
  const Span sa = span_of(a), sb = span_of(b);
  return sa.lo < sb.hi && sb.lo < sa.hi;
}

bool same_view(const gpuvec_array& a, const gpuvec_array& b) {
  if (a.data != b.data || a.dtype != b.dtype || a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
    if (a.shape[d] > 1 && a.strides[d] != b.strides[d]) return false;
  }
  return true;
}

void dense_strides(const gpuvec_array& a, bool keep_broadcast, int64_t* strides) {
  int order[GPUVEC_MAX_NDIM];
  for (int d = 0; d < a.ndim; ++d) order[d] = d;
  std::stable_sort(order, order + a.ndim, [&](int i, int j) {
    return std::llabs(a.strides[i]) > std::llabs(a.strides[j]);
  });
  int64_t stride = 1;
  for (int k = a.ndim - 1; k >= 0; --k) {
    const int d = order[k];
    if (keep_broadcast && a.strides[d] == 0) {
      strides[d] = 0;
    } else {
      strides[d] = stride;
      stride *= a.shape[d];
    }
  }
}

}  // namespace gpuvec
