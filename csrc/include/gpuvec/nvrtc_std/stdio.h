// <stdio.h> in a kernel compiled by NVRTC: device code's printf is CUDA's
// own, which NVRTC declares itself. Nothing else of stdio runs on a GPU.
#pragma once
