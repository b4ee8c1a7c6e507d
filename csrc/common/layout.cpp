// Layout simplification (see gpuvec/layout.hpp).
#include "gpuvec/layout.hpp"

#include <cstdlib>
#include <string>
#include <utility>

#include "../kit/error.hpp"

namespace gpuvec {

namespace {

template <int N>
void swap_dims(Layout<N>& L, int i, int j) {
  std::swap(L.shape[i], L.shape[j]);
  for (int k = 0; k < N; ++k) std::swap(L.strides[k][i], L.strides[k][j]);
}

// Throws for an ndim beyond the ABI's limit or a negative extent.
void check_shape(int ndim, const int64_t* shape) {
  if (ndim < 0 || ndim > GPUVEC_MAX_NDIM) {
    throw_invalid_argument("ndim must be between 0 and " + std::to_string(GPUVEC_MAX_NDIM) +
                           ", got " + std::to_string(ndim));
  }
  if (ndim > 0 && shape == nullptr) throw_invalid_argument("shape is a null pointer");
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] < 0)
      throw_invalid_argument("shape has a negative extent in dimension " + std::to_string(d));
  }
}

}  // namespace

template <int N>
Layout<N> simplify_layout(int ndim, const int64_t* shape, const int64_t* const (&strides)[N]) {
  check_shape(ndim, shape);
  for (int k = 0; k < N; ++k) {
    if (ndim > 0 && strides[k] == nullptr) throw_invalid_argument("strides is a null pointer");
  }
  Layout<N> L;
  for (int d = 0; d < ndim; ++d) L.size *= shape[d];
  if (L.size == 0) {
    L.size = 0;
    return L;
  }

  // Keep the dimensions that matter; flip those that every operand walks backwards.
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    bool all_backwards = true, any_backwards = false;
    for (int k = 0; k < N; ++k) {
      all_backwards = all_backwards && strides[k][d] <= 0;
      any_backwards = any_backwards || strides[k][d] < 0;
    }
    const bool flip = all_backwards && any_backwards;
    const int j = L.ndim++;
    L.shape[j] = shape[d];
    for (int k = 0; k < N; ++k) {
      L.strides[k][j] = flip ? -strides[k][d] : strides[k][d];
      if (flip) L.offset[k] += (shape[d] - 1) * strides[k][d];
    }
  }

  // Order by the first operand's stride, largest first (C order), with a
  // stable insertion sort: ndim is small.
  for (int i = 1; i < L.ndim; ++i) {
    for (int j = i; j > 0 && std::llabs(L.strides[0][j - 1]) < std::llabs(L.strides[0][j]); --j) {
      swap_dims(L, j - 1, j);
    }
  }

  // Merge dimension d into d + 1 where every operand steps evenly across both.
  int out = 0;
  for (int d = 1; d < L.ndim; ++d) {
    bool mergeable = true;
    for (int k = 0; k < N; ++k) {
      mergeable = mergeable && L.strides[k][out] == L.strides[k][d] * L.shape[d];
    }
    if (mergeable) {
      L.shape[out] *= L.shape[d];
      for (int k = 0; k < N; ++k) L.strides[k][out] = L.strides[k][d];
    } else {
      ++out;
      L.shape[out] = L.shape[d];
      for (int k = 0; k < N; ++k) L.strides[k][out] = L.strides[k][d];
    }
  }
  if (L.ndim > 0) L.ndim = out + 1;
  return L;
}

// Out and up to GPUVEC_MAX_MAP_INPUTS inputs (gpuvec_map; gpuvec's own ops take up to 3).
#define GPUVEC_INSTANTIATE(N) \
  template Layout<N> simplify_layout<N>(int, const int64_t*, const int64_t* const(&)[N]);
GPUVEC_INSTANTIATE(1)
GPUVEC_INSTANTIATE(2)
GPUVEC_INSTANTIATE(3)
GPUVEC_INSTANTIATE(4)
GPUVEC_INSTANTIATE(5)
GPUVEC_INSTANTIATE(6)
GPUVEC_INSTANTIATE(7)
GPUVEC_INSTANTIATE(8)
GPUVEC_INSTANTIATE(9)
#undef GPUVEC_INSTANTIATE
static_assert(GPUVEC_MAX_MAP_INPUTS == 8, "simplify_layout is instantiated for 1 + 8 operands");

Layout<1> ordered_layout(int ndim, const int64_t* shape, const int64_t* strides) {
  check_shape(ndim, shape);
  if (ndim > 0 && strides == nullptr) throw_invalid_argument("strides is a null pointer");
  Layout<1> L;
  for (int d = 0; d < ndim; ++d) L.size *= shape[d];
  if (L.size == 0) return L;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    const int last = L.ndim - 1;
    if (last >= 0 && L.strides[0][last] == strides[d] * shape[d]) {
      L.shape[last] *= shape[d];
      L.strides[0][last] = strides[d];
    } else {
      L.shape[L.ndim] = shape[d];
      L.strides[0][L.ndim] = strides[d];
      ++L.ndim;
    }
  }
  return L;
}

}  // namespace gpuvec
