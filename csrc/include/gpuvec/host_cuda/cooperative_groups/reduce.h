// <cooperative_groups/reduce.h> in a kernel compiled for the host emulation:
// cooperative_groups::reduce over a tile, with the operators CUDA names.
//
// The tile's values are combined by a butterfly of shfl_xor (each thread
// ends with the result). For integers and min/max the result is exact, as on
// a GPU; for floating-point sums the order of the additions may differ from
// the GPU's, and so may the last bits.
#pragma once
#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {  // the smaller
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // the larger
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned int N, class T, class Op>
inline T reduce(const thread_block_tile<N>& tile, T value, Op op, GPUVEC_EMU_SITE) {
  for (unsigned int offset = N / 2; offset > 0; offset /= 2)
    value = op(value, tile.shfl_xor(value, offset, line, file));
  return value;
}

}  // namespace cooperative_groups
