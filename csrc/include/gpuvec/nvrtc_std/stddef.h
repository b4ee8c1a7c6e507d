// <stddef.h> in a kernel compiled by NVRTC: size_t, ptrdiff_t and NULL.
#pragma once
#include <cuda/std/cstddef>
using cuda::std::ptrdiff_t;
using cuda::std::size_t;
