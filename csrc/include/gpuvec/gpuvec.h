/* The gpuvec C ABI: include this one header. */
#ifndef GPUVEC_GPUVEC_H
#define GPUVEC_GPUVEC_H

#include "gpuvec/cast.h"
#include "gpuvec/ops.h"
#include "gpuvec/reduce.h"
#include "gpuvec/runtime.h"
#include "gpuvec/staged.h"
#include "gpuvec/status.h"
#include "gpuvec/unary.h"

#endif /* GPUVEC_GPUVEC_H */
