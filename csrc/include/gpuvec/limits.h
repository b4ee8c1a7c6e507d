/* The ABI's fixed limits, on their own so that the kernel headers that NVRTC
 * compiles (gpuvec/layout.hpp, gpuvec/map.hpp, gpuvec/reduce.hpp) can use them
 * without the rest of the C ABI and its standard headers. */
#ifndef GPUVEC_LIMITS_H
#define GPUVEC_LIMITS_H

#define GPUVEC_MAX_NDIM 32
/* The inputs of gpuvec's own elementwise ops (gpuvec_elementwise). */
#define GPUVEC_MAX_INPUTS 3
/* The inputs of an elementwise kernel compiled from the map templates
 * (gpuvec_map): a user's ElementwiseKernel. */
#define GPUVEC_MAX_MAP_INPUTS 8
/* The largest block of threads a launch may ask for (CUDA's limit). */
#define GPUVEC_MAX_THREADS_PER_BLOCK 1024

#endif /* GPUVEC_LIMITS_H */
