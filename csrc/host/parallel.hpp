// Loops of independent items for the host reductions, on OpenMP's threads
// where the work pays for them.
#ifndef GPUVEC_HOST_PARALLEL_HPP
#define GPUVEC_HOST_PARALLEL_HPP

#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gpuvec::host {

// The threads that for_each(count, parallel, f) may use.
inline int workers(bool parallel) {
#ifdef _OPENMP
  return parallel ? omp_get_max_threads() : 1;
#else
  (void)parallel;
  return 1;
#endif
}

// Runs f(i, t) for i in [0, count), where t < workers(parallel) numbers the
// thread that runs it (for per-thread workspace): on OpenMP's threads where
// `parallel` says the work pays for starting them, else on this thread
// without entering OpenMP at all. Items are handed out a few at a time as
// threads come for them, not split up front: on a machine that other
// programs share, a thread that gets less of its core then takes less of the
// work. Each item must write its own results, so that the answer does not
// depend on which thread took which; f must not throw.
template <class F>
void for_each(int64_t count, bool parallel, F&& f) {
#ifdef _OPENMP
  if (parallel && count > 1) {
    const int64_t threads = omp_get_max_threads();
    const int64_t grain = count / (8 * threads) > 1 ? count / (8 * threads) : 1;
#pragma omp parallel for schedule(dynamic, grain)
    for (int64_t i = 0; i < count; ++i) f(i, omp_get_thread_num());
    return;
  }
#endif
  for (int64_t i = 0; i < count; ++i) f(i, 0);
}

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_PARALLEL_HPP
