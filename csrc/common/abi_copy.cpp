// gpuvec_copy: out = in, converting the dtype and moving the data between
// host and device memory as the descriptors say.
#include <stdint.h>

#include <string>

#include "../kit/backends.hpp"
#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "../kit/view.hpp"
#include "arrays.hpp"
#include "checks.hpp"
#include "gpuvec/layout.hpp"
#include "temporaries.hpp"

namespace gpuvec {
namespace {

HostView host_view(const gpuvec_array& a, const Layout<2>& joint, int k) {
  char* data =
      static_cast<char*>(a.data) + joint.offset[k] * static_cast<int64_t>(itemsize(a.dtype));
  return {data, a.dtype, 0.0, operand_layout(joint, k)};
}

// A copy of joint in which operand k is a dense array in the walk's order, at
// offset 0: a device buffer that the staging pipeline fills or empties in
// one block.
Layout<2> with_dense_operand(Layout<2> joint, int k) {
  int64_t stride = 1;
  for (int d = joint.ndim - 1; d >= 0; --d) {
    joint.strides[k][d] = stride;
    stride *= joint.shape[d];
  }
  joint.offset[k] = 0;
  return joint;
}

// Both in the same memory: one loop or kernel (a temporary first when out
// overlaps in other than as its very view).
void copy_within(const gpuvec_array& out, const gpuvec_array& in, gpuvec_memory memory,
                 gpuvec_stream stream) {
  if (overlaps(out, in)) {
    if (same_view(out, in)) return;  // every element is already itself
    Scratch scratch(stream);
    const gpuvec_array t = temporary_like(out, out.dtype, memory, false, scratch);
    copy_array(t, in, memory, stream);
    copy_array(out, t, memory, stream);
    return;
  }
  copy_array(out, in, memory, stream);
}

// Host to device: gathered (and converted) into pinned buffers and copied,
// straight into out where the walk writes it in one block, else into a dense
// temporary that a kernel then spreads over out.
void upload(const gpuvec_array& out, const gpuvec_array& in, gpuvec_stream stream) {
  const Layout<2> joint = simplify_layout<2>(out.ndim, out.shape, {out.strides, in.strides});
  const HostView src = host_view(in, joint, 1);
  const int64_t item = static_cast<int64_t>(itemsize(out.dtype));
  char* dst = static_cast<char*>(out.data) + joint.offset[0] * item;
  if (dense_walk(operand_layout(joint, 0))) {
    cuda::upload(src, joint.size, out.dtype, dst, stream);
    return;
  }
  Scratch scratch(stream);
  void* dense = scratch.take(GPUVEC_MEMORY_DEVICE, static_cast<size_t>(joint.size * item));
  cuda::upload(src, joint.size, out.dtype, dense, stream);
  with_stored_dtype(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    cuda::cast<T, T>(with_dense_operand(joint, 1), reinterpret_cast<T*>(dst),
                     Operand<T>{static_cast<const T*>(dense), T{}}, stream);
  });
}

// Device to host: copied into pinned buffers and scattered (and converted)
// into out, straight from in where the walk reads it in one block, else from
// a dense device copy that a kernel gathers first.
void download(const gpuvec_array& out, const gpuvec_array& in, gpuvec_stream stream) {
  const Layout<2> joint = simplify_layout<2>(out.ndim, out.shape, {out.strides, in.strides});
  const HostView dst = host_view(out, joint, 0);
  const int64_t item = static_cast<int64_t>(itemsize(in.dtype));
  const char* src = static_cast<const char*>(in.data) + joint.offset[1] * item;
  if (dense_walk(operand_layout(joint, 1))) {
    cuda::download(src, in.dtype, joint.size, dst, stream);
    return;
  }
  Scratch scratch(stream);
  void* dense = scratch.take(GPUVEC_MEMORY_DEVICE, static_cast<size_t>(joint.size * item));
  with_stored_dtype(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    cuda::cast<T, T>(with_dense_operand(joint, 0), static_cast<T*>(dense),
                     Operand<T>{reinterpret_cast<const T*>(src), T{}}, stream);
  });
  cuda::download(dense, in.dtype, joint.size, dst, stream);
}

}  // namespace

void transfer(const gpuvec_array& out, const gpuvec_array& in, gpuvec_stream stream) {
  if (out.memory == GPUVEC_MEMORY_DEVICE) {
    upload(out, in, stream);
  } else {
    download(out, in, stream);
  }
}

}  // namespace gpuvec

extern "C" gpuvec_status gpuvec_copy(const gpuvec_array* out, const gpuvec_array* in,
                                     const gpuvec_launch* launch) {
  using namespace gpuvec;  // NOLINT: this function only
  return guard([&] {
    check_launch(launch, false);
    const Named o{out, "out"}, i{in, "in"};
    check_array(o, false);
    check_array(i, true);
    check_same_shape(i, o);
    with_stored_dtype(out->dtype, [](auto) {});  // a known dtype (float16 too)
    with_stored_dtype(in->dtype, [](auto) {});
    if (!is_scalar(*in) && !convertible(out->dtype, in->dtype)) {
      throw_invalid_argument(
          std::string("cannot copy ") + dtype_name(in->dtype) + " to " + dtype_name(out->dtype) +
          ": float32, float64 and bool convert into each other, int64 into none");
    }
    if (launch->backend == GPUVEC_BACKEND_HOST) {
      const Named both[] = {o, i};
      place_of(launch->backend, both, 2);
    }
    if (element_count(*out) == 0) return;

    const gpuvec_stream stream = launch->stream;
    if (is_scalar(*in) || in->memory == out->memory) {
      copy_within(*out, *in, out->memory, stream);
    } else {
      transfer(*out, *in, stream);
    }
  });
}
