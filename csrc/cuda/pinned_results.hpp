// Pinned host memory for the results of downloads (DeviceArray.to_host(),
// np.asarray(d)).
//
// A copy from the device into pageable memory goes through the staging
// buffers and then through the host's page faults: about 17 GB/s on an H100
// host, against 54 GB/s for a copy straight into pinned memory. Pinning costs
// more than it saves for one copy: cudaHostAlloc maps and locks every page,
// 46 ms for 128 MiB on an H100 host, where a pageable download of that size
// takes 8 ms. So no download pins: once the second download of a size has
// ended, a thread of gpuvec's pins a block for the third (not during the
// download: both fault pages in, and together took 142 ms). A loop that
// brings back results of one shape thus gets pinned arrays from its third
// on, and a NumPy array that dies gives its block back here for the next.
#ifndef GPUVEC_CUDA_PINNED_RESULTS_HPP
#define GPUVEC_CUDA_PINNED_RESULTS_HPP

#include <stddef.h>

namespace gpuvec::cuda {

// A pinned block of `bytes` for a download's result, or null where pageable
// memory should be used instead: a small size, one with no pinned block
// ready yet (for a size seen before, pin_wanted_result then pins one), or
// the pinned memory held would pass its cap. Where a block of this size is
// being pinned, waits for it.
void* take_pinned_result(size_t bytes);

// Starts pinning the block that take_pinned_result found wanted, if any, on
// gpuvec's pinner thread: called when a download has ended.
void pin_wanted_result();

// Gives a block of take_pinned_result back; it is kept for the next result of
// its size (no work may still be writing it: downloads are synchronous).
void give_back_pinned_result(void* block);

// Whether [data, data + bytes) lies in one block handed out as a result.
bool in_pinned_result(const void* data, size_t bytes);

// Frees the kept blocks (gpuvec.free_cached()), once any pinning under way
// has ended.
void release_pinned_results();

// Waits for any pinning under way: before the process exits (gpuvec calls it
// from Python's atexit), so that no thread is inside CUDA as it shuts down.
void finish_pinning();

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_PINNED_RESULTS_HPP
