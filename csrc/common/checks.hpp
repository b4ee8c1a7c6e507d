// Argument checks of the extern "C" entry points (abi_*.cpp).
#ifndef GPUVEC_COMMON_CHECKS_HPP
#define GPUVEC_COMMON_CHECKS_HPP

#include <stdint.h>

#include <string>

#include "../kit/error.hpp"
#include "gpuvec/gpuvec.h"

namespace gpuvec {

inline void check_backend(gpuvec_backend backend) {
  if (backend != GPUVEC_BACKEND_HOST && backend != GPUVEC_BACKEND_CUDA) {
    throw_invalid_argument("unknown backend " + std::to_string(static_cast<int>(backend)));
  }
}

// The host backend has no threads or blocks, but it enforces the limits a CUDA
// launch has, so that code tested without a GPU fails the same way with one.
// On the CUDA backend the launch itself reports the error.
inline void check_threads_per_block(gpuvec_backend backend, int threads_per_block,
                                    bool reduction) {
  if (threads_per_block < 0) {
    throw_invalid_argument("threads_per_block must be positive (or 0 for the default), got " +
                           std::to_string(threads_per_block));
  }
  if (backend == GPUVEC_BACKEND_HOST && threads_per_block > GPUVEC_MAX_THREADS_PER_BLOCK) {
    throw Error(
        GPUVEC_ERROR_CUDA,
        "invalid configuration argument: threads_per_block=" + std::to_string(threads_per_block) +
            " exceeds the limit of " + std::to_string(GPUVEC_MAX_THREADS_PER_BLOCK),
        GPUVEC_CUDA_ERROR_INVALID_CONFIGURATION, "cudaErrorInvalidConfiguration");
  }
  // A block reduction combines whole warps.
  if (reduction && threads_per_block % 32 != 0 &&
      threads_per_block <= GPUVEC_MAX_THREADS_PER_BLOCK) {
    throw_invalid_argument("threads_per_block of a reduction must be a multiple of 32, got " +
                           std::to_string(threads_per_block));
  }
}

// The launch of a call (reduction: its blocks combine whole warps).
inline void check_launch(const gpuvec_launch* launch, bool reduction) {
  if (launch == nullptr) throw_invalid_argument("launch is a null pointer");
  check_backend(launch->backend);
  check_threads_per_block(launch->backend, launch->threads_per_block, reduction);
}

}  // namespace gpuvec

#endif  // GPUVEC_COMMON_CHECKS_HPP
