// <stdint.h> in a kernel compiled by NVRTC: libcu++'s fixed-width integer
// types, in the global namespace as C has them.
#pragma once
#include <cuda/std/cstdint>
using cuda::std::int16_t;
using cuda::std::int32_t;
using cuda::std::int64_t;
using cuda::std::int8_t;
using cuda::std::intptr_t;
using cuda::std::uint16_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;
using cuda::std::uint8_t;
using cuda::std::uintptr_t;
