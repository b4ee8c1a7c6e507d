// Sorts on the host backend: each row's elements become keys in NumPy's
// order (gpuvec/sort_keys.hpp), which an LSD radix sort orders stably
// together with each element's position; the sorted values are then read
// from x at those positions, so that they keep their bits (-0.0, NaN
// payloads) as NumPy's sort keeps them. Rows run in parallel on the pool.
//
// The radix sort is compiled once per key width (4 instances), not per
// dtype: only the key making and the gather are per dtype.
#include <stdint.h>
#include <string.h>

#include <memory>
#include <utility>
#include <vector>

#include "../kit/scan_backends.hpp"
#include "gpuvec/sort_keys.hpp"
#include "parallel.hpp"

namespace gpuvec::host {
namespace {

// Below this, an insertion sort beats the radix sort's passes over 256 bins.
constexpr int64_t kInsertion = 48;
constexpr int64_t kParallelElements = int64_t{1} << 15;

// One thread's room for a row: keys and positions, twice (a pass reads one
// copy and writes the other).
template <class K>
struct Workspace {
  std::unique_ptr<K[]> keys;
  std::unique_ptr<int64_t[]> positions;
  explicit Workspace(int64_t n)
      : keys(new K[static_cast<size_t>(2 * n)]),
        positions(new int64_t[static_cast<size_t>(2 * n)]) {}
};

// Sorts keys[0, n) stably, moving positions along; the result is left in
// keys/positions (the buffers' first halves), the second halves are room.
template <class K>
void radix_sort(int64_t n, K* keys, int64_t* positions) {
  if (n <= kInsertion) {
    for (int64_t i = 1; i < n; ++i) {
      const K k = keys[i];
      const int64_t p = positions[i];
      int64_t j = i;
      for (; j > 0 && keys[j - 1] > k; --j) {  // strictly greater: stable
        keys[j] = keys[j - 1];
        positions[j] = positions[j - 1];
      }
      keys[j] = k;
      positions[j] = p;
    }
    return;
  }
  constexpr int kDigits = sizeof(K);
  // Every digit's counts in one read of the keys.
  int64_t counts[kDigits][256];
  memset(counts, 0, sizeof counts);
  for (int64_t i = 0; i < n; ++i) {
    for (int d = 0; d < kDigits; ++d) ++counts[d][(keys[i] >> (8 * d)) & 0xff];
  }
  K* from_keys = keys;
  int64_t* from_positions = positions;
  K* to_keys = keys + n;
  int64_t* to_positions = positions + n;
  for (int d = 0; d < kDigits; ++d) {
    const int shift = 8 * d;
    // A digit that every key shares orders nothing: the pass is skipped.
    if (counts[d][(from_keys[0] >> shift) & 0xff] == n) continue;
    int64_t place[256];
    int64_t total = 0;
    for (int b = 0; b < 256; ++b) {
      place[b] = total;
      total += counts[d][b];
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = place[(from_keys[i] >> shift) & 0xff]++;
      to_keys[at] = from_keys[i];
      to_positions[at] = from_positions[i];
    }
    std::swap(from_keys, to_keys);
    std::swap(from_positions, to_positions);
  }
  if (from_keys != keys) {
    memcpy(keys, from_keys, static_cast<size_t>(n) * sizeof(K));
    memcpy(positions, from_positions, static_cast<size_t>(n) * sizeof(int64_t));
  }
}

}  // namespace

template <class T>
void sort(int64_t rows, int64_t n, const T* x, T* values, int64_t* indices, gpuvec_stream) {
  using K = sort_key_t<T>;
  const bool parallel = rows > 1 && rows * n >= kParallelElements;
  std::vector<Workspace<K>> room;
  const int threads = workers(parallel);
  room.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) room.emplace_back(n);
  for_each(rows, parallel, [&](int64_t r, int t) {
    const T* in = x + r * n;
    K* keys = room[static_cast<size_t>(t)].keys.get();
    int64_t* positions = room[static_cast<size_t>(t)].positions.get();
    for (int64_t i = 0; i < n; ++i) {
      keys[i] = sort_key(in[i]);
      positions[i] = i;
    }
    radix_sort(n, keys, positions);
    if (values != nullptr) {
      T* v = values + r * n;
      for (int64_t i = 0; i < n; ++i) v[i] = in[positions[i]];
    }
    if (indices != nullptr) memcpy(indices + r * n, positions, static_cast<size_t>(n) * 8);
  });
}

#define GPUVEC_INSTANTIATE(T) \
  template void sort<T>(int64_t, int64_t, const T*, T*, int64_t*, gpuvec_stream);
GPUVEC_SCAN_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::host
