// Per-stream scratch for single-pass reductions (see scratch.hpp).
#include "scratch.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "../kit/backends.hpp"
#include "check.cuh"
#include "known_streams.hpp"
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

// The bytes of a scratch: the partials, then the ticket.
constexpr size_t kScratchBytes = kReductionScratchBytes + sizeof(unsigned int);

// The bytes of kept scratch on each device (reduction_scratch_bytes).
constexpr int kMaxDevices = 64;
std::atomic<size_t> kept_bytes[kMaxDevices];

std::atomic<size_t>& kept_bytes_of(int device) {
  return kept_bytes[device >= 0 && device < kMaxDevices ? device : 0];
}

ReductionScratch scratch_at(void* memory) {
  return {static_cast<double*>(memory),
          reinterpret_cast<unsigned int*>(static_cast<char*>(memory) + kReductionScratchBytes)};
}

// The kept scratch of `stream`, made on first use.
ReductionScratch kept_scratch(cudaStream_t stream) {
  Key key{0, stream, {}};
  GPUVEC_CUDA_CHECK(cudaGetDevice(&key.device));
  if (stream == cudaStreamPerThread) key.thread = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(scratch_mutex);
  auto found = scratches().find(key);
  if (found != scratches().end()) return found->second;
  void* memory = nullptr;
  GPUVEC_CUDA_CHECK(cudaMalloc(&memory, kScratchBytes));
  const ReductionScratch scratch = scratch_at(memory);
  const cudaError_t zeroed = cudaMemsetAsync(scratch.ticket, 0, sizeof(unsigned int), stream);
  if (zeroed != cudaSuccess) {
    cudaFree(memory);
    check(zeroed, "cudaMemsetAsync(ticket)");
  }
  scratches().emplace(key, scratch);
  kept_bytes_of(key.device).fetch_add(kScratchBytes, std::memory_order_relaxed);
  return scratch;
}

}  // namespace

size_t reduction_scratch_bytes(int device) {
  return kept_bytes_of(device).load(std::memory_order_relaxed);
}

ReduceDevice reduce_device() {
  return {multiprocessor_count(), static_cast<int64_t>(kReductionScratchBytes),
          kMaxReductionBlocks};
}

ScratchLease::ScratchLease(cudaStream_t stream) : stream_(stream) {
  if (is_known_stream(stream)) {
    scratch_ = kept_scratch(stream);
    return;
  }
  void* memory = allocate(kScratchBytes, stream);
  scratch_ = scratch_at(memory);
  own_ = true;
  const cudaError_t zeroed = cudaMemsetAsync(scratch_.ticket, 0, sizeof(unsigned int), stream);
  if (zeroed != cudaSuccess) {
    deallocate(memory, kScratchBytes, stream);
    check(zeroed, "cudaMemsetAsync(ticket)");
  }
}

ScratchLease::~ScratchLease() {
  if (!own_) return;
  try {
    deallocate(scratch_.partials, kScratchBytes, stream_);
  } catch (...) {  // NOLINT(bugprone-empty-catch): a failed free must not hide the call's result
  }
}

void forget_reduction_scratch(cudaStream_t stream) noexcept {
  std::lock_guard<std::mutex> lock(scratch_mutex);
  auto& map = scratches();
  for (auto it = map.begin(); it != map.end();) {
    if (it->first.stream == stream) {
      cudaFree(it->second.partials);  // waits for the work that may still use it
      kept_bytes_of(it->first.device).fetch_sub(kScratchBytes, std::memory_order_relaxed);
      it = map.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace gpuvec::cuda
