// Device memory freed on a device's default stream, kept for the next
// allocation of the same size there.
//
// A chain of ops (`2.5*a*b + a - 0.5`) allocates a temporary for each result
// and frees it one op later. CUDA's stream-ordered pool already reuses the
// memory, but each cudaMallocAsync and cudaFreeAsync is a call into the
// driver: about 15% of a small op's host time. Blocks freed on the default
// stream are kept here instead, a few per device, and handed back to an
// allocation of the same size on the same stream, in stream order, which is
// what makes the reuse safe: every later use of the block is queued after
// every earlier one, and reads on other streams were ordered before the free
// with an event wait queued on the default stream (see _wait_for_uses in
// gpuvec/_memory.pxi). Blocks freed on other streams go to the pool at once:
// a stream can be destroyed, and its handle reused by a stream that is not
// ordered after the old one's work.
#ifndef GPUVEC_CUDA_FREED_BLOCKS_HPP
#define GPUVEC_CUDA_FREED_BLOCKS_HPP

#include <stddef.h>

namespace gpuvec::cuda {

// A kept block of exactly `bytes` of `device`, the most recently freed one
// (still in cache, likely), or null.
void* take_freed_block(int device, size_t bytes);

// Keeps `ptr`, `bytes` long, freed on the default stream of `device` (the
// current device); frees the oldest kept block to the pool when the cache is
// full. A block too large to keep is freed at once.
void keep_freed_block(int device, void* ptr, size_t bytes);

// Frees every kept block of `device` (the current device) to the pool.
void release_freed_blocks(int device);

// The bytes kept for `device`: counted as cached, not in use.
size_t freed_block_bytes(int device);

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_FREED_BLOCKS_HPP
