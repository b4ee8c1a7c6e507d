// libcu++'s names, seen as std:: names in a kernel compiled by NVRTC.
//
// Device code cannot use the host's C++ library, and NVRTC ships none; the
// CUDA toolkit's CCCL ships libcu++, which implements the same names in
// namespace cuda::std for device code. A using-directive makes a kernel's
// std::is_same, std::sqrt or std::numeric_limits find them; a name NVRTC
// declares in namespace std itself (std::move, std::initializer_list) is
// found first, so nothing is ambiguous.
#pragma once
namespace cuda {
namespace std {}
}  // namespace cuda
namespace std {
using namespace cuda::std;
}  // namespace std
