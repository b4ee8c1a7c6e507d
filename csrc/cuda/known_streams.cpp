// The streams whose lifetime gpuvec sees (see known_streams.hpp).
#include "known_streams.hpp"

#include <mutex>
#include <unordered_set>

namespace gpuvec::cuda {
namespace {

std::mutex known_mutex;
std::unordered_set<cudaStream_t>& created() {
  static auto* set = new std::unordered_set<cudaStream_t>;  // outlives the driver at exit
  return *set;
}

}  // namespace

void note_created_stream(cudaStream_t stream) {
  const std::lock_guard<std::mutex> lock(known_mutex);
  created().insert(stream);
}

void note_destroyed_stream(cudaStream_t stream) {
  const std::lock_guard<std::mutex> lock(known_mutex);
  created().erase(stream);
}

bool is_known_stream(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    return true;
  }
  const std::lock_guard<std::mutex> lock(known_mutex);
  return created().count(stream) > 0;
}

}  // namespace gpuvec::cuda
