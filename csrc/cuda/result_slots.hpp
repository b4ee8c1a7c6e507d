// Where reductions to one value write it: slots of mapped pinned host memory.
//
// A kernel writes the value straight into host memory, so reading it after a
// synchronize needs no copy. A slot may be reused only once the work that
// could still write it is done; see result_slots.cpp for how that is tracked
// without costing a tiny reduction an event of its own.
#ifndef GPUVEC_CUDA_RESULT_SLOTS_HPP
#define GPUVEC_CUDA_RESULT_SLOTS_HPP

#include <cuda_runtime.h>

namespace gpuvec::cuda {

// A free 16-byte slot, for work on the current device.
void* take_result_slot();

// Gives a slot back; work already queued on `stream` may still write it.
void give_back_result_slot(void* slot, cudaStream_t stream);

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_RESULT_SLOTS_HPP
