// The temporaries the boundary makes for a call: dtype conversions, outputs
// that overlap an input, device copies of staged operands.
#ifndef GPUVEC_COMMON_TEMPORARIES_HPP
#define GPUVEC_COMMON_TEMPORARIES_HPP

#include <stddef.h>

#include <memory>
#include <utility>
#include <vector>

#include "gpuvec/gpuvec.h"

namespace gpuvec {

// The memory of one call's temporaries, given back when the call ends: host
// memory, or device memory from the pool, given back ordered after the work
// queued on the call's stream, so that a kernel still reading it finishes
// first and the call need not wait for it.
class Scratch {
 public:
  explicit Scratch(gpuvec_stream stream) : stream_(stream) {}
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  void* take(gpuvec_memory memory, size_t bytes);

 private:
  gpuvec_stream stream_;
  std::vector<std::unique_ptr<char[]>> host_;
  std::vector<std::pair<void*, size_t>> device_;  // each block and its size
};

// out = in element by element, converted to out's dtype; in may broadcast or
// be a scalar. Both are in `memory` (host: the host backend's loop; device:
// the CUDA backend's kernel, queued on stream).
void copy_array(const gpuvec_array& out, const gpuvec_array& in, gpuvec_memory memory,
                gpuvec_stream stream);

// out = in across the bus (gpuvec_copy's path): host memory to device
// memory, or back, converted to out's dtype; in may broadcast. A copy to
// host memory has landed when this returns.
void transfer(const gpuvec_array& out, const gpuvec_array& in, gpuvec_stream stream);

// A new array of a's shape and `dtype` in `memory`, laid out densely in a's
// order (see dense_strides); with keep_broadcast, dimensions where a
// broadcasts stay broadcast and take no room.
gpuvec_array temporary_like(const gpuvec_array& a, gpuvec_dtype dtype, gpuvec_memory memory,
                            bool keep_broadcast, Scratch& scratch);

// a converted to `dtype`, in a temporary in a's memory: a's own elements
// only, so a broadcast input costs no more than its data.
gpuvec_array converted(const gpuvec_array& a, gpuvec_dtype dtype, Scratch& scratch,
                       gpuvec_stream stream);

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_TEMPORARIES_HPP
