// <device_functions.h> in a kernel compiled for the host emulation: what it declares for
// device code (vector types, built-in variables, runtime types), gpuvec's
// emulation header defines, and it is included already.
#pragma once
#include <gpuvec/cuda_emulation.h>
