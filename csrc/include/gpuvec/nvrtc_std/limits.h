// <limits.h> in a kernel compiled by NVRTC: libcu++'s INT_MAX and the like.
#pragma once
#include <cuda/std/climits>
