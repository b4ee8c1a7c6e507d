// The result slots (see result_slots.hpp): carved from blocks of mapped pinned
// memory and recycled through a free list.
//
// A slot given back may still be written by work queued before that on its
// stream, so it waits behind an event recorded on the stream. Creating and
// recording an event costs about a microsecond, as much as a fifth of a tiny
// reduction, so slots given back on a device's default stream (where the
// short paths put every reduction) share one: they wait "unfenced", and when
// the free list runs dry a single event recorded on that stream covers all of
// them. That stream is never destroyed, so recording on it later is safe, and
// work on it runs in order, so the later event completes after every write.
#include "result_slots.hpp"

#include <cuda_runtime.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "check.cuh"

namespace gpuvec::cuda {
namespace {

class ResultSlots {
 public:
  void* take() {
    int device = 0;
    GPUVEC_CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) {
      fence_default_stream(device);
      reclaim();
    }
    if (free_.empty()) grow();
    void* slot = free_.back();
    free_.pop_back();
    device_of_[slot] = device;
    return slot;
  }

  void give_back(void* slot, cudaStream_t stream) {
    if (stream == nullptr) {
      std::lock_guard<std::mutex> lock(mutex_);
      unfenced_[device_of_[slot]].push_back(slot);
      return;
    }
    // Another stream may be destroyed before a later event could be recorded
    // on it: fence the slot now, unless the stream is already idle.
    const cudaError_t idle = cudaStreamQuery(stream);
    if (idle == cudaSuccess) {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(slot);
      return;
    }
    if (idle == cudaErrorNotReady) cudaGetLastError();  // an answer, not an error
    cudaEvent_t done = record_event(stream);
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back({{slot}, done});
  }

 private:
  static constexpr size_t kSlotBytes = 16;
  static constexpr size_t kBlockBytes = 64 << 10;

  struct Pending {
    std::vector<void*> slots;
    cudaEvent_t done;
  };

  static cudaEvent_t record_event(cudaStream_t stream) {
    cudaEvent_t done = nullptr;
    GPUVEC_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(done, stream);
    if (recorded != cudaSuccess) {
      cudaEventDestroy(done);
      check(recorded, "cudaEventRecord(result slots)");
    }
    return done;
  }

  // One event, on the current device's default stream, for the slots given
  // back there so far.
  void fence_default_stream(int device) {
    auto found = unfenced_.find(device);
    if (found == unfenced_.end() || found->second.empty()) return;
    cudaEvent_t done = record_event(nullptr);
    pending_.push_back({std::move(found->second), done});
    found->second.clear();
  }

  // Moves the slots whose event has completed to the free list.
  void reclaim() {
    for (size_t i = 0; i < pending_.size();) {
      if (cudaEventQuery(pending_[i].done) == cudaSuccess) {
        cudaEventDestroy(pending_[i].done);
        free_.insert(free_.end(), pending_[i].slots.begin(), pending_[i].slots.end());
        pending_[i] = std::move(pending_.back());
        pending_.pop_back();
      } else {
        cudaGetLastError();  // cudaErrorNotReady is an answer, not an error
        ++i;
      }
    }
  }

  void grow() {
    void* block = nullptr;
    GPUVEC_CUDA_CHECK(
        cudaHostAlloc(&block, kBlockBytes, cudaHostAllocMapped | cudaHostAllocPortable));
    for (size_t off = 0; off < kBlockBytes; off += kSlotBytes) {
      free_.push_back(static_cast<char*>(block) + off);
    }
  }

  std::mutex mutex_;
  std::vector<void*> free_;
  std::unordered_map<int, std::vector<void*>> unfenced_;  // per device
  std::unordered_map<void*, int> device_of_;              // the device each slot was taken on
  std::vector<Pending> pending_;
};

// Never destroyed: pinned memory must not be freed while the driver shuts down.
ResultSlots& result_slots() {
  static ResultSlots* slots = new ResultSlots();
  return *slots;
}

}  // namespace

void* take_result_slot() { return result_slots().take(); }

void give_back_result_slot(void* slot, cudaStream_t stream) {
  result_slots().give_back(slot, stream);
}

}  // namespace gpuvec::cuda
