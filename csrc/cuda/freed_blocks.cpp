// The blocks freed on each device's default stream (see freed_blocks.hpp).
#include "freed_blocks.hpp"

#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "check.cuh"

namespace gpuvec::cuda {
namespace {

constexpr int kMaxDevices = 64;
// Enough for the temporaries of a long expression; few enough that a search
// of them costs nothing beside a driver call.
constexpr size_t kMaxBlocks = 16;
// Larger blocks go back to the pool, so that the cache never holds much of
// the device's memory.
constexpr size_t kMaxBlockBytes = size_t{64} << 20;

struct Block {
  void* ptr;
  size_t bytes;
  cudaStream_t stream;  // freed on, and handed back to allocations on, this stream only
};

// The kept blocks of one device, oldest first.
struct Kept {
  std::mutex mutex;
  std::vector<Block> blocks;
  size_t bytes = 0;
};

Kept kept[kMaxDevices];

Kept& kept_of(int device) { return kept[device >= 0 && device < kMaxDevices ? device : 0]; }

void free_to_pool(const Block& b) { GPUVEC_CUDA_CHECK(cudaFreeAsync(b.ptr, b.stream)); }

}  // namespace

void* take_freed_block(int device, size_t bytes, cudaStream_t stream) {
  Kept& k = kept_of(device);
  const std::lock_guard<std::mutex> lock(k.mutex);
  for (size_t i = k.blocks.size(); i-- > 0;) {
    if (k.blocks[i].bytes == bytes && k.blocks[i].stream == stream) {
      void* ptr = k.blocks[i].ptr;
      k.blocks.erase(k.blocks.begin() + static_cast<std::ptrdiff_t>(i));
      k.bytes -= bytes;
      return ptr;
    }
  }
  return nullptr;
}

void keep_freed_block(int device, void* ptr, size_t bytes, cudaStream_t stream) {
  const Block block{ptr, bytes, stream};
  if (bytes > kMaxBlockBytes || device < 0 || device >= kMaxDevices) {
    free_to_pool(block);
    return;
  }
  Kept& k = kept_of(device);
  Block oldest{nullptr, 0, nullptr};
  {
    const std::lock_guard<std::mutex> lock(k.mutex);
    if (k.blocks.size() == kMaxBlocks) {
      oldest = k.blocks.front();
      k.bytes -= oldest.bytes;
      k.blocks.erase(k.blocks.begin());
    }
    k.blocks.push_back(block);
    k.bytes += bytes;
  }
  if (oldest.ptr != nullptr) free_to_pool(oldest);
}

void release_freed_blocks_of(cudaStream_t stream) {
  for (Kept& k : kept) {
    std::vector<Block> blocks;
    {
      const std::lock_guard<std::mutex> lock(k.mutex);
      for (size_t i = k.blocks.size(); i-- > 0;) {
        if (k.blocks[i].stream == stream) {
          blocks.push_back(k.blocks[i]);
          k.bytes -= k.blocks[i].bytes;
          k.blocks.erase(k.blocks.begin() + static_cast<std::ptrdiff_t>(i));
        }
      }
    }
    for (const Block& b : blocks) free_to_pool(b);
  }
}

void release_freed_blocks(int device) {
  Kept& k = kept_of(device);
  std::vector<Block> blocks;
  {
    const std::lock_guard<std::mutex> lock(k.mutex);
    blocks.swap(k.blocks);
    k.bytes = 0;
  }
  for (const Block& b : blocks) free_to_pool(b);
}

size_t freed_block_bytes(int device) {
  Kept& k = kept_of(device);
  const std::lock_guard<std::mutex> lock(k.mutex);
  return k.bytes;
}

}  // namespace gpuvec::cuda
