// Boolean masks on the host backend: one sequential loop each. A selection
// is bound by memory, and its k-th output depends on every mask byte before
// it, so threads would first need a prefix sum of the mask (as the CUDA
// backend does); one pass in order is already as fast as the memory allows.
#include "../kit/select_backends.hpp"

namespace gpuvec::host {

int64_t count_true(int64_t n, const uint8_t* mask, gpuvec_stream) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mask[i] != 0;
  return count;
}

template <class Bits>
void compress(int64_t n, const Bits* x, const uint8_t* mask, Bits* out, int, gpuvec_stream) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (mask[i]) out[k++] = x[i];
  }
}

template <class Bits>
void expand(int64_t n, Bits* x, const uint8_t* mask, const Bits* values, bool broadcast, int,
            gpuvec_stream) {
  if (broadcast) {
    const Bits value = values[0];
    for (int64_t i = 0; i < n; ++i) {
      if (mask[i]) x[i] = value;
    }
    return;
  }
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (mask[i]) x[i] = values[k++];
  }
}

#define GPUVEC_INSTANTIATE(Bits)                                                                 \
  template void compress<Bits>(int64_t, const Bits*, const uint8_t*, Bits*, int, gpuvec_stream); \
  template void expand<Bits>(int64_t, Bits*, const uint8_t*, const Bits*, bool, int,             \
                             gpuvec_stream);
GPUVEC_SELECT_BITS(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::host
