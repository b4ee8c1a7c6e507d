// Pinned host memory for the results of downloads (see pinned_results.hpp).
#include "pinned_results.hpp"

#include <cuda_runtime.h>
#include <stdint.h>

#include <iterator>
#include <map>
#include <mutex>

#include "check.cuh"

namespace gpuvec::cuda {
namespace {

// Below this a pageable copy costs little more than pinning would.
constexpr size_t kMinBytes = size_t{1} << 20;
// The most pinned memory held, handed out and kept together: locked pages
// are taken from everything else on the machine.
constexpr size_t kMaxHeldBytes = size_t{4} << 30;
// A size is pinned for its third download: one that came back twice in a
// process is likely to come back again (a loop), and pinning costs several
// pageable downloads.
constexpr int kDownloadsBeforePinning = 2;
// The sizes whose downloads are counted; forgotten all at once when full.
constexpr size_t kMaxSizesSeen = 64;

struct Pool {
  std::mutex mutex;
  std::map<uintptr_t, size_t> handed_out;  // start -> bytes
  std::multimap<size_t, void*> kept;       // bytes -> block, free for reuse
  std::map<size_t, int> downloads;         // size -> its pageable downloads (at most 2)
  size_t held = 0;                         // bytes handed out and kept
};

Pool pool;

// Frees one kept block. Called with the pool locked. The block leaves the
// pool first, so that a failed cudaFreeHost never leaves it there to be
// handed out or freed again.
void free_kept(std::multimap<size_t, void*>::iterator it) {
  const auto [bytes, block] = *it;
  pool.kept.erase(it);
  pool.held -= bytes;
  GPUVEC_CUDA_CHECK(cudaFreeHost(block));
}

// Frees kept blocks, any size, until `bytes` more fit under the cap.
// Called with the pool locked.
bool make_room(size_t bytes) {
  while (pool.held + bytes > kMaxHeldBytes && !pool.kept.empty()) {
    free_kept(std::prev(pool.kept.end()));  // the largest frees the most
  }
  return pool.held + bytes <= kMaxHeldBytes;
}

// A new pinned block of `bytes`, or null. Called with the pool locked.
void* pin(size_t bytes) {
  void* block = nullptr;
  if (!make_room(bytes)) return nullptr;
  // Portable: pinned for every device's context, as a result may come from any.
  if (cudaHostAlloc(&block, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();  // out of lockable memory: pageable memory serves
    return nullptr;
  }
  pool.held += bytes;
  return block;
}

}  // namespace

void* take_pinned_result(size_t bytes) {
  if (bytes < kMinBytes) return nullptr;
  std::lock_guard<std::mutex> lock(pool.mutex);
  void* block = nullptr;
  const auto kept = pool.kept.find(bytes);
  if (kept != pool.kept.end()) {
    block = kept->second;
    pool.kept.erase(kept);
  } else {
    if (pool.downloads.size() >= kMaxSizesSeen) pool.downloads.clear();
    int& pageable = pool.downloads[bytes];
    if (pageable < kDownloadsBeforePinning) {
      ++pageable;
      return nullptr;
    }
    if ((block = pin(bytes)) == nullptr) return nullptr;
  }
  pool.handed_out[reinterpret_cast<uintptr_t>(block)] = bytes;
  return block;
}

void give_back_pinned_result(void* block) {
  std::lock_guard<std::mutex> lock(pool.mutex);
  const auto it = pool.handed_out.find(reinterpret_cast<uintptr_t>(block));
  if (it == pool.handed_out.end()) return;
  pool.kept.emplace(it->second, block);
  pool.handed_out.erase(it);
}

bool in_pinned_result(const void* data, size_t bytes) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(data);
  std::lock_guard<std::mutex> lock(pool.mutex);
  auto it = pool.handed_out.upper_bound(start);  // the first block after data
  if (it == pool.handed_out.begin()) return false;
  --it;
  return start + bytes <= it->first + it->second;
}

void release_pinned_results() {
  std::lock_guard<std::mutex> lock(pool.mutex);
  while (!pool.kept.empty()) free_kept(pool.kept.begin());
}

}  // namespace gpuvec::cuda
