// Device memory freed on a stream, kept for the next allocation of the same
// size on the same stream.
//
// A chain of ops (`2.5*a*b + a - 0.5`) allocates a temporary for each result
// and frees it one op later. CUDA's stream-ordered pool already reuses the
// memory, but each cudaMallocAsync and cudaFreeAsync is a call into the
// driver: about 15% of a small op's host time. Freed blocks are kept here
// instead, a few per device, and handed back to an allocation of the same
// size on the same stream, in stream order, which is what makes the reuse
// safe: every later use of the block is queued after every earlier one, and
// uses on other streams were ordered before the free with an event wait
// queued on the freeing stream (see _wait_for_uses in gpuvec/_memory.pxi).
// The streams are the default streams and gpuvec's own (known_streams.hpp):
// a stream's blocks go back to the pool before gpuvec destroys it
// (release_freed_blocks_of), since its handle can then be reused by a stream
// not ordered after its work; memory freed on another library's stream goes
// back to the pool at once.
#ifndef GPUVEC_CUDA_FREED_BLOCKS_HPP
#define GPUVEC_CUDA_FREED_BLOCKS_HPP

#include <cuda_runtime.h>
#include <stddef.h>

namespace gpuvec::cuda {

// A kept block of exactly `bytes` of `device` freed on `stream`, the most
// recently freed one (still in cache, likely), or null.
void* take_freed_block(int device, size_t bytes, cudaStream_t stream);

// Keeps `ptr`, `bytes` long, freed on `stream` of `device` (the current
// device); frees the oldest kept block to the pool when the cache is full. A
// block too large to keep is freed at once.
void keep_freed_block(int device, void* ptr, size_t bytes, cudaStream_t stream);

// Frees the kept blocks of `stream` to the pool, before the stream is destroyed.
void release_freed_blocks_of(cudaStream_t stream);

// Frees every kept block of `device` (the current device) to the pool.
void release_freed_blocks(int device);

// The bytes kept for `device`: counted as cached, not in use.
size_t freed_block_bytes(int device);

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_FREED_BLOCKS_HPP
