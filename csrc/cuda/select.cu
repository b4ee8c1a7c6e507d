// Boolean masks on the CUDA backend, with CUB's device-wide algorithms:
//   count_true  DeviceReduce sums the mask's bytes;
//   compress    DeviceSelect::Flagged keeps the elements whose flag is true;
//   expand      DeviceScan's exclusive prefix sum of the mask gives each
//               selected element its place k in values, and a kernel then
//               writes values[k] over it (one value needs no prefix sum).
// CUB's temporary storage comes from gpuvec's stream-ordered pool.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>

#include "../kit/backends.hpp"
#include "../kit/select_backends.hpp"
#include "check.cuh"
#include "launch.cuh"

namespace gpuvec::cuda {
namespace {

// Device memory for one call, from the pool, given back when it goes out of
// scope: ordered after the work queued on the stream, so a kernel still
// using it finishes first.
class DeviceMemory {
 public:
  // CUB takes a null storage pointer for "how much do you need?", so even an
  // empty request gets a real (one-byte) allocation.
  DeviceMemory(size_t bytes, gpuvec_stream stream)
      : stream_(stream), bytes_(bytes > 0 ? bytes : 1), ptr_(allocate(bytes_, stream)) {}
  ~DeviceMemory() {
    try {
      deallocate(ptr_, bytes_, stream_);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failed free must not hide the call's result
    }
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  gpuvec_stream stream_;
  size_t bytes_;  // declared before ptr_: the allocation reads it
  void* ptr_;
};

// A CUB algorithm is called twice: without storage, to learn how many bytes
// of it the algorithm needs, then with them. `algorithm(storage, bytes)`
// makes the call.
template <class Algorithm>
void run_cub(const char* name, gpuvec_stream stream, Algorithm&& algorithm) {
  size_t bytes = 0;
  check(algorithm(nullptr, bytes), name);
  DeviceMemory storage(bytes, stream);
  check(algorithm(storage.as<void>(), bytes), name);
}

// The selected elements of x become *value (read by every thread: it is one
// cached element of device memory).
template <class Bits>
__global__ void fill_kernel(int64_t n, Bits* __restrict__ x, const uint8_t* __restrict__ mask,
                            const Bits* __restrict__ value) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if (mask[i]) x[i] = *value;
  }
}

// The selected element i of x becomes values[place[i]], place being the
// exclusive prefix sum of the mask: the number of selected elements before i.
template <class Bits>
__global__ void scatter_kernel(int64_t n, Bits* __restrict__ x, const uint8_t* __restrict__ mask,
                               const int64_t* __restrict__ place,
                               const Bits* __restrict__ values) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if (mask[i]) x[i] = values[place[i]];
  }
}

}  // namespace

int64_t count_true(int64_t n, const uint8_t* mask, gpuvec_stream stream) {
  if (n == 0) return 0;
  const cudaStream_t s = as_cuda_stream(stream);
  DeviceMemory total(sizeof(int64_t), stream);
  // The type of init is CUB's accumulator: an int64_t, as a sum of bytes
  // kept in a byte would wrap at 256.
  run_cub("cub::DeviceReduce::Reduce", stream, [&](void* storage, size_t& bytes) {
    return cub::DeviceReduce::Reduce(storage, bytes, mask, total.as<int64_t>(), n,
                                     ::cuda::std::plus<>{}, int64_t{0}, s);
  });
  int64_t count = 0;
  GPUVEC_CUDA_CHECK(
      cudaMemcpyAsync(&count, total.as<int64_t>(), sizeof count, cudaMemcpyDeviceToHost, s));
  GPUVEC_CUDA_CHECK(cudaStreamSynchronize(s));
  return count;
}

template <class Bits>
void compress(int64_t n, const Bits* x, const uint8_t* mask, Bits* out, int,
              gpuvec_stream stream) {
  if (n == 0) return;
  const cudaStream_t s = as_cuda_stream(stream);
  // Flagged also writes how many it kept; the boundary knew that already.
  DeviceMemory kept(sizeof(int64_t), stream);
  run_cub("cub::DeviceSelect::Flagged", stream, [&](void* storage, size_t& bytes) {
    return cub::DeviceSelect::Flagged(storage, bytes, x, mask, out, kept.as<int64_t>(), n, s);
  });
}

template <class Bits>
void expand(int64_t n, Bits* x, const uint8_t* mask, const Bits* values, bool broadcast,
            int threads_per_block, gpuvec_stream stream) {
  if (n == 0) return;
  const cudaStream_t s = as_cuda_stream(stream);
  const int threads = block_size(threads_per_block);
  const int blocks = grid_size(n, threads, 16);
  if (broadcast) {
    fill_kernel<<<blocks, threads, 0, s>>>(n, x, mask, values);
    check_launch("fill_kernel");
    return;
  }
  DeviceMemory place(static_cast<size_t>(n) * sizeof(int64_t), stream);
  run_cub("cub::DeviceScan::ExclusiveScan", stream, [&](void* storage, size_t& bytes) {
    return cub::DeviceScan::ExclusiveScan(storage, bytes, mask, place.as<int64_t>(),
                                          ::cuda::std::plus<>{}, int64_t{0}, n, s);
  });
  scatter_kernel<<<blocks, threads, 0, s>>>(n, x, mask, place.as<int64_t>(), values);
  check_launch("scatter_kernel");
}

#define GPUVEC_INSTANTIATE(Bits)                                                                 \
  template void compress<Bits>(int64_t, const Bits*, const uint8_t*, Bits*, int, gpuvec_stream); \
  template void expand<Bits>(int64_t, Bits*, const uint8_t*, const Bits*, bool, int,             \
                             gpuvec_stream);
GPUVEC_SELECT_BITS(GPUVEC_INSTANTIATE)
#undef GPUVEC_INSTANTIATE

}  // namespace gpuvec::cuda
