// Reductions that the staging pipeline runs on each chunk: the chunk's total
// in double, so that float32 chunks lose nothing before the final sum.
#ifndef GPUVEC_CUDA_STAGING_HPP
#define GPUVEC_CUDA_STAGING_HPP

#include "gpuvec/layout.hpp"
#include "gpuvec/runtime.h"

namespace gpuvec::cuda {

template <class T>
void sum_into_double(const Layout<1>& layout, const T* x, double* result, int threads_per_block,
                     gpuvec_stream stream);
template <class T>
void dot_into_double(const Layout<2>& layout, const T* x, const T* y, double* result,
                     int threads_per_block, gpuvec_stream stream);

}  // namespace gpuvec::cuda

#endif  // GPUVEC_CUDA_STAGING_HPP
