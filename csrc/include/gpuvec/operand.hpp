// An elementwise op's input as the kernels read it: an array, or one value
// that stands for every element (a Python scalar), which needs no memory.
// Installed, and compiled by NVRTC too: see gpuvec/portable.hpp.
#ifndef GPUVEC_OPERAND_HPP
#define GPUVEC_OPERAND_HPP

#include "gpuvec/portable.hpp"

namespace gpuvec {

// V consecutive elements, moved by one aligned load or store (16 bytes when
// V * sizeof(T) == 16).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// The elements in a pack: the widest operand moves 16 bytes at a time (a
// bool result of float inputs is stored 4 bytes at a time).
GPUVEC_HD constexpr int pack_width(size_t largest_itemsize) {
  return largest_itemsize >= 16 ? 1 : static_cast<int>(16 / largest_itemsize);
}
template <class... T>
GPUVEC_HD constexpr size_t largest_size() {
  size_t largest = 1;
  ((largest = sizeof(T) > largest ? sizeof(T) : largest), ...);
  return largest;
}
// The pack width of a kernel over operands of these types.
template <class... T>
constexpr int kPackWidth = pack_width(largest_size<T...>());

// Passed by value, as a kernel parameter. p is null for a scalar: the test is
// the same for every element of a launch, so no warp diverges on it and the
// host compiler can hoist it out of (unswitch) a contiguous loop. A scalar
// thus runs the kernels' contiguous path like an array, without a buffer
// being filled with copies of it first.
//
// The elements are stored as S and read as T: an input of another float
// dtype than the one the op computes in (`gv.add(a32, b32, dtype=float64)`)
// is converted as each element is loaded, in the same pass, rather than into
// a temporary first. A scalar's value is kept in T, so it is never rounded to
// the storage type.
template <class T, class S = T>
struct Operand {
  const S* p;  // element (0, ..., 0), or null: every element is `value`
  T value;

  GPUVEC_HD T at(int64_t offset) const { return p ? static_cast<T>(p[offset]) : value; }

  // Pack i of a contiguous array whose p is aligned to a pack, or `value` in
  // every lane.
  template <int V>
  GPUVEC_HD Pack<T, V> pack(int64_t i) const {
    if (p) return converted(reinterpret_cast<const Pack<S, V>*>(p)[i]);
    return repeated<V>(value);
  }

  // The V elements from `offset` on, stepping by `step`: 1 (a run of
  // consecutive elements, aligned to a pack) or 0 (one element repeated, as
  // along a broadcast dimension).
  template <int V>
  GPUVEC_HD Pack<T, V> pack_at(int64_t offset, int64_t step) const {
    if (p && step != 0) return converted(*reinterpret_cast<const Pack<S, V>*>(p + offset));
    return repeated<V>(at(offset));
  }

 private:
  template <int V>
  GPUVEC_HD static Pack<T, V> converted(const Pack<S, V> stored) {
    if constexpr (is_same_v<S, T>) {
      return stored;
    } else {
      Pack<T, V> r;
      for (int j = 0; j < V; ++j) r.v[j] = static_cast<T>(stored.v[j]);
      return r;
    }
  }
  template <int V>
  GPUVEC_HD static Pack<T, V> repeated(T v) {
    Pack<T, V> r;
    for (int j = 0; j < V; ++j) r.v[j] = v;
    return r;
  }
};

}  // namespace gpuvec

#endif  // GPUVEC_OPERAND_HPP
