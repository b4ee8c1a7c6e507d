// Reductions over axes (gpuvec_reduce in gpuvec/gpuvec.h) on the CUDA backend.
//
// The launch shape follows the m rows of n elements and how they lie:
//   - up to 64 rows side by side in memory, each a run of elements at one
//     stride (a column reduction of a tall, narrow matrix, such as the mean
//     over axis 0 of a C-ordered 2^22 x 8 matrix): a block reads tiles of
//     neighbouring elements, all m rows at blockDim.x / m consecutive j, and
//     the tiles are spread over the whole grid, so that a few long columns
//     still fill the GPU; the last block to finish combines each row's
//     states;
//   - more rows side by side (summing a wide matrix over axis 0): a block
//     takes a tile of 32 rows, the 32 lanes of a warp read 32 neighbouring
//     rows at the same j (one coalesced load), the block's warps take
//     different j, and shared memory combines them;
//   - many rows, or short ones: a group of G lanes of one warp per row, G a
//     power of two up to 32 chosen from n, combined with warp shuffles;
//   - few long rows: several blocks per row, each combining its threads with
//     warp shuffles and shared memory.
// Where several blocks share a row, each leaves its state in scratch memory
// and either the grid's last block (one launch) or a second kernel (a warp
// per row) combines them. Every tree depends only on m, n, the layout, the
// block size and the SM count, so results are deterministic.
#include <stdint.h>

#include <algorithm>
#include <type_traits>

#include "../kit/backends.hpp"
#include "../kit/dispatch.hpp"
#include "block_reduce.cuh"
#include "check.cuh"
#include "gpuvec/reduce_ops.hpp"
#include "launch.cuh"
#include "scratch.hpp"

namespace gpuvec::cuda {
namespace {

using ops::reduce::add_values;

// Every kernel here is compiled with __launch_bounds__ for the largest block
// a caller may ask for (threads_per_block up to 1024): the compiler then keeps
// each thread within the 64 registers such a block leaves it, rather than
// letting the launch fail for want of registers.

// Offset of element j of a row.
__device__ __forceinline__ int64_t element_offset(const Layout<1>& row, int64_t j) {
  if (row.ndim == 1) return j * row.strides[0][0];
  int64_t off[1];
  row.offsets(j, off);
  return off[0];
}

// The state of elements first, first + step, ... of a row, combined in that
// order. Loads go out kUnroll at a time: one load in flight per thread would
// leave most of the memory bandwidth unused.
constexpr int kUnroll = 4;

// accumulate() for a contiguous row that starts on a 16-byte boundary: the
// thread takes packs first, first + step, ... of V elements each, then its
// share of the last n % V elements. Four times fewer loads for the same bytes.
template <class Op, class T>
__device__ __forceinline__ typename Op::Acc accumulate_packs(const Op& op, int64_t n, const T* x,
                                                             int64_t first, int64_t step) {
  constexpr int V = 16 / sizeof(T);
  const auto* packs = reinterpret_cast<const Lanes<T, V>*>(x);
  const int64_t count = n / V;
  typename Op::Acc acc = op.identity();
  int64_t p = first;
  for (; p + (kUnroll - 1) * step < count; p += kUnroll * step) {
    Lanes<T, V> v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = packs[p + u * step];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc = add_values(op, acc, v[u].v, (p + u * step) * V, 1);
  }
  for (; p < count; p += step) {
    const Lanes<T, V> v = packs[p];
    acc = add_values(op, acc, v.v, p * V, 1);
  }
  for (int64_t j = count * V + first; j < n; j += step) acc = op.combine(acc, op.term(x[j], j));
  return acc;
}

// accumulate() for a row of n elements at one stride, U loads at a time.
template <int U, class Op, class T>
__device__ __forceinline__ typename Op::Acc accumulate_strided(const Op& op, int64_t n,
                                                               int64_t stride, const T* x,
                                                               int64_t first, int64_t step) {
  typename Op::Acc acc = op.identity();
  int64_t j = first;
  for (; j + (U - 1) * step < n; j += U * step) {
    T v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = x[(j + u * step) * stride];
    acc = add_values(op, acc, v, j, step);
  }
  for (; j < n; j += step) acc = op.combine(acc, op.term(x[j * stride], j));
  return acc;
}

template <class Op, class T>
__device__ __forceinline__ typename Op::Acc accumulate(const Op& op, const Layout<1>& row,
                                                       const T* x, int64_t first, int64_t step) {
  if (row.ndim == 1 && row.strides[0][0] == 1 && reinterpret_cast<uintptr_t>(x) % 16 == 0) {
    return accumulate_packs(op, row.size, x, first, step);
  }
  if (row.ndim <= 1) {
    return accumulate_strided<kUnroll>(op, row.size, row.ndim == 1 ? row.strides[0][0] : 0, x,
                                       first, step);
  }
  typename Op::Acc acc = op.identity();
  int64_t j = first;
  for (; j + (kUnroll - 1) * step < row.size; j += kUnroll * step) {
    T v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = x[element_offset(row, j + u * step)];
    acc = add_values(op, acc, v, j, step);
  }
  for (; j < row.size; j += step) acc = op.combine(acc, op.term(x[element_offset(row, j)], j));
  return acc;
}

// A group of `group` lanes per row; a warp holds 32 / group rows.
template <class Op, class T, class Out>
__global__ void __launch_bounds__(GPUVEC_MAX_THREADS_PER_BLOCK)
    reduce_groups(const Layout<2> rows, const Layout<1> row, const Op op, const T* __restrict__ x,
                  Out* __restrict__ out, int group) {
  const int lane = threadIdx.x % kWarp;
  const int per_warp = kWarp / group;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp;
  // `first` is the same for the whole warp, so all its lanes shuffle together.
  for (int64_t first = warp * per_warp; first < rows.size; first += warps * per_warp) {
    const int64_t r = first + lane / group;
    const bool valid = r < rows.size;
    int64_t off[2] = {0, 0};
    auto acc = op.identity();
    if (valid) {
      rows.offsets(r, off);
      acc = accumulate(op, row, x + off[1], lane % group, group);
    }
    acc = group_total(op, acc, group);
    if (valid && lane % group == 0) out[off[0]] = op.template finish<Out>(acc, row.size);
  }
}

// Tiles of 32 side-by-side rows: lane = row of the tile, warp = slot of j.
// Blocks with different blockIdx.y take different j of the same tile and
// leave their states in partial[r * gridDim.y + blockIdx.y].
template <class Op, class T, class Out, class A>
__global__ void __launch_bounds__(GPUVEC_MAX_THREADS_PER_BLOCK)
    reduce_tiles(const Layout<2> rows, const Layout<1> row, const Op op, const T* __restrict__ x,
                 Out* __restrict__ out, A* partial) {
  __shared__ A states[GPUVEC_MAX_THREADS_PER_BLOCK];
  const int lane = threadIdx.x % kWarp;
  const int slot = threadIdx.x / kWarp;
  const int slots = blockDim.x / kWarp;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kWarp; first < rows.size;
       first += static_cast<int64_t>(gridDim.x) * kWarp) {
    const int64_t r = first + lane;
    const bool valid = r < rows.size;
    int64_t off[2] = {0, 0};
    A acc = op.identity();
    if (valid) {
      rows.offsets(r, off);
      acc = accumulate(op, row, x + off[1], static_cast<int64_t>(blockIdx.y) * slots + slot,
                       static_cast<int64_t>(slots) * gridDim.y);
    }
    states[threadIdx.x] = acc;
    __syncthreads();
    if (slot == 0) {
      for (int k = 1; k < slots; ++k) acc = op.combine(acc, states[k * kWarp + lane]);
      if (valid) {
        if (gridDim.y == 1) {
          out[off[0]] = op.template finish<Out>(acc, row.size);
        } else {
          partial[r * gridDim.y + blockIdx.y] = acc;
        }
      }
    }
    __syncthreads();
  }
}

// Up to kMaxColumns side-by-side rows, each n elements at one stride: see
// reduce_columns.
constexpr int kMaxColumns = 64;
// Loads in flight per thread there: one element each, so more than kUnroll.
constexpr int kColumnUnroll = 8;

// Combines the states that the threads of a block hold for m rows, thread t
// holding one of row t % m, into thread r < m: each row's `count` states,
// those of threads r, r + m, ..., pairwise in a fixed order. Every thread of
// the block must take part.
template <class Op, class A>
__device__ __forceinline__ A combine_columns(const Op& op, A v, A* states, int m, int count) {
  const int t = threadIdx.x, k = threadIdx.x / m;
  states[t] = v;
  __syncthreads();
  for (int width = count; width > 1;) {
    const int half = (width + 1) / 2;
    // States k and k + half of each row; those read are not written this round.
    if (k < width - half) states[t] = op.combine(states[t], states[t + half * m]);
    __syncthreads();
    width = half;
  }
  v = states[t];
  __syncthreads();  // states may be used again at once
  return v;
}

// m <= kMaxColumns rows side by side (x's row stride 1), each of n elements at
// a stride s: a tall, narrow matrix reduced over axis 0. Row r's element j
// is x[r + j * s]. Thread t takes row r = t % m at j = t / m of each tile of
// J = blockDim.x / m consecutive j, so one load of the whole block reads the
// J * m elements of a tile: neighbours in memory when s == m. Tile i goes to
// block i % gridDim.x and each thread keeps kColumnUnroll tiles' loads in
// flight, so the long dimension spreads over the whole GPU. Each block
// combines each row's J states in shared memory; a grid of several blocks
// leaves them in partial[blockIdx.x * m + r], and the last block to finish
// combines each row's gridDim.x states in a fixed order and writes the row.
template <class Op, class T, class Out, class A>
__global__ void __launch_bounds__(GPUVEC_MAX_THREADS_PER_BLOCK)
    reduce_columns(const Layout<2> rows, const Layout<1> row, const Op op, const T* __restrict__ x,
                   Out* __restrict__ out, A* partial, unsigned int* ticket) {
  __shared__ A states[GPUVEC_MAX_THREADS_PER_BLOCK];
  const int m = static_cast<int>(rows.size);
  const int per_tile = static_cast<int>(blockDim.x) / m;
  const int r = threadIdx.x % m, k = threadIdx.x / m;
  A acc = op.identity();
  if (k < per_tile) {  // the blockDim.x % m threads past the last whole tile stay idle
    acc = accumulate_strided<kColumnUnroll>(op, row.size, row.strides[0][0], x + r,
                                            static_cast<int64_t>(blockIdx.x) * per_tile + k,
                                            static_cast<int64_t>(gridDim.x) * per_tile);
  }
  acc = combine_columns(op, acc, states, m, per_tile);
  const bool holder = threadIdx.x < m;
  Out* const result = out + r * rows.strides[0][0];
  if (gridDim.x == 1) {
    if (holder) *result = op.template finish<Out>(acc, row.size);
    return;
  }
  if (holder) partial[static_cast<int64_t>(blockIdx.x) * m + r] = acc;
  if (!arrive_last(ticket, holder)) return;
  A total = op.identity();
  if (k < per_tile) {
    for (unsigned b = k; b < gridDim.x; b += per_tile) {
      total = op.combine(total, load_cg(partial + static_cast<int64_t>(b) * m + r));
    }
  }
  total = combine_columns(op, total, states, m, per_tile);
  if (holder) *result = op.template finish<Out>(total, row.size);
  if (threadIdx.x == 0) *ticket = 0;
}

// gridDim.x blocks per row: block b takes elements b * blockDim.x + t,
// stepping over the whole grid row; rows are spread over blockIdx.y. With a
// ticket (one row only: a norm or sum of a whole array), the grid's last
// block finishes the row.
template <class Op, class T, class Out, class A>
__global__ void __launch_bounds__(GPUVEC_MAX_THREADS_PER_BLOCK)
    reduce_blocks(const Layout<2> rows, const Layout<1> row, const Op op, const T* __restrict__ x,
                  Out* __restrict__ out, A* partial, unsigned int* ticket) {
  for (int64_t r = blockIdx.y; r < rows.size; r += gridDim.y) {
    int64_t off[2];
    rows.offsets(r, off);
    A acc = accumulate(op, row, x + off[1],
                       static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                       static_cast<int64_t>(gridDim.x) * blockDim.x);
    acc = block_total(op, acc);
    if (ticket != nullptr) {
      Out* const result = out + off[0];
      finish_grid(op, acc, partial, ticket,
                  [&](const A& total) { *result = op.template finish<Out>(total, row.size); });
      continue;
    }
    if (threadIdx.x == 0) {
      if (gridDim.x == 1) {
        out[off[0]] = op.template finish<Out>(acc, row.size);
      } else {
        partial[r * gridDim.x + blockIdx.x] = acc;
      }
    }
  }
}

// The second pass where blocks shared rows: a warp per row combines its
// `parts` states and writes the output.
template <class Op, class Out, class A>
__global__ void __launch_bounds__(GPUVEC_MAX_THREADS_PER_BLOCK)
    reduce_partials(const Layout<2> rows, int64_t n, const Op op, const A* partial, int parts,
                    Out* __restrict__ out) {
  const int lane = threadIdx.x % kWarp;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp;
  for (int64_t r = warp; r < rows.size; r += warps) {
    A acc = op.identity();
    for (int k = lane; k < parts; k += kWarp) acc = op.combine(acc, partial[r * parts + k]);
    acc = group_total(op, acc, kWarp);
    if (lane == 0) {
      int64_t off[2];
      rows.offsets(r, off);
      out[off[0]] = op.template finish<Out>(acc, n);
    }
  }
}

// Stream-ordered scratch memory, freed in stream order when it goes out of
// scope: after the kernels queued before, reused by the next call.
class Scratch {
 public:
  Scratch(size_t bytes, cudaStream_t stream) : stream_(stream) {
    GPUVEC_CUDA_CHECK(cudaMallocAsync(&ptr_, bytes, stream));
  }
  ~Scratch() { cudaFreeAsync(ptr_, stream_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class P>
  P* as() const {
    return static_cast<P*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// True where reduce_columns takes the rows: few side-by-side rows, each at
// one stride, and at least one tile of them per block.
bool columns_fit(const Layout<2>& rows, const Layout<1>& row, int threads) {
  return rows.ndim == 1 && rows.strides[1][0] == 1 && row.ndim == 1 && row.size > 1 &&
         rows.size <= kMaxColumns && rows.size <= threads;
}

template <class Op, class T, class Out>
void run_columns(const Layout<2>& rows, const Layout<1>& row, const Op& op, const T* x, Out* out,
                 int threads, cudaStream_t s) {
  using A = typename Op::Acc;
  const int64_t m = rows.size, n = row.size;
  const int64_t tiles = ceil_div(n, threads / m);
  // One wave of blocks that every SM can hold at once whatever the kernel's
  // registers: __launch_bounds__(1024) leaves a thread at most 64, so an SM
  // holds 1024 threads, each with kColumnUnroll loads in flight. Fewer where
  // a thread would get fewer than 4 * kColumnUnroll tiles.
  const int64_t wave = multiprocessor_count() * std::max(1, 1024 / threads);
  int64_t blocks = clamp(ceil_div(tiles, 4 * kColumnUnroll), 1, wave);
  if (blocks == 1) {
    reduce_columns<<<1, threads, 0, s>>>(rows, row, op, x, out, static_cast<A*>(nullptr), nullptr);
    check_launch("reduce_columns");
    return;
  }
  const ReductionScratch scratch = reduction_scratch(s);
  // Where three quarters of the blocks' states fit in the stream's scratch,
  // a slightly smaller grid saves an allocation: with kColumnUnroll loads in
  // flight per thread, the grid still keeps the memory busy.
  const int64_t fit = static_cast<int64_t>(kReductionScratchBytes / (m * sizeof(A)));
  if (blocks > fit && 4 * fit >= 3 * blocks) blocks = fit;
  if (blocks <= fit) {
    reduce_columns<<<static_cast<unsigned>(blocks), threads, 0, s>>>(
        rows, row, op, x, out, reinterpret_cast<A*>(scratch.partials), scratch.ticket);
    check_launch("reduce_columns");
    return;
  }
  const Scratch partial(static_cast<size_t>(blocks * m) * sizeof(A), s);
  reduce_columns<<<static_cast<unsigned>(blocks), threads, 0, s>>>(
      rows, row, op, x, out, partial.as<A>(), scratch.ticket);
  check_launch("reduce_columns");
}

// Reduces the rows of x into out (operand 0 of `rows`) with op.
template <class Op, class T, class Out>
void run(const Layout<2>& rows, const Layout<1>& row, const Op& op, const T* x, Out* out,
         int threads_per_block, cudaStream_t s) {
  using A = typename Op::Acc;
  const int threads = block_size(threads_per_block);
  if (columns_fit(rows, row, threads)) {
    run_columns(rows, row, op, x, out, threads, s);
    return;
  }
  const int64_t m = rows.size, n = row.size;
  const int64_t sms = multiprocessor_count();
  // About what the GPU runs at once: more threads or blocks than this gain
  // little, fewer leave it idle.
  const int64_t enough_threads = sms * 1024, enough_blocks = sms * 8;
  // Each thread should take at least this many elements of a split row.
  constexpr int64_t kPerThread = 8;
  int64_t parts = 1;
  dim3 grid;
  enum { kGroups, kTiles, kBlocks } shape;
  const bool side_by_side = rows.ndim > 0 && (rows.strides[1][rows.ndim - 1] == 1 ||
                                              rows.strides[1][rows.ndim - 1] == -1);
  int group = 1;
  while (group < kWarp && group * 4 < n) group *= 2;
  // Tiles leave lanes idle below 32 rows: under 16, other shapes do better.
  // (Up to kMaxColumns rows at one stride went to run_columns above.)
  if (side_by_side && n > 1 && m >= kWarp / 2) {
    shape = kTiles;
    const int64_t slots = threads / kWarp;
    grid.x = static_cast<unsigned>(clamp(ceil_div(m, kWarp), 1, sms * 16));
    parts = clamp(ceil_div(enough_blocks, grid.x), 1, ceil_div(n, slots * kPerThread));
    parts = clamp(parts, 1, 65535);
    grid.y = static_cast<unsigned>(parts);
  } else if (n <= 1024 || m * group >= enough_threads) {
    shape = kGroups;
    const int64_t warps = ceil_div(m, kWarp / group);
    grid.x = static_cast<unsigned>(grid_size(warps * kWarp, threads, 16));
  } else {
    shape = kBlocks;
    parts = clamp(ceil_div(enough_blocks, m), 1, ceil_div(n, threads * kPerThread));
    grid.x = static_cast<unsigned>(parts);
    grid.y = static_cast<unsigned>(clamp(m, 1, 65535));
  }
  if (shape == kGroups) {
    reduce_groups<<<grid, threads, 0, s>>>(rows, row, op, x, out, group);
    check_launch("reduce_groups");
    return;
  }
  if (parts == 1) {
    if (shape == kTiles) {
      reduce_tiles<<<grid, threads, 0, s>>>(rows, row, op, x, out, static_cast<A*>(nullptr));
    } else {
      reduce_blocks<<<grid, threads, 0, s>>>(rows, row, op, x, out, static_cast<A*>(nullptr),
                                             nullptr);
    }
    check_launch(shape == kTiles ? "reduce_tiles" : "reduce_blocks");
    return;
  }
  if (shape == kBlocks && m == 1 && parts * sizeof(A) <= kReductionScratchBytes) {
    const ReductionScratch scratch = reduction_scratch(s);
    reduce_blocks<<<grid, threads, 0, s>>>(rows, row, op, x, out,
                                           reinterpret_cast<A*>(scratch.partials), scratch.ticket);
    check_launch("reduce_blocks");
    return;
  }
  const Scratch partial(static_cast<size_t>(m * parts) * sizeof(A), s);
  if (shape == kTiles) {
    reduce_tiles<<<grid, threads, 0, s>>>(rows, row, op, x, out, partial.as<A>());
  } else {
    reduce_blocks<<<grid, threads, 0, s>>>(rows, row, op, x, out, partial.as<A>(), nullptr);
  }
  check_launch(shape == kTiles ? "reduce_tiles" : "reduce_blocks");
  const int blocks = grid_size(m * kWarp, threads, 16);
  reduce_partials<<<blocks, threads, 0, s>>>(rows, n, op, partial.as<A>(), static_cast<int>(parts),
                                             out);
  check_launch("reduce_partials");
}

}  // namespace

template <class T>
void reduce(gpuvec_reduce_op op, const Layout<2>& rows, const Layout<1>& row, const T* x,
            void* out, double ddof, int threads_per_block, gpuvec_stream stream) {
  const cudaStream_t s = as_cuda_stream(stream);
  visit_reduce_op<T>(op, ddof, [&](auto f, auto out_type) {
    using Out = decltype(out_type);
    if constexpr (std::is_same_v<decltype(f), ops::reduce::Deviations>) {
      run(rows, row, f.variance(), x, static_cast<Out*>(out), threads_per_block, s);
    } else {
      run(rows, row, f, x, static_cast<Out*>(out), threads_per_block, s);
    }
  });
}

template void reduce<float>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const float*,
                            void*, double, int, gpuvec_stream);
template void reduce<double>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const double*,
                             void*, double, int, gpuvec_stream);
// Bool x: any, all and count_nonzero alone (visit_reduce_op).
template void reduce<bool>(gpuvec_reduce_op, const Layout<2>&, const Layout<1>&, const bool*,
                           void*, double, int, gpuvec_stream);

}  // namespace gpuvec::cuda
