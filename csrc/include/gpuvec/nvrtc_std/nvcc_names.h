// Names a kernel has under nvcc and not under NVRTC, included before a
// user's source on NVRTC (--pre-include).
//
// nvcc compiles a .cu file with the host's headers, and glibc's
// <sys/types.h> among them gives every kernel `uint`, `ushort` and `ulong`,
// which course code uses. NVRTC has no host headers; the host backend's
// compiler has glibc's, so this file is NVRTC's alone.
#pragma once
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
