// Temporaries of the boundary (see temporaries.hpp).
#include "temporaries.hpp"

#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dtype.hpp"
#include "arrays.hpp"
#include "gpuvec/layout.hpp"
#include "map_call.hpp"

namespace gpuvec {

Scratch::~Scratch() {
  for (const auto& [p, bytes] : device_) {
    try {
      cuda::deallocate(p, bytes, stream_);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failed free must not hide the call's result
    }
  }
}

void* Scratch::take(gpuvec_memory memory, size_t bytes) {
  if (bytes == 0) return nullptr;
  if (memory == GPUVEC_MEMORY_DEVICE) {
    device_.reserve(device_.size() + 1);  // so that push_back cannot fail and leak p
    void* p = cuda::allocate(bytes, stream_);
    device_.emplace_back(p, bytes);
    return p;
  }
  host_.emplace_back(new char[bytes]);  // uninitialized: every byte is written before it is read
  return host_.back().get();
}

void copy_array(const gpuvec_array& out, const gpuvec_array& in, gpuvec_memory memory,
                gpuvec_stream stream) {
  const bool scalar = is_scalar(in);
  const Layout<2> L =
      simplify_layout<2>(out.ndim, out.shape, {out.strides, scalar ? out.strides : in.strides});
  if (L.size == 0) return;
  // A scalar is converted here, once: the loop copies it as it is.
  with_conversion(out.dtype, scalar ? out.dtype : in.dtype, [&](auto to, auto from) {
    using To = decltype(to);
    using From = decltype(from);
    To* o = static_cast<To*>(out.data) + L.offset[0];
    Operand<From> x{nullptr, From{}};
    if (!scalar) {
      x.p = static_cast<const From*>(in.data) + L.offset[1];
    } else {
      x.value = scalar_value<From>(in);
    }
    if (memory == GPUVEC_MEMORY_DEVICE) {
      cuda::cast<To, From>(L, o, x, stream);
    } else {
      host::cast<To, From>(L, o, x, stream);
    }
  });
}

gpuvec_array temporary_like(const gpuvec_array& a, gpuvec_dtype dtype, gpuvec_memory memory,
                            bool keep_broadcast, Scratch& scratch) {
  gpuvec_array t = a;
  t.dtype = dtype;
  t.memory = memory;
  dense_strides(a, keep_broadcast, t.strides);
  int64_t n = 1;
  for (int d = 0; d < a.ndim; ++d) {
    if (!(keep_broadcast && a.strides[d] == 0)) n *= a.shape[d];
  }
  t.data = scratch.take(memory, static_cast<size_t>(n) * itemsize(dtype));
  return t;
}

gpuvec_array converted(const gpuvec_array& a, gpuvec_dtype dtype, Scratch& scratch,
                       gpuvec_stream stream) {
  const gpuvec_array t = temporary_like(a, dtype, a.memory, true, scratch);
  // Copy a's own elements: extent 1 where it broadcasts.
  gpuvec_array from = a, to = t;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.strides[d] == 0) from.shape[d] = to.shape[d] = 1;
  }
  copy_array(to, from, a.memory, stream);
  return t;
}

gpuvec_array writable_out(const gpuvec_array& out, const gpuvec_array* in, int n,
                          gpuvec_memory memory, Scratch& scratch) {
  for (int k = 0; k < n; ++k) {
    if (overlaps(out, in[k]) && !same_view(out, in[k])) {
      return temporary_like(out, out.dtype, memory, false, scratch);
    }
  }
  return out;
}

}  // namespace gpuvec
