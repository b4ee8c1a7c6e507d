// Per-stream scratch for single-pass reductions (see scratch.hpp).
#include "scratch.hpp"

#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "check.cuh"
#include "launch.cuh"

namespace gpuvec::cuda {
namespace {

// The per-thread default stream has one handle but is a different stream in
// each host thread, so its scratch is kept per thread too.
struct Key {
  int device;
  cudaStream_t stream;
  std::thread::id thread;
  bool operator<(const Key& o) const {
    return std::tie(device, stream, thread) < std::tie(o.device, o.stream, o.thread);
  }
};

std::mutex scratch_mutex;
std::map<Key, ReductionScratch>& scratches() {
  static auto* map = new std::map<Key, ReductionScratch>;  // outlives the driver at exit
  return *map;
}

}  // namespace

ReduceDevice reduce_device() {
  return {multiprocessor_count(), static_cast<int64_t>(kReductionScratchBytes),
          kMaxReductionBlocks};
}

ReductionScratch reduction_scratch(cudaStream_t stream) {
  Key key{0, stream, {}};
  GPUVEC_CUDA_CHECK(cudaGetDevice(&key.device));
  if (stream == cudaStreamPerThread) key.thread = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(scratch_mutex);
  auto found = scratches().find(key);
  if (found != scratches().end()) return found->second;
  // One allocation: the partials, then the ticket.
  void* memory = nullptr;
  const size_t partial_bytes = kReductionScratchBytes;
  GPUVEC_CUDA_CHECK(cudaMalloc(&memory, partial_bytes + sizeof(unsigned int)));
  ReductionScratch scratch{
      static_cast<double*>(memory),
      reinterpret_cast<unsigned int*>(static_cast<char*>(memory) + partial_bytes)};
  const cudaError_t zeroed = cudaMemsetAsync(scratch.ticket, 0, sizeof(unsigned int), stream);
  if (zeroed != cudaSuccess) {
    cudaFree(memory);
    check(zeroed, "cudaMemsetAsync(ticket)");
  }
  scratches().emplace(key, scratch);
  return scratch;
}

void forget_reduction_scratch(cudaStream_t stream) noexcept {
  std::lock_guard<std::mutex> lock(scratch_mutex);
  auto& map = scratches();
  for (auto it = map.begin(); it != map.end();) {
    if (it->first.stream == stream) {
      cudaFree(it->second.partials);  // waits for the work that may still use it
      it = map.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace gpuvec::cuda
