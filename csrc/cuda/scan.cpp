// Scans, sorts and counts on the CUDA backend: the launches of the kernels of
// gpuvec/scan_kernels.hpp (which says how each works), compiled by NVRTC at
// their first use (own_kernels.hpp), so the build compiles none of them.
#include <cuda_runtime.h>
#include <stdint.h>

#include <string>
#include <utility>

#include "../kit/backends.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "../kit/scan_backends.hpp"
#include "check.cuh"
#include "gpuvec/scan_kernels.hpp"
#include "launch.cuh"
#include "own_kernels.hpp"

namespace gpuvec::cuda {
namespace {

const char* const kScanSource = "#include <gpuvec/scan_kernels.hpp>\n";

// Device memory for one call, from the pool, given back ordered after the
// work queued on the stream.
class Temporary {
 public:
  Temporary(size_t bytes, gpuvec_stream stream)
      : stream_(stream), bytes_(bytes > 0 ? bytes : 1), ptr_(allocate(bytes_, stream)) {}
  ~Temporary() {
    try {
      deallocate(ptr_, bytes_, stream_);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failed free must not hide the call's result
    }
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  gpuvec_stream stream_;
  size_t bytes_;  // declared before ptr_: the allocation reads it
  void* ptr_;
};

// Queues `kernel` (compiled at first use from its name expression) with
// `blocks` blocks of `threads` and its arguments, which must have the types
// of the kernel's parameters.
template <class Name, class... Args>
void launch(OwnKernel& kernel, Name&& name, int64_t blocks, int threads, size_t shared_bytes,
            gpuvec_stream stream, Args... args) {
  if (blocks <= 0) return;
  if (blocks > INT32_MAX) {
    throw_invalid_argument("the array is too large for one launch: " + std::to_string(blocks) +
                           " blocks");
  }
  void* handle = kernel.get(kScanSource, std::forward<Name>(name));
  void* params[] = {static_cast<void*>(&args)...};
  const gpuvec_kernel_config config{
      {static_cast<uint32_t>(blocks), 1, 1},
      {static_cast<uint32_t>(threads), 1, 1},
      shared_bytes,
      0.0,
  };
  launch_kernel(handle, config, params, stream);
}

// "gpuvec::name<arguments>".
std::string instance(const char* name, const std::string& arguments) {
  return std::string("gpuvec::") + name + "<" + arguments + ">";
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks for a grid-stride loop over `work` items.
int64_t stride_blocks(int64_t work) { return grid_size(work, kDefaultThreadsPerBlock, 8); }

template <class T, int Op>
void scan_rows(int64_t rows, int64_t n, const T* x, T* out, gpuvec_stream stream) {
  static OwnKernel totals_kernel, carries_kernel, tiles_kernel;
  const std::string arguments = std::string(type_name<T>()) + ", " + std::to_string(Op);
  const int64_t tiles = ceil_div(n, kScanTile);
  const int64_t blocks = rows * tiles;
  const T* no_carries = nullptr;
  if (tiles == 1) {
    launch(
        tiles_kernel, [&] { return instance("scan_tiles", arguments); }, blocks, kScanThreads, 0,
        stream, n, tiles, x, out, no_carries);
    return;
  }
  Temporary carries(static_cast<size_t>(blocks) * sizeof(T), stream);
  T* c = carries.as<T>();
  launch(
      totals_kernel, [&] { return instance("scan_totals", arguments); }, blocks, kScanThreads, 0,
      stream, n, tiles, x, c);
  launch(
      carries_kernel, [&] { return instance("scan_carries", arguments); }, rows, kScanThreads, 0,
      stream, tiles, c);
  const T* carries_in = c;
  launch(
      tiles_kernel, [&] { return instance("scan_tiles", arguments); }, blocks, kScanThreads, 0,
      stream, n, tiles, x, out, carries_in);
}

// One pass of the radix sort over the digit at `shift` of each key (RowPass
// false) or each element's row (true): from (keys, index) into (keys_out,
// index_out).
template <bool RowPass, class K>
void radix_pass(int64_t total, int64_t n, int shift, const K* keys, const int64_t* index,
                K* keys_out, int64_t* index_out, int64_t* counts, gpuvec_stream stream) {
  static OwnKernel counts_kernel, scatter_kernel;
  const std::string arguments = std::string(RowPass ? "true, " : "false, ") + type_name<K>();
  const int64_t blocks = ceil_div(total, kSortTile);
  launch(
      counts_kernel, [&] { return instance("radix_counts", arguments); }, blocks, kSortThreads, 0,
      stream, total, keys, index, n, shift, counts);
  // The counts, digit-major, summed: each (digit, block)'s end.
  scan<int64_t>(GPUVEC_SCAN_SUM, 1, kSortDigits * blocks, counts, counts, stream);
  const int64_t* ends = counts;
  launch(
      scatter_kernel, [&] { return instance("radix_scatter", arguments); }, blocks, kSortThreads,
      0, stream, total, keys, index, n, shift, ends, keys_out, index_out);
}

}  // namespace

template <class T>
void scan(gpuvec_scan_op op, int64_t rows, int64_t n, const T* x, T* out, gpuvec_stream stream) {
  if (rows == 0 || n == 0) return;
  if (op == GPUVEC_SCAN_SUM) {
    scan_rows<T, 0>(rows, n, x, out, stream);
  } else {
    scan_rows<T, 1>(rows, n, x, out, stream);
  }
}

template <class T>
void sort(int64_t rows, int64_t n, const T* x, T* values, int64_t* indices, gpuvec_stream stream) {
  using K = sort_key_t<T>;
  static OwnKernel keys_kernel, finish_kernel;
  const int64_t total = rows * n;
  if (total == 0) return;
  Temporary keys(2 * static_cast<size_t>(total) * sizeof(K), stream);
  Temporary index(2 * static_cast<size_t>(total) * sizeof(int64_t), stream);
  Temporary counts(static_cast<size_t>(kSortDigits * ceil_div(total, kSortTile)) * sizeof(int64_t),
                   stream);
  K* key_from = keys.as<K>();
  K* key_to = key_from + total;
  int64_t* index_from = index.as<int64_t>();
  int64_t* index_to = index_from + total;
  launch(
      keys_kernel, [] { return instance("sort_keys", type_name<T>()); }, stride_blocks(total),
      kDefaultThreadsPerBlock, 0, stream, total, x, key_from, index_from);
  for (int shift = 0; shift < static_cast<int>(8 * sizeof(K)); shift += 8) {
    radix_pass<false>(total, n, shift, key_from, index_from, key_to, index_to,
                      counts.as<int64_t>(), stream);
    std::swap(key_from, key_to);
    std::swap(index_from, index_to);
  }
  // Then by row: stable passes over the row of each index keep each row's order.
  for (int shift = 0; rows > 1 && shift < 64 && ((rows - 1) >> shift) != 0; shift += 8) {
    radix_pass<true>(total, n, shift, key_from, index_from, key_to, index_to, counts.as<int64_t>(),
                     stream);
    std::swap(index_from, index_to);
  }
  const int64_t* sorted_index = index_from;
  launch(
      finish_kernel, [] { return instance("sort_finish", type_name<T>()); }, stride_blocks(total),
      kDefaultThreadsPerBlock, 0, stream, total, n, x, sorted_index, values, indices);
}

void histogram(int64_t n, const int64_t* bin_of, const double* x, const double* edges,
               const double* weights, int64_t bins, void* counts, gpuvec_stream stream) {
  static OwnKernel kernels[2][2];
  if (bins == 0) return;
  GPUVEC_CUDA_CHECK(cudaMemsetAsync(counts, 0, static_cast<size_t>(bins) * 8,
                                    as_cuda_stream(stream)));  // 0 is 0.0 too
  if (n == 0) return;
  // Bins that fit in shared memory are counted there by each block first.
  constexpr int64_t kSharedBins = 4096;
  const int shared = bins <= kSharedBins ? 1 : 0;
  const bool by_edges = edges != nullptr, weighted = weights != nullptr;
  launch(
      kernels[by_edges][weighted],
      [&] {
        return instance("histogram_counts", std::string(by_edges ? "true" : "false") + ", " +
                                                (weighted ? "true" : "false"));
      },
      stride_blocks(n), kDefaultThreadsPerBlock, shared ? static_cast<size_t>(bins) * 8 : 0,
      stream, n, bin_of, x, edges, weights, bins, counts, shared);
}

template <class T>
void searchsorted(int64_t n, const T* sorted, int64_t m, const T* v, bool right, int64_t* out,
                  gpuvec_stream stream) {
  static OwnKernel kernel;
  const int side = right ? 1 : 0;
  launch(
      kernel, [] { return instance("searchsorted_points", type_name<T>()); }, stride_blocks(m),
      kDefaultThreadsPerBlock, 0, stream, n, sorted, m, v, side, out);
}

template <class T>
void sorted_runs(int64_t n, const T* sorted, uint8_t* starts, gpuvec_stream stream) {
  static OwnKernel kernel;
  launch(
      kernel, [] { return instance("run_starts", type_name<T>()); }, stride_blocks(n),
      kDefaultThreadsPerBlock, 0, stream, n, sorted, starts);
}

#define GPUVEC_INSTANTIATE(T)                                                           \
  template void scan<T>(gpuvec_scan_op, int64_t, int64_t, const T*, T*, gpuvec_stream); \
  template void sort<T>(int64_t, int64_t, const T*, T*, int64_t*, gpuvec_stream);       \
  template void searchsorted<T>(int64_t, const T*, int64_t, const T*, bool, int64_t*,   \
                                gpuvec_stream);                                         \
  template void sorted_runs<T>(int64_t, const T*, uint8_t*, gpuvec_stream);
GPUVEC_SCAN_TYPES(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::cuda
