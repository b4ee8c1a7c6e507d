// The CUDA kernels of scans, sorts and counts (gpuvec/scan.h), compiled by
// NVRTC at their first use (csrc/cuda/scan.cpp launches them), and the
// arithmetic that both backends share.
//
//   scans     three phases over tiles of kScanTile elements of each row: each
//             tile's total (scan_totals), a scan of a row's tile totals
//             (scan_carries), then each tile scanned in shared memory with its
//             carry (scan_tiles). A row of one tile needs only the last.
//   sorts     an LSD radix sort of sort_key()s (gpuvec/sort_keys.hpp) by
//             8-bit digits, each element's flat index moving with its key:
//             per pass, each block of kSortTile keys counts its digits
//             (radix_counts), a scan of those counts (digit-major) gives each
//             block's place for each digit, and radix_scatter moves the block's
//             elements there stably, its warps ranking equal digits with
//             __match_any_sync. Rows are then ordered by more passes over the
//             row of each index (stable, so each row stays sorted), and
//             sort_finish gathers the values from x by index: their bits are
//             x's own.
//   counts    atomic adds, into shared memory per block where the bins fit.
#ifndef GPUVEC_SCAN_KERNELS_HPP
#define GPUVEC_SCAN_KERNELS_HPP

#include "gpuvec/portable.hpp"
#include "gpuvec/sort_keys.hpp"

namespace gpuvec {

constexpr int kScanThreads = 256;
constexpr int kScanItems = 8;
constexpr int kScanTile = kScanThreads * kScanItems;
constexpr int kSortThreads = 256;    // 8 warps
constexpr int kSortWarpItems = 512;  // consecutive keys per warp: 16 chunks of 32
constexpr int kSortTile = (kSortThreads / 32) * kSortWarpItems;
constexpr int kSortDigits = 256;

// Integers wrap around (signed ones are added in their unsigned type, where
// overflow is defined); a bool accumulator is a logical or (and).
template <class T>
struct wrapping {
  using type = T;
};
template <>
struct wrapping<int8_t> {
  using type = uint32_t;
};
template <>
struct wrapping<int16_t> {
  using type = uint32_t;
};
template <>
struct wrapping<int32_t> {
  using type = uint32_t;
};
template <>
struct wrapping<int64_t> {
  using type = uint64_t;
};
template <>
struct wrapping<uint8_t> {
  using type = uint32_t;
};
template <>
struct wrapping<uint16_t> {
  using type = uint32_t;
};

// A if B, else C (std::conditional).
template <bool B, class A, class C>
struct choose {
  using type = A;
};
template <class A, class C>
struct choose<false, A, C> {
  using type = C;
};

// Op 0: +, op 1: *; identity() is the op's neutral element.
template <int Op, class T>
GPUVEC_HD T combine(T a, T b) {
  if constexpr (is_same_v<T, bool>) {
    return Op == 0 ? (a || b) : (a && b);
  } else {
    using W = typename wrapping<T>::type;
    return static_cast<T>(Op == 0 ? static_cast<W>(static_cast<W>(a) + static_cast<W>(b))
                                  : static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
  }
}
template <int Op, class T>
GPUVEC_HD T identity() {
  return static_cast<T>(Op == 0 ? 0 : 1);
}

// The bin of x among bins + 1 increasing edges, or -1: NumPy's histogram,
// whose bins are half open but for the last, which holds its right edge.
GPUVEC_HD int64_t histogram_bin(double x, const double* edges, int64_t bins) {
  if (!(x >= edges[0] && x <= edges[bins])) return -1;  // outside, or NaN
  int64_t lo = 0, hi = bins;                            // the last edge <= x is in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (edges[mid] <= x) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo == bins ? bins - 1 : lo;
}

// The insertion point of key in sorted[0, n): before equal keys, or after.
template <class T>
GPUVEC_HD int64_t insertion_point(const T* sorted, int64_t n, sort_key_t<T> key, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const sort_key_t<T> k = sort_key(sorted[mid]);
    if (right ? k <= key : k < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

#if defined(__CUDACC__)

// An inclusive scan of one value per thread of a block of kScanThreads
// (Hillis-Steele in shared memory); every thread must call it.
template <int Op, class T>
__device__ T block_scan(T value, T* room) {
  room[threadIdx.x] = value;
  __syncthreads();
  for (int step = 1; step < kScanThreads; step *= 2) {
    const T other = threadIdx.x >= step ? room[threadIdx.x - step] : identity<Op, T>();
    __syncthreads();
    if (threadIdx.x >= step) room[threadIdx.x] = combine<Op>(other, room[threadIdx.x]);
    __syncthreads();
  }
  return room[threadIdx.x];
}

// totals[b] = the op over tile (b % tiles) of row (b / tiles), rows of n.
template <class T, int Op>
__global__ void __launch_bounds__(kScanThreads)
    scan_totals(int64_t n, int64_t tiles, const T* __restrict__ x, T* __restrict__ totals) {
  __shared__ T room[kScanThreads];
  const int64_t row = blockIdx.x / tiles, tile = blockIdx.x % tiles;
  const int64_t begin = tile * kScanTile;
  const int64_t end = begin + kScanTile < n ? begin + kScanTile : n;
  T acc = identity<Op, T>();
  for (int64_t i = begin + threadIdx.x; i < end; i += kScanThreads) {
    acc = combine<Op>(acc, x[row * n + i]);
  }
  const T all = block_scan<Op>(acc, room);
  if (threadIdx.x == kScanThreads - 1) totals[blockIdx.x] = all;
}

// Each row's `tiles` totals become their exclusive scan: the carry into each
// tile. One block per row.
template <class T, int Op>
__global__ void __launch_bounds__(kScanThreads) scan_carries(int64_t tiles, T* totals) {
  __shared__ T room[kScanThreads];
  T* row = totals + static_cast<int64_t>(blockIdx.x) * tiles;
  T carry = identity<Op, T>();
  for (int64_t base = 0; base < tiles; base += kScanThreads) {
    const int64_t i = base + threadIdx.x;
    const T value = i < tiles ? row[i] : identity<Op, T>();
    block_scan<Op>(value, room);
    const T exclusive = threadIdx.x > 0 ? room[threadIdx.x - 1] : identity<Op, T>();
    if (i < tiles) row[i] = combine<Op>(carry, exclusive);
    carry = combine<Op>(carry, room[kScanThreads - 1]);
    __syncthreads();  // room is written again by the next chunk
  }
}

// out = the inclusive scan of each tile of each row, after its carry
// (carries null: one tile per row). out may be x.
template <class T, int Op>
__global__ void __launch_bounds__(kScanThreads)
    scan_tiles(int64_t n, int64_t tiles, const T* x, T* out, const T* __restrict__ carries) {
  __shared__ T tile_values[kScanTile];
  __shared__ T room[kScanThreads];
  const int64_t row = blockIdx.x / tiles, tile = blockIdx.x % tiles;
  const int64_t begin = tile * kScanTile;
  const int64_t count = n - begin < kScanTile ? n - begin : kScanTile;
  const T* in = x + row * n + begin;
  for (int i = threadIdx.x; i < kScanTile; i += kScanThreads) {
    tile_values[i] = i < count ? in[i] : identity<Op, T>();
  }
  __syncthreads();
  // Each thread scans its kScanItems consecutive elements...
  T* mine = tile_values + threadIdx.x * kScanItems;
  T acc = mine[0];
  for (int k = 1; k < kScanItems; ++k) acc = mine[k] = combine<Op>(acc, mine[k]);
  // ... then adds what comes before them: the carry and the earlier threads'.
  block_scan<Op>(acc, room);
  T before = threadIdx.x > 0 ? room[threadIdx.x - 1] : identity<Op, T>();
  if (carries != nullptr) before = combine<Op>(carries[blockIdx.x], before);
  for (int k = 0; k < kScanItems; ++k) mine[k] = combine<Op>(before, mine[k]);
  __syncthreads();
  T* to = out + row * n + begin;
  for (int i = threadIdx.x; i < count; i += kScanThreads) to[i] = tile_values[i];
}

// keys[i] = the sort key of x[i]; index[i] = i.
template <class T>
__global__ void sort_keys(int64_t total, const T* __restrict__ x, sort_key_t<T>* __restrict__ keys,
                          int64_t* __restrict__ index) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    keys[i] = sort_key(x[i]);
    index[i] = i;
  }
}

// The digit of element i in a pass: of its key (RowPass false), or of its
// row, index / n (RowPass true).
template <bool RowPass, class K>
__device__ __forceinline__ unsigned int digit_of(const K* keys, const int64_t* index, int64_t i,
                                                 int64_t n, int shift) {
  if constexpr (RowPass) {
    return static_cast<unsigned int>((static_cast<uint64_t>(index[i] / n) >> shift) & 0xff);
  } else {
    return static_cast<unsigned int>((keys[i] >> shift) & 0xff);
  }
}

// counts[d * gridDim.x + b] = how many elements of block b's tile have digit d.
template <bool RowPass, class K>
__global__ void __launch_bounds__(kSortThreads)
    radix_counts(int64_t total, const K* __restrict__ keys, const int64_t* __restrict__ index,
                 int64_t n, int shift, int64_t* __restrict__ counts) {
  __shared__ unsigned int digits[kSortDigits];
  for (int d = threadIdx.x; d < kSortDigits; d += kSortThreads) digits[d] = 0;
  __syncthreads();
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * kSortTile;
  const int64_t end = begin + kSortTile < total ? begin + kSortTile : total;
  for (int64_t i = begin + threadIdx.x; i < end; i += kSortThreads) {
    atomicAdd(&digits[digit_of<RowPass>(keys, index, i, n, shift)], 1u);
  }
  __syncthreads();
  for (int d = threadIdx.x; d < kSortDigits; d += kSortThreads) {
    counts[static_cast<int64_t>(d) * gridDim.x + blockIdx.x] = digits[d];
  }
}

// Moves block b's elements to their places: `ends` is the inclusive scan of
// radix_counts' counts, so the block's first element of digit d goes to
// ends[d * blocks + b] - (the block's count of d). Within the block, each
// warp takes kSortWarpItems consecutive elements in chunks of 32; elements
// of one digit keep their order. keys_out is written in key passes only.
template <bool RowPass, class K>
__global__ void __launch_bounds__(kSortThreads)
    radix_scatter(int64_t total, const K* __restrict__ keys, const int64_t* __restrict__ index,
                  int64_t n, int shift, const int64_t* __restrict__ ends, K* __restrict__ keys_out,
                  int64_t* __restrict__ index_out) {
  constexpr int kWarps = kSortThreads / 32;
  __shared__ unsigned int warp_counts[kWarps][kSortDigits];
  __shared__ int64_t place[kWarps][kSortDigits];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned int lanes_below = (1u << lane) - 1u;
  for (int d = threadIdx.x; d < kWarps * kSortDigits; d += kSortThreads) {
    warp_counts[d / kSortDigits][d % kSortDigits] = 0;
  }
  __syncthreads();
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kSortTile + warp * kSortWarpItems;
  // Each warp counts its elements' digits: per chunk, the lowest lane of each
  // group of equal digits adds the group's size.
  for (int c = 0; c < kSortWarpItems; c += 32) {
    const int64_t i = first + c + lane;
    const unsigned int digit = i < total ? digit_of<RowPass>(keys, index, i, n, shift) : 256u;
    const unsigned int peers = __match_any_sync(0xffffffffu, digit);
    if (i < total && (peers & lanes_below) == 0) warp_counts[warp][digit] += __popc(peers);
    __syncwarp();
  }
  __syncthreads();
  // Each digit's place for each warp: after the earlier blocks' and warps'.
  for (int d = threadIdx.x; d < kSortDigits; d += kSortThreads) {
    int64_t block_count = 0;
    for (int w = 0; w < kWarps; ++w) block_count += warp_counts[w][d];
    int64_t at = ends[static_cast<int64_t>(d) * gridDim.x + blockIdx.x] - block_count;
    for (int w = 0; w < kWarps; ++w) {
      place[w][d] = at;
      at += warp_counts[w][d];
    }
  }
  __syncthreads();
  for (int c = 0; c < kSortWarpItems; c += 32) {
    const int64_t i = first + c + lane;
    const bool valid = i < total;
    const unsigned int digit = valid ? digit_of<RowPass>(keys, index, i, n, shift) : 256u;
    const unsigned int peers = __match_any_sync(0xffffffffu, digit);
    if (valid) {
      const int64_t to = place[warp][digit] + __popc(peers & lanes_below);
      if constexpr (!RowPass) keys_out[to] = keys[i];
      index_out[to] = index[i];
    }
    __syncwarp();
    if (valid && (peers & lanes_below) == 0) place[warp][digit] += __popc(peers);
    __syncwarp();
  }
}

// values[i] = x[index[i]]; indices[i] = index[i]'s position in its row of n.
template <class T>
__global__ void sort_finish(int64_t total, int64_t n, const T* __restrict__ x,
                            const int64_t* __restrict__ index, T* __restrict__ values,
                            int64_t* __restrict__ indices) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const int64_t from = index[i];
    if (values != nullptr) values[i] = x[from];
    if (indices != nullptr) indices[i] = from % n;
  }
}

// Counts (unsigned long long, int64's bits) or sums of weights (double) of
// each element's bin: bin_of[i] (Edges false) or histogram_bin(x[i]). With
// `shared` the block first adds into shared memory (bins entries of 8 bytes).
template <bool Edges, bool Weighted>
__global__ void histogram_counts(int64_t n, const int64_t* __restrict__ bin_of,
                                 const double* __restrict__ x, const double* __restrict__ edges,
                                 const double* __restrict__ weights, int64_t bins, void* counts,
                                 int shared) {
  using C = typename choose<Weighted, double, unsigned long long>::type;
  extern __shared__ unsigned long long shared_room[];
  C* local = reinterpret_cast<C*>(shared_room);
  C* global = static_cast<C*>(counts);
  if (shared) {
    for (int64_t b = threadIdx.x; b < bins; b += blockDim.x) local[b] = C(0);
    __syncthreads();
  }
  C* into = shared ? local : global;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t b;
    if constexpr (Edges) {
      b = histogram_bin(x[i], edges, bins);
    } else {
      b = bin_of[i];
    }
    if (b < 0 || b >= bins) continue;
    if constexpr (Weighted) {
      atomicAdd(into + b, weights[i]);
    } else {
      atomicAdd(into + b, 1ull);
    }
  }
  if (shared) {
    __syncthreads();
    for (int64_t b = threadIdx.x; b < bins; b += blockDim.x) {
      if (local[b] != C(0)) atomicAdd(global + b, local[b]);
    }
  }
}

// out[i] = the insertion point of v[i] in sorted[0, n).
template <class T>
__global__ void searchsorted_points(int64_t n, const T* __restrict__ sorted, int64_t m,
                                    const T* __restrict__ v, int right,
                                    int64_t* __restrict__ out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += step) {
    out[i] = insertion_point(sorted, n, sort_key(v[i]), right != 0);
  }
}

// starts[i] = whether sorted[i] begins a run of equal keys.
template <class T>
__global__ void run_starts(int64_t n, const T* __restrict__ sorted, uint8_t* __restrict__ starts) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    starts[i] = i == 0 || sort_key(sorted[i]) != sort_key(sorted[i - 1]);
  }
}

#endif  // __CUDACC__

}  // namespace gpuvec

#endif  // GPUVEC_SCAN_KERNELS_HPP
