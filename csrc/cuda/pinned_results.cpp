// Pinned host memory for the results of downloads (see pinned_results.hpp).
#include "pinned_results.hpp"

#include <cuda_runtime.h>
#include <stdint.h>

#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "check.cuh"

namespace gpuvec::cuda {
namespace {

// Below this a pageable copy costs little more than pinning would.
constexpr size_t kMinBytes = size_t{1} << 20;
// The most pinned memory held, handed out and kept together: locked pages
// are taken from everything else on the machine.
constexpr size_t kMaxHeldBytes = size_t{4} << 30;
// The sizes remembered as asked for once; forgotten all at once when full.
constexpr size_t kMaxSizesSeen = 64;

struct Pool {
  std::mutex mutex;
  std::map<uintptr_t, size_t> handed_out;  // start -> bytes
  std::multimap<size_t, void*> kept;       // bytes -> block, free for reuse
  std::set<size_t> seen;                   // sizes asked for before
  size_t held = 0;                         // bytes handed out, kept and being pinned
  std::thread pinner;                      // pins one block at a time, or is not joinable
  bool pinning = false;                    // the pinner's block has not reached `kept`
  size_t pinning_bytes = 0;                // its size
  size_t wanted = 0;                       // a size to pin once the download under way ends

  // At exit without finish_pinning (os._exit skips both), leave the thread be:
  // destroying a joinable std::thread would end the process with an abort.
  ~Pool() {
    if (pinner.joinable()) pinner.detach();
  }
};

Pool pool;

// Frees kept blocks, any size, until `bytes` more fit under the cap.
// Called with the pool locked.
bool make_room(size_t bytes) {
  while (pool.held + bytes > kMaxHeldBytes && !pool.kept.empty()) {
    const auto last = std::prev(pool.kept.end());  // the largest frees the most
    GPUVEC_CUDA_CHECK(cudaFreeHost(last->second));
    pool.held -= last->first;
    pool.kept.erase(last);
  }
  return pool.held + bytes <= kMaxHeldBytes;
}

// Starts pinning a block of `bytes` on the pinner thread, unless a block is
// being pinned already or `bytes` more would pass the cap. Called with the
// pool locked.
void start_pinning(size_t bytes) {
  if (pool.pinning) return;
  // The last pinner has left its work (pinning is false), so this is short.
  if (pool.pinner.joinable()) pool.pinner.join();
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || !make_room(bytes)) return;
  pool.held += bytes;  // counted now, so that no other block passes the cap meanwhile
  pool.pinning = true;
  pool.pinning_bytes = bytes;
  pool.pinner = std::thread([bytes, device] {
    void* block = nullptr;
    // Portable: pinned for every device's context, as a result may come from any.
    const bool pinned = cudaSetDevice(device) == cudaSuccess &&
                        cudaHostAlloc(&block, bytes, cudaHostAllocPortable) == cudaSuccess;
    if (!pinned) cudaGetLastError();  // out of lockable memory: pageable memory serves
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (pinned) {
      pool.kept.emplace(bytes, block);
    } else {
      pool.held -= bytes;
    }
    pool.pinning = false;
  });
}

}  // namespace

void* take_pinned_result(size_t bytes) {
  if (bytes < kMinBytes) return nullptr;
  std::unique_lock<std::mutex> lock(pool.mutex);
  if (pool.pinning && pool.pinning_bytes == bytes) {
    // The block for this size is on its way: waiting for the rest of the
    // pinning costs less than a download beside it (both fault pages in).
    lock.unlock();
    finish_pinning();
    lock.lock();
  }
  const auto kept = pool.kept.find(bytes);
  if (kept == pool.kept.end()) {
    if (pool.seen.size() >= kMaxSizesSeen) pool.seen.clear();
    // The size's second download: pin a block for the next once this one ends.
    if (!pool.seen.insert(bytes).second) pool.wanted = bytes;
    return nullptr;
  }
  void* block = kept->second;
  pool.kept.erase(kept);
  pool.handed_out[reinterpret_cast<uintptr_t>(block)] = bytes;
  return block;
}

void pin_wanted_result() {
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (pool.wanted != 0) start_pinning(pool.wanted);
  pool.wanted = 0;
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

void finish_pinning() {
  std::thread pinner;
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    pinner = std::move(pool.pinner);
  }
  if (pinner.joinable()) pinner.join();
}

void release_pinned_results() {
  finish_pinning();
  std::lock_guard<std::mutex> lock(pool.mutex);
  for (const auto& [bytes, block] : pool.kept) {
    GPUVEC_CUDA_CHECK(cudaFreeHost(block));
    pool.held -= bytes;
  }
  pool.kept.clear();
}

}  // namespace gpuvec::cuda
