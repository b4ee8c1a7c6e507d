// <assert.h> in a kernel compiled by NVRTC: `assert` is NVRTC's own (a
// failed assert stops the kernel with cudaErrorAssert).
#pragma once
