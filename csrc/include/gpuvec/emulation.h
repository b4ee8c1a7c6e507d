/* The contract between gpuvec's host runtime and a kernel library: a user's
 * CUDA C++ compiled by the host C++ compiler against gpuvec/cuda_emulation.h.
 *
 * The library links to nothing of gpuvec (gpuvec's symbols are hidden): the
 * runtime hands each entry a block context whose `runtime` field is a table
 * of function pointers, and every call into the runtime goes through it.
 *
 * For each kernel the library exports one entry,
 *     void entry(gpuvec_emulation_block* block, void* const* params);
 * which runs one block. params[k] points at argument k: for a pointer
 * parameter at a gpuvec_emulation_pointer (whose first member is the pointer
 * itself, so params[k] also points at the pointer value, as cudaLaunchKernel's
 * params do), for a value parameter at the bytes of its value.
 *
 * The library also exports gpuvec_emulation_abi (an unsigned int equal to
 * GPUVEC_EMULATION_VERSION when it was built), which the runtime checks when
 * it loads the library. Change the version with any change to this file.
 */
#ifndef GPUVEC_EMULATION_H
#define GPUVEC_EMULATION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUVEC_EMULATION_VERSION 3

typedef struct gpuvec_emulation_dim3 {
  uint32_t x, y, z;
} gpuvec_emulation_dim3;

/* What a pointer argument points at. A kernel compiled checked reads all of
 * it (gpuvec_checked<T>); a plain T* parameter only `data`. */
typedef struct gpuvec_emulation_pointer {
  void* data;    /* first, so that a pointer to this struct points at the pointer */
  int64_t count; /* elements of `itemsize` bytes at data */
  int64_t itemsize;
  const char* name; /* the parameter's name, for bounds-check messages */
} gpuvec_emulation_pointer;

/* The operations of warp_exchange. */
#define GPUVEC_EMULATION_WARP_SYNC 0   /* only meet: __syncwarp */
#define GPUVEC_EMULATION_WARP_READ 1   /* return the value lane `src` brought: __shfl*_sync */
#define GPUVEC_EMULATION_WARP_BALLOT 2 /* bit k set where lane k brought a value != 0 */

/* What went wrong, for fail (the message says more). */
#define GPUVEC_EMULATION_FAILURE_ASSERT 1          /* assert() failed: its text */
#define GPUVEC_EMULATION_FAILURE_TRAP 2            /* __trap() */
#define GPUVEC_EMULATION_FAILURE_EXCEPTION 3       /* a C++ exception left the kernel: what() */
#define GPUVEC_EMULATION_FAILURE_NOT_COOPERATIVE 4 /* a barrier in a block run as a plain loop */
/* Found by checked mode (gpuvec/cuda_emulation.h); the message says where. */
#define GPUVEC_EMULATION_FAILURE_OUT_OF_BOUNDS 5 /* an index outside an array */
#define GPUVEC_EMULATION_FAILURE_RACE 6          /* a shared memory race */
#define GPUVEC_EMULATION_FAILURE_BARRIER 7       /* barrier divergence */
#define GPUVEC_EMULATION_FAILURE_UNINITIALIZED 8 /* a read of shared memory never written */
#define GPUVEC_EMULATION_FAILURE_WARP_MASK 9     /* a warp intrinsic's mask */

struct gpuvec_emulation_block;

/* The runtime's services. Each takes the block context of the calling thread.
 * Barriers count only threads that have not returned from the kernel yet, so
 * a thread that exits early never holds the others back. */
typedef struct gpuvec_emulation_runtime {
  uint32_t version; /* GPUVEC_EMULATION_VERSION of the runtime */

  /* Cooperative blocks only: runs thread(arg, t) for every thread t of the
   * block (t = x + y * block_dim.x + z * block_dim.x * block_dim.y), each on a
   * fiber of its own, and returns when all have returned, or when the block
   * failed (deadlock). */
  void (*run_threads)(struct gpuvec_emulation_block* block, void (*thread)(void* arg, uint32_t t),
                      void* arg);

  /* __syncthreads: waits until every live thread of the block has arrived;
   * returns how many of them brought predicate != 0. */
  uint32_t (*sync_threads)(struct gpuvec_emulation_block* block, int predicate);

  /* The warp barrier of the warp intrinsics: waits until every live lane of
   * `mask` (of the caller's warp) has arrived, each bringing `value`, then
   * returns what `op` says (GPUVEC_EMULATION_WARP_*). For READ a lane that
   * names a `src` lane outside the meeting gets its own value back. */
  uint64_t (*warp_exchange)(struct gpuvec_emulation_block* block, int op, uint32_t mask,
                            uint64_t value, uint32_t src);

  /* The lanes of the caller's warp that have not returned from the kernel. */
  uint32_t (*active_mask)(struct gpuvec_emulation_block* block);

  /* A checked access out of bounds: records the launch's first fault, from
   * which the launch fails with GPUVEC_ERROR_INDEX. The caller runs on. */
  void (*index_fault)(struct gpuvec_emulation_block* block, const char* name, int64_t index,
                      int64_t length, gpuvec_emulation_dim3 thread);

  /* Records a failure of the launch (GPUVEC_EMULATION_FAILURE_*, with a
   * message the runtime completes with the thread and block). The caller then
   * stops its thread. */
  void (*fail)(struct gpuvec_emulation_block* block, int failure, const char* message,
               gpuvec_emulation_dim3 thread);

  /* Cooperative blocks only: ends the calling thread as if it had returned
   * from the kernel. Never returns. */
  void (*exit_thread)(struct gpuvec_emulation_block* block);

  /* The calling thread spins: it waits for another thread to change memory
   * (it read the same value again and again through a volatile read or an
   * atomic, or called __nanosleep or __threadfence in a loop). Lets the
   * block's other threads run, and returns when the caller's turn comes
   * again. `changes` counts the reads of the calling OS thread, through the
   * calls that spin, that saw something new. If no thread of the launch can
   * ever change what the caller waits for, fails the launch, naming `kernel`
   * and file:line, and never returns. In a block run as a plain loop (and in
   * a context without threads) it does nothing. */
  void (*spin)(struct gpuvec_emulation_block* block, uint64_t changes, const char* kernel,
               const char* file, uint32_t line);
} gpuvec_emulation_runtime;

/* One block of a launch, as an entry sees it. The runtime owns it; an OS
 * thread runs one block at a time, so it is the same for all the block's
 * threads.
 *
 * dynamic_shared ends at a page that faults when touched: an access past
 * dynamic_shared_size bytes (any access, for a launch with no dynamic shared
 * memory, where dynamic_shared is not NULL but points at that page) fails
 * the launch with cudaErrorIllegalAddress.
 *
 * An ElementwiseKernel's or a ReductionKernel's library (gpuvec/map.hpp's
 * GPUVEC_MAP_ENTRY, gpuvec/reduce.hpp's GPUVEC_REDUCE_ENTRY, built against
 * this header) gets a context without threads: block_dim is 0 x 0 x 0, only
 * fail and index_fault may be called through it, and it is shared by every
 * OS thread that runs a part of the call. */
typedef struct gpuvec_emulation_block {
  const gpuvec_emulation_runtime* runtime;
  gpuvec_emulation_dim3 grid_dim;
  gpuvec_emulation_dim3 block_dim;
  gpuvec_emulation_dim3 block_idx;
  void* dynamic_shared; /* dynamic_shared_size bytes, 16-byte aligned, this block's own */
  uint64_t dynamic_shared_size;
  int cooperative;    /* 1: run the threads as fibers (run_threads); 0: as a plain loop */
  void* runtime_data; /* the runtime's own state: opaque to the kernel library */
} gpuvec_emulation_block;

/* The type of an entry. */
typedef void (*gpuvec_emulation_entry)(gpuvec_emulation_block* block, void* const* params);

/* An ElementwiseKernel's entry: out = f(in...) over the linear indices
 * [begin, end) of *layout (gpuvec/map.hpp). A failure of the user's code is
 * recorded through context->runtime->fail and ends the range: the entry then
 * returns 1; 2 when memory ran out (std::bad_alloc); else 0. A
 * ReductionKernel's entry (gpuvec/reduce.hpp) finds the context in the
 * HostReduceCall it is given. */
typedef int (*gpuvec_emulation_map_entry)(gpuvec_emulation_block* context, const void* layout,
                                          void* out, const void* const* in, int64_t begin,
                                          int64_t end);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_EMULATION_H */
