/* Scans, sorts and counts: NumPy's cumsum and cumprod, sort and argsort,
 * bincount and histogram, searchsorted, and the runs of a sorted array
 * (unique). Included by gpuvec/gpuvec.h.
 *
 * Every call works along the last dimension of its arrays (a 1-D array is
 * one row); moving another axis last is the caller's view. Arrays may have
 * any strides: the boundary copies an input into a dense C-order temporary
 * (converting it to the dtype the call reads) and computes an output whose
 * layout is not dense in a temporary first. On the host backend every array
 * is host memory; on the CUDA backend the arrays are all device memory, or
 * all host memory, which the host backend's loops then work on (these calls
 * move little data per element of work, and sending it over the bus would
 * cost more). Scalars are refused.
 *
 * Orders are NumPy's: NaN sorts after +inf (every NaN equal to every other),
 * -0.0 equals 0.0, and sorts are stable (kind="stable"). Integer results are
 * exact on both backends. Float scans: the host backend adds (multiplies)
 * each row in order, left to right, as NumPy does, so its results are
 * NumPy's bits; the CUDA backend scans in parallel (tiles, then the tiles'
 * totals), which rounds differently. */
#ifndef GPUVEC_SCAN_H
#define GPUVEC_SCAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpuvec_scan_op {
  GPUVEC_SCAN_SUM = 0, /* cumsum */
  GPUVEC_SCAN_PROD = 1 /* cumprod */
} gpuvec_scan_op;

/* out = the inclusive scan of x along the last dimension, computed in out's
 * dtype (x is converted to it first, as NumPy's dtype= does: integers wrap
 * around, a bool accumulator is a logical or / and). x and out have one
 * shape, of at least one dimension. */
gpuvec_status gpuvec_scan(gpuvec_scan_op op, const gpuvec_array* out, const gpuvec_array* x,
                          const gpuvec_launch* launch);

/* A stable sort of each row of x (along the last dimension): values
 * receives the sorted elements (x's dtype, x's shape), indices (int64, x's
 * shape) the position in its row of each, as argsort gives them. Either
 * output may be NULL, not both. x is not changed; values may be x itself. */
gpuvec_status gpuvec_sort(const gpuvec_array* values, const gpuvec_array* indices,
                          const gpuvec_array* x, const gpuvec_launch* launch);

/* counts[b] = the number (with weights: the sum of the weights) of the
 * elements of x in bin b, over all of x's elements. counts is 1-D, int64
 * without weights, float64 with them; weights (NULL, or of x's shape) is
 * read as float64.
 *   edges NULL (bincount): x is read as int64 and element x counts in bin x;
 *     values outside [0, len(counts)) are not counted.
 *   edges given (histogram): a 1-D array of len(counts) + 1 increasing
 *     edges, read as float64, and so is x; bin b holds
 *     edges[b] <= x < edges[b + 1], the last bin also x == edges[-1]; values
 *     outside, and NaN, are not counted.
 * counts is overwritten (not added to). On the CUDA backend bins are filled
 * with atomic adds, so weighted sums round in another order than NumPy's. */
gpuvec_status gpuvec_histogram(const gpuvec_array* counts, const gpuvec_array* x,
                               const gpuvec_array* weights, const gpuvec_array* edges,
                               const gpuvec_launch* launch);

/* out[i] (int64, v's shape) = where v[i] would be inserted into the sorted
 * 1-D array `sorted` to keep it sorted: before any equal elements (right 0,
 * NumPy's side="left") or after them (right 1). sorted and v have one dtype. */
gpuvec_status gpuvec_searchsorted(const gpuvec_array* out, const gpuvec_array* sorted,
                                  const gpuvec_array* v, int right, const gpuvec_launch* launch);

/* starts[i] (bool, 1-D like sorted) = whether element i of the sorted 1-D
 * array `sorted` begins a run of equal elements: i == 0, or sorted[i] is not
 * equal to sorted[i - 1] (all NaNs are equal here, as np.unique takes them). */
gpuvec_status gpuvec_sorted_runs(const gpuvec_array* starts, const gpuvec_array* sorted,
                                 const gpuvec_launch* launch);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_SCAN_H */
