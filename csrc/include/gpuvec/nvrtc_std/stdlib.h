// <stdlib.h> in a kernel compiled by NVRTC: device code's malloc and free
// are CUDA's own, which NVRTC declares itself; abs and the like come from
// libcu++. rand() has no device version: a kernel draws random numbers from
// <gpuvec/random.h> or curand_kernel.h instead.
#pragma once
#include <cuda/std/cstdlib>
