// Pinned host memory for the results of downloads (DeviceArray.to_host(),
// np.asarray(d)).
//
// A copy from the device into pageable memory goes through the staging
// buffers and then through the host's page faults: about 17 GB/s on an H100
// host, against 54 GB/s for a copy straight into pinned memory. Pinning costs
// more than it saves for one copy: cudaHostAlloc maps and locks every page,
// 46 ms for 128 MiB on an H100 host, where a pageable download of that size
// takes 8 ms; and while it runs, it holds up every other CUDA call of the
// process (a tiny op took 1.1 ms instead of 5 us beside it on a thread). So a
// size is pinned at its third download, in that download's own call: a loop
// that brings back results of one shape pays once and then gets pinned
// arrays, and a NumPy array that dies gives its block back here for the next.
#ifndef GPUVEC_CUDA_PINNED_RESULTS_HPP
#define GPUVEC_CUDA_PINNED_RESULTS_HPP

#include <stddef.h>

namespace gpuvec::cuda {

// A pinned block of `bytes` for a download's result, or null where pageable
// memory should be used instead: a small size, one downloaded fewer than
// twice before, or the pinned memory held would pass its cap.
void* take_pinned_result(size_t bytes);

// Gives a block of take_pinned_result back; it is kept for the next result of
// its size (no work may still be writing it: downloads are synchronous).
void give_back_pinned_result(void* block);

// Whether [data, data + bytes) lies in one block handed out as a result.
bool in_pinned_result(const void* data, size_t bytes);

// Frees the kept blocks (gpuvec.free_cached()).
void release_pinned_results();

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_PINNED_RESULTS_HPP
