// Sorts on the host backend: each row's elements become keys in NumPy's
// order (gpuvec/sort_keys.hpp), which an LSD radix sort orders stably.
//
// - argsort (indices wanted): the keys move with each element's position,
//   and the values are read from x at the sorted positions. Rows run in
//   parallel on the pool.
// - sort (values only): the keys move alone, half the bytes or less, and
//   each sorted key turns back into its value. The few keys that stand for
//   several values (0.0 and -0.0 share one, every NaN another) form runs at
//   known places; those runs are refilled from x in x's order, which is
//   what a stable sort gives, bits (-0.0, NaN payloads) included. Each pass
//   over a long row is cut into pieces for the pool's threads.
//
// The radix sorts are compiled once per key width, not per dtype: only the
// key making and the gather are per dtype.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <array>
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

// The digit of `key` at byte d.
template <class K>
int digit(K key, int d) {
  return static_cast<int>((key >> (8 * d)) & 0xff);
}

// Sorts keys[0, n) stably, keys alone, using room[0, n); the result is left
// in keys. A pass counts the digit in each piece of the row, then each
// piece moves its keys to where the counts of the pieces before it say:
// pieces run on the pool's threads, and the result does not depend on
// which thread ran which piece.
template <class K>
void radix_sort_keys(int64_t n, K* keys, K* room, bool parallel) {
  constexpr int kDigits = sizeof(K);
  const int64_t count =
      pieces(n, workers(parallel && n >= kParallelElements), kParallelElements / 4);
  const auto begin_of = [&](int64_t p) { return piece_begin(n, count, p); };
  // counts[p][b]: keys of piece p with digit b, then where piece p's first
  // key of digit b goes.
  std::vector<std::array<int64_t, 256>> counts(static_cast<size_t>(count));
  K* from = keys;
  K* to = room;
  for (int d = 0; d < kDigits; ++d) {
    const auto count_piece = [&](int64_t p) {
      auto& c = counts[static_cast<size_t>(p)];
      c.fill(0);
      for (int64_t i = begin_of(p); i < begin_of(p + 1); ++i) ++c[digit(from[i], d)];
    };
    for_each(count, count > 1, [&](int64_t p, int) { count_piece(p); });
    // A digit that every key shares orders nothing: the pass is skipped.
    int64_t first_digit_total = 0;
    for (int64_t p = 0; p < count; ++p) {
      first_digit_total += counts[static_cast<size_t>(p)][digit(from[0], d)];
    }
    if (first_digit_total == n) continue;
    int64_t total = 0;
    for (int b = 0; b < 256; ++b) {
      for (int64_t p = 0; p < count; ++p) {
        const int64_t c = counts[static_cast<size_t>(p)][b];
        counts[static_cast<size_t>(p)][b] = total;
        total += c;
      }
    }
    for_each(count, count > 1, [&](int64_t p, int) {
      auto& place = counts[static_cast<size_t>(p)];
      for (int64_t i = begin_of(p); i < begin_of(p + 1); ++i)
        to[place[digit(from[i], d)]++] = from[i];
    });
    std::swap(from, to);
  }
  if (from != keys) memcpy(keys, from, static_cast<size_t>(n) * sizeof(K));
}

// One row's sorted values, without positions: keys sorted alone (in the
// values' own memory), turned back into values; the runs of the keys that
// stand for several values refilled from x in its order. `parallel`: the
// passes run on the pool (false where the rows already do).
template <class T>
void sort_values(int64_t n, const T* x, T* values, bool parallel) {
  using K = sort_key_t<T>;
  K* keys = reinterpret_cast<K*>(values);  // the same size: a key per value
  std::unique_ptr<K[]> room(new K[static_cast<size_t>(n)]);
  for (int64_t i = 0; i < n; ++i) keys[i] = sort_key(x[i]);
  radix_sort_keys(n, keys, room.get(), parallel);
  if constexpr (is_same_v<T, float> || is_same_v<T, double>) {
    // Zeros and NaNs: each a run of one key, filled with x's own in x's order.
    const K zero_key = sort_key(T(0));
    const K nan_key = static_cast<K>(~K{0});
    K* const end = keys + n;
    K* const zeros = std::lower_bound(keys, end, zero_key);
    K* const nans = std::lower_bound(keys, end, nan_key);
    const bool refill = std::upper_bound(keys, end, zero_key) != zeros || nans != end;
    int64_t z = zeros - keys, q = nans - keys;
    for (int64_t i = 0; i < n; ++i) {  // keys[i] becomes values[i], in place
      const K k = keys[i];
      if (k != zero_key && k != nan_key) values[i] = sort_key_value<T>(k);
    }
    if (refill) {
      for (int64_t i = 0; i < n; ++i) {
        if (x[i] == T(0)) values[z++] = x[i];
        if (x[i] != x[i]) values[q++] = x[i];
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) values[i] = sort_key_value<T>(keys[i]);
  }
}

}  // namespace

template <class T>
void sort(int64_t rows, int64_t n, const T* x, T* values, int64_t* indices, gpuvec_stream) {
  using K = sort_key_t<T>;
  const bool parallel = rows > 1 && rows * n >= kParallelElements;
  if (indices == nullptr && n > kInsertion) {
    for_each(rows, parallel,
             [&](int64_t r, int) { sort_values(n, x + r * n, values + r * n, rows == 1); });
    return;
  }
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
