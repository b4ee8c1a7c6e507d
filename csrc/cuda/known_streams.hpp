// The streams whose lifetime gpuvec sees: CUDA's default streams, which live
// as long as the process, and the streams gpuvec created, which it destroys.
//
// gpuvec keeps state per stream (a reduction's scratch, freed blocks kept for
// reuse) and must drop it before the stream goes, since CUDA may give a new
// stream the same handle while the old one's work still runs. Another
// library's stream (CuPy's, PyTorch's) may be destroyed without gpuvec
// knowing, so work on it keeps nothing across calls: its scratch is the
// call's own, and memory freed on it goes back to CUDA's pool at once.
#ifndef GPUVEC_CUDA_KNOWN_STREAMS_HPP
#define GPUVEC_CUDA_KNOWN_STREAMS_HPP

#include <cuda_runtime.h>

namespace gpuvec::cuda {

// Records a stream gpuvec created, and forgets it before gpuvec destroys it.
void note_created_stream(cudaStream_t stream);
void note_destroyed_stream(cudaStream_t stream);

// Whether gpuvec sees the stream's lifetime: a default stream or its own.
bool is_known_stream(cudaStream_t stream);

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_KNOWN_STREAMS_HPP
