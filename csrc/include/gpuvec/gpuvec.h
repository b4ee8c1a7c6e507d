/* The gpuvec C ABI: include this one header. */
#ifndef GPUVEC_GPUVEC_H
#define GPUVEC_GPUVEC_H

#include "gpuvec/ops.h"
#include "gpuvec/runtime.h"
#include "gpuvec/status.h"

#endif /* GPUVEC_GPUVEC_H */
