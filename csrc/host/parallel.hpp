// Loops of independent items for the host backend, on a small pool of
// threads of gpuvec's own (parallel.cpp) where the work pays for them.
//
// Why not OpenMP: a parallel region ends in a barrier that waits for every
// thread of the team, started or not. On a machine that other programs
// share, a thread whose core is busy may not run for a whole time slice
// (milliseconds), and a 1 ms op then takes 5. Here the calling thread takes
// items too, and at the end waits only for items that a worker has already
// started: a worker that wakes late finds nothing left and goes back to sleep.
#ifndef GPUVEC_HOST_PARALLEL_HPP
#define GPUVEC_HOST_PARALLEL_HPP

#include <stdint.h>

#include <type_traits>

namespace gpuvec::host {

// How many pieces a loop is cut into per thread: several, so that a thread
// that gets less of its core takes fewer of them.
constexpr int64_t kPiecesPerThread = 8;

// The threads that for_each(count, parallel, f) may use: 1 where `parallel`
// is false, else the calling thread and the pool's workers. Their number is
// GPUVEC_NUM_THREADS where it is set, else the cores this process may run on.
int workers(bool parallel);

// Runs item(context, i, thread) for i in [0, count) on the calling thread
// and the pool's workers, and returns when all have run. thread < workers(true)
// numbers the thread that runs item i; i is claimed by one thread only.
using Item = void (*)(void* context, int64_t i, int thread);
void run_items(int64_t count, Item item, void* context);

// How many pieces of at least `least` of n items to cut a loop into for
// `threads` threads: one where there is only one thread.
inline int64_t pieces(int64_t n, int threads, int64_t least) {
  if (threads <= 1 || n < 2 * least) return 1;
  const int64_t wanted = kPiecesPerThread * threads;
  return n / least < wanted ? n / least : wanted;
}

// Where piece p of the `count` nearly equal pieces of [0, n) begins (p ==
// count: n): each piece has n / count items, the first n % count one more.
inline int64_t piece_begin(int64_t n, int64_t count, int64_t p) {
  const int64_t size = n / count, extra = n % count;
  return p * size + (p < extra ? p : extra);
}

// Runs body(begin, end, thread) over `count` ranges that cut [0, n) into
// nearly equal parts (piece_begin; on this thread alone where count is 1).
template <class Body>
void in_pieces(int64_t n, int64_t count, Body&& body) {
  if (count <= 1) {
    body(int64_t{0}, n, 0);
    return;
  }
  struct Job {
    int64_t n, count;
    std::remove_reference_t<Body>* body;
  } job{n, count, &body};
  run_items(
      count,
      [](void* context, int64_t piece, int thread) {
        const Job& j = *static_cast<const Job*>(context);
        (*j.body)(piece_begin(j.n, j.count, piece), piece_begin(j.n, j.count, piece + 1), thread);
      },
      &job);
}

// Runs f(i, t) for i in [0, count), where t < workers(parallel) numbers the
// thread that runs it (for per-thread workspace): on the pool where
// `parallel` says the work pays for waking it, else on this thread alone.
// Each item must write its own results, so that the answer does not depend
// on which thread took which; f must not throw (a worker has nowhere to send
// an exception).
template <class F>
void for_each(int64_t count, bool parallel, F&& f) {
  in_pieces(count, pieces(count, workers(parallel), 1), [&](int64_t begin, int64_t end, int t) {
    for (int64_t i = begin; i < end; ++i) f(i, t);
  });
}

}  // namespace gpuvec::host

#endif  // GPUVEC_HOST_PARALLEL_HPP
