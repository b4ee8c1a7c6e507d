// The staging pipeline behind gpuvec_staged_* (see gpuvec/staged.h).
//
// Compiled by the host compiler (it launches no kernel itself: it calls the
// CUDA backend's launchers), so that its gather and scatter loops can use
// OpenMP threads.
#include <cuda_runtime.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../common/backends.hpp"
#include "../common/checks.hpp"
#include "../common/error.hpp"
#include "../host/walk.hpp"
#include "check.cuh"
#include "gpuvec/staged.h"
#include "staging.hpp"

namespace gpuvec::cuda {
namespace {

constexpr int kSlots = GPUVEC_STAGING_SLOTS;
constexpr size_t kChunkBytes = GPUVEC_STAGING_CHUNK_BYTES;
constexpr int kMaxOperands = 3;  // two inputs, and the output or the reduction's total
constexpr int kMaxDevices = 64;
constexpr int kMaxCopyThreads = 12;  // more did not copy faster on the 16-core GPU hosts measured

// One stage of the pipeline: pinned host memory and device memory for each
// operand, a stream, and an event marking the end of the chunk's work.
struct Slot {
  void* pinned[kMaxOperands] = {};
  void* device[kMaxOperands] = {};
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  int64_t chunk = -1;  // the chunk in flight in this slot, or -1
};

// The staging memory of one device. It lives as long as the process: freeing
// pinned memory while the driver shuts down at exit is not safe.
struct Stager {
  std::mutex mutex;
  bool ready = false;
  Slot slots[kSlots];

  void prepare() {
    if (ready) return;
    for (Slot& slot : slots) {
      for (int k = 0; k < kMaxOperands; ++k) {
        GPUVEC_CUDA_CHECK(cudaMallocHost(&slot.pinned[k], kChunkBytes));
        GPUVEC_CUDA_CHECK(cudaMalloc(&slot.device[k], kChunkBytes));
      }
      GPUVEC_CUDA_CHECK(cudaStreamCreateWithFlags(&slot.stream, cudaStreamNonBlocking));
      GPUVEC_CUDA_CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming));
    }
    ready = true;
  }

  // After a failure: wait for whatever is still queued and forget it.
  void drain() noexcept {
    for (Slot& slot : slots) {
      if (slot.stream != nullptr) cudaStreamSynchronize(slot.stream);
      slot.chunk = -1;
    }
  }
};

Stager& stager_of_current_device() {
  static Stager stagers[kMaxDevices];
  int device = 0;
  GPUVEC_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices) {
    throw Error(GPUVEC_ERROR_INTERNAL, "device ordinal beyond gpuvec's limit of 64 devices");
  }
  return stagers[device];
}

// Host threads that gather and scatter: three quarters of the cores, up to
// kMaxCopyThreads, or GPUVEC_COPY_THREADS when set.
int copy_threads() {
  static const int threads = [] {
    if (const char* env = std::getenv("GPUVEC_COPY_THREADS")) {
      const int n = std::atoi(env);
      if (n > 0) return n;
    }
#ifdef _OPENMP
    // Three quarters of the cores copy; the rest prefault fresh outputs.
    return std::max(1, std::min(kMaxCopyThreads, 3 * omp_get_max_threads() / 4));
#else
    return 1;
#endif
  }();
  return threads;
}

// A layout of one operand, out of the joint layout of all of them: the same
// dimensions in the same order, so linear index i means the same element.
template <int N>
Layout<1> operand_layout(const Layout<N>& joint, int k) {
  Layout<1> L;
  L.ndim = joint.ndim;
  L.size = joint.size;
  for (int d = 0; d < joint.ndim; ++d) {
    L.shape[d] = joint.shape[d];
    L.strides[0][d] = joint.strides[k][d];
  }
  return L;
}

Layout<1> contiguous_1(int64_t n) {
  Layout<1> L;
  L.ndim = 1;
  L.size = n;
  L.shape[0] = n;
  L.strides[0][0] = 1;
  return L;
}

template <int N>
Layout<N> contiguous(int64_t n) {
  Layout<N> L;
  L.ndim = 1;
  L.size = n;
  L.shape[0] = n;
  for (int k = 0; k < N; ++k) L.strides[k][0] = 1;
  return L;
}

// Runs body(begin, end) over [begin, end) split among the copy threads.
template <class Body>
void split(int64_t begin, int64_t end, size_t bytes, Body&& body) {
  const int threads = bytes >= (256 << 10) ? copy_threads() : 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    const int64_t per = (end - begin + nt - 1) / nt;
    const int64_t lo = begin + per * t;
    const int64_t hi = std::min(end, lo + per);
    if (lo < hi) body(lo, hi);
  }
}

// dst[i - begin] = To(element i of src), for i in [begin, end).
template <class To, class From>
void gather(const Layout<1>& L, const From* src, int64_t begin, int64_t end, To* dst) {
  split(begin, end, (end - begin) * sizeof(To), [&](int64_t lo, int64_t hi) {
    To* out = dst + (lo - begin);
    if (L.contiguous() && std::is_same_v<To, From>) {
      std::memcpy(out, src + lo, (hi - lo) * sizeof(To));
    } else if (L.contiguous()) {
      for (int64_t i = lo; i < hi; ++i) *out++ = static_cast<To>(src[i]);
    } else {
      host::walk(L, lo, hi,
                 [&](const int64_t(&off)[1]) { *out++ = static_cast<To>(src[off[0]]); });
    }
  });
}

// Element i of dst = src[i - begin], for i in [begin, end).
template <class T>
void scatter(const Layout<1>& L, const T* src, int64_t begin, int64_t end, T* dst) {
  split(begin, end, (end - begin) * sizeof(T), [&](int64_t lo, int64_t hi) {
    const T* in = src + (lo - begin);
    if (L.contiguous()) {
      std::memcpy(dst + lo, in, (hi - lo) * sizeof(T));
    } else {
      host::walk(L, lo, hi, [&](const int64_t(&off)[1]) { dst[off[0]] = *in++; });
    }
  });
}

// A fresh NumPy result has no memory behind it yet: the kernel maps and zeroes
// each page when it is first written, which, done inside the scatter, would
// cost more than the scatter itself. While the pipeline runs, spare cores ask
// the kernel to map the whole output ahead of it (MADV_POPULATE_WRITE faults
// pages in without changing what they hold, so it is safe beside the
// scatter). Where the kernel lacks it (before Linux 5.14) nothing happens.
class Prefaulter {
 public:
  Prefaulter(void* data, size_t bytes) {
#if defined(__linux__)
    constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE, missing from older headers
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const unsigned cores = std::thread::hardware_concurrency();
    const int spare = static_cast<int>(cores) - copy_threads();
    if (data == nullptr || bytes < (64u << 20) || spare < 2) return;
    const uintptr_t first = reinterpret_cast<uintptr_t>(data) / page * page;
    const uintptr_t last = reinterpret_cast<uintptr_t>(data) + bytes;
    const int n = std::min(spare, kMaxCopyThreads);
    const uintptr_t per = ((last - first) / n + page - 1) / page * page;
    for (int t = 0; t < n; ++t) {
      const uintptr_t lo = first + per * t;
      const uintptr_t hi = std::min(last, lo + per);
      if (lo >= hi) break;
      threads_.emplace_back([lo, hi] {
        madvise(reinterpret_cast<void*>(lo), hi - lo, kPopulateWrite);  // best effort
      });
    }
#else
    (void)data;
    (void)bytes;
#endif
  }
  ~Prefaulter() {
    for (std::thread& t : threads_) t.join();
  }
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;

 private:
  std::vector<std::thread> threads_;
};

void check_dtype(gpuvec_dtype dtype, const char* name) {
  if (dtype != GPUVEC_FLOAT32 && dtype != GPUVEC_FLOAT64) {
    throw_invalid_argument(std::string(name) + " has an unknown dtype code " +
                           std::to_string(static_cast<int>(dtype)));
  }
}

// An input as the pipeline reads it.
struct Input {
  const void* data;
  gpuvec_dtype dtype;
  Layout<1> layout;
};

// Host array h read as operand k of an op's joint layout.
template <int N>
Input input_of(const gpuvec_host_array& h, const Layout<N>& joint, int k) {
  check_dtype(h.dtype, "an input");
  const size_t itemsize = h.dtype == GPUVEC_FLOAT32 ? 4 : 8;
  const char* base = static_cast<const char*>(h.data);
  return {base + joint.offset[k] * itemsize, h.dtype, operand_layout(joint, k)};
}

template <class T>
void gather_input(const Input& in, int64_t begin, int64_t end, void* pinned) {
  T* dst = static_cast<T*>(pinned);
  if (in.dtype == GPUVEC_FLOAT32) {
    gather(in.layout, static_cast<const float*>(in.data), begin, end, dst);
  } else {
    gather(in.layout, static_cast<const double*>(in.data), begin, end, dst);
  }
}

int64_t chunk_count(int64_t size, int64_t chunk) { return (size + chunk - 1) / chunk; }

// Runs body(stager) on the current device's staging memory, prepared and held
// (one pipeline at a time). On failure, waits for the work still queued on the
// slots' streams before letting go, so that no later call refills a pinned
// buffer that a copy still reads or writes.
template <class Body>
void with_stager(Body&& body) {
  Stager& st = stager_of_current_device();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.prepare();
  try {
    body(st);
  } catch (...) {
    st.drain();
    throw;
  }
}

// Runs chunks 0 .. chunks - 1 over the slots in turn. issue(slot, c) queues
// chunk c's copies (and kernel) and records slot.done after them;
// retire(slot, c) runs once slot.done has happened: when the slot comes round
// again kSlots chunks later, or at the end. So the host prepares the next
// chunks while earlier ones are on the bus. When it returns, every chunk has
// been retired and nothing is left in flight.
template <class Issue, class Retire>
void rotate(Stager& st, int64_t chunks, Issue&& issue, Retire&& retire) {
  for (int64_t c = 0; c < chunks + kSlots; ++c) {
    Slot& slot = st.slots[c % kSlots];
    if (slot.chunk >= 0) {
      GPUVEC_CUDA_CHECK(cudaEventSynchronize(slot.done));
      retire(slot, slot.chunk);
      slot.chunk = -1;
    }
    if (c < chunks) {
      issue(slot, c);
      slot.chunk = c;
    }
  }
}

// The pipeline. For each chunk [begin, end) of `size` elements: gather the
// inputs into a slot's pinned buffers (operands 1, 2), copy them to the
// device, run(slot, m), and copy operand 0 back (m elements, or
// result_bytes when that is not 0); finish(chunk, begin, end, pinned
// operand 0) consumes it once the copy has landed, kSlots chunks later.
template <class T, class Run, class Finish>
void pipeline(int64_t size, const std::vector<Input>& inputs, size_t result_bytes, Run&& run,
              Finish&& finish) {
  const int64_t chunk = static_cast<int64_t>(kChunkBytes / sizeof(T));
  with_stager([&](Stager& st) {
    rotate(
        st, chunk_count(size, chunk),
        [&](Slot& slot, int64_t c) {
          const int64_t begin = c * chunk;
          const int64_t m = std::min(size, begin + chunk) - begin;
          for (size_t k = 0; k < inputs.size(); ++k) {
            gather_input<T>(inputs[k], begin, begin + m, slot.pinned[k + 1]);
            GPUVEC_CUDA_CHECK(cudaMemcpyAsync(slot.device[k + 1], slot.pinned[k + 1],
                                              m * sizeof(T), cudaMemcpyHostToDevice, slot.stream));
          }
          run(slot, m);
          const size_t back = result_bytes == 0 ? m * sizeof(T) : result_bytes;
          GPUVEC_CUDA_CHECK(cudaMemcpyAsync(slot.pinned[0], slot.device[0], back,
                                            cudaMemcpyDeviceToHost, slot.stream));
          GPUVEC_CUDA_CHECK(cudaEventRecord(slot.done, slot.stream));
        },
        [&](Slot& slot, int64_t c) {
          const int64_t begin = c * chunk;
          finish(c, begin, std::min(size, begin + chunk), slot.pinned[0]);
        });
  });
}

// Upload and download copy on the caller's stream rather than the slots' own:
// the stream that allocated the device memory and that the op then runs on,
// so that the allocation, the copies and the kernel are ordered with no
// further synchronization. On failure, what was queued there is waited for
// too: those copies may still be reading or writing the pinned buffers.
template <class Body>
void on_caller_stream(cudaStream_t stream, Body&& body) {
  try {
    body();
  } catch (...) {
    cudaStreamSynchronize(stream);  // best effort: the first error is the one reported
    throw;
  }
}

// dst[i] = To(element i of `in`), for the `size` elements of in.layout in C
// order, copied on `stream`: each chunk is gathered and converted into a
// pinned buffer by the copy threads, then copied while the next one is
// gathered. The float64 -> float32 cast thus costs no pass of its own, and a
// float32 result crosses the bus at half the size.
template <class To>
void upload(const Input& in, int64_t size, To* dst, cudaStream_t stream) {
  const int64_t chunk = static_cast<int64_t>(kChunkBytes / sizeof(To));
  with_stager([&](Stager& st) {
    on_caller_stream(stream, [&] {
      rotate(
          st, chunk_count(size, chunk),
          [&](Slot& slot, int64_t c) {
            const int64_t begin = c * chunk;
            const int64_t end = std::min(size, begin + chunk);
            gather_input<To>(in, begin, end, slot.pinned[0]);
            GPUVEC_CUDA_CHECK(cudaMemcpyAsync(dst + begin, slot.pinned[0],
                                              (end - begin) * sizeof(To), cudaMemcpyHostToDevice,
                                              stream));
            GPUVEC_CUDA_CHECK(cudaEventRecord(slot.done, stream));
          },
          [](Slot&, int64_t) {});  // nothing comes back
    });
  });
}

// The reverse, for raw bytes: each chunk is copied from the device into a
// pinned buffer on `stream`, then out of it by the copy threads while the
// next chunks are on the bus.
void download(char* host, const char* device, int64_t nbytes, cudaStream_t stream) {
  const int64_t chunk = static_cast<int64_t>(kChunkBytes);
  Prefaulter prefault(host, nbytes);
  with_stager([&](Stager& st) {
    on_caller_stream(stream, [&] {
      rotate(
          st, chunk_count(nbytes, chunk),
          [&](Slot& slot, int64_t c) {
            const int64_t begin = c * chunk;
            const int64_t end = std::min(nbytes, begin + chunk);
            GPUVEC_CUDA_CHECK(cudaMemcpyAsync(slot.pinned[0], device + begin, end - begin,
                                              cudaMemcpyDeviceToHost, stream));
            GPUVEC_CUDA_CHECK(cudaEventRecord(slot.done, stream));
          },
          [&](Slot& slot, int64_t c) {
            const int64_t begin = c * chunk;
            const int64_t end = std::min(nbytes, begin + chunk);
            const char* in = static_cast<const char*>(slot.pinned[0]);
            split(begin, end, end - begin, [&](int64_t lo, int64_t hi) {
              std::memcpy(host + lo, in + (lo - begin), hi - lo);
            });
          });
    });
  });
}

// An elementwise op: operand 0 of the joint layout is out, then the inputs.
template <class T, int N, class Kernel>
void staged_map(int ndim, const int64_t* shape, const gpuvec_host_array* hosts, void* out,
                const int64_t* out_strides, Kernel&& kernel) {
  const int64_t* strides[N];
  strides[0] = out_strides;
  for (int k = 1; k < N; ++k) strides[k] = hosts[k - 1].strides;
  const Layout<N> joint = simplify_layout<N>(ndim, shape, strides);
  if (joint.size == 0) return;
  std::vector<Input> inputs;
  for (int k = 1; k < N; ++k) inputs.push_back(input_of(hosts[k - 1], joint, k));
  T* result = static_cast<T*>(out) + joint.offset[0];
  const Layout<1> out_layout = operand_layout(joint, 0);
  // The output's span, for the prefaulter: from its lowest to its highest element.
  int64_t low = 0, high = 0;
  for (int d = 0; d < joint.ndim; ++d) {
    const int64_t reach = (joint.shape[d] - 1) * joint.strides[0][d];
    (reach < 0 ? low : high) += reach;
  }
  Prefaulter prefault(result + low, (high - low + 1) * sizeof(T));
  pipeline<T>(
      joint.size, inputs, 0, [&](Slot& slot, int64_t m) { kernel(slot, m); },
      [&](int64_t, int64_t begin, int64_t end, const void* pinned) {
        scatter(out_layout, static_cast<const T*>(pinned), begin, end, result);
      });
}

// A reduction to one double: each chunk's total comes back on its own and
// the totals are added pairwise at the end (a fixed order: deterministic).
template <class T, int N, class Kernel>
double staged_total(int ndim, const int64_t* shape, const gpuvec_host_array* hosts,
                    Kernel&& kernel) {
  const int64_t* strides[N];
  for (int k = 0; k < N; ++k) strides[k] = hosts[k].strides;
  const Layout<N> joint = simplify_layout<N>(ndim, shape, strides);
  if (joint.size == 0) return 0.0;
  std::vector<Input> inputs;
  for (int k = 0; k < N; ++k) inputs.push_back(input_of(hosts[k], joint, k));
  std::vector<double> totals;
  pipeline<T>(
      joint.size, inputs, sizeof(double), [&](Slot& slot, int64_t m) { kernel(slot, m); },
      [&](int64_t c, int64_t, int64_t, const void* pinned) {
        if (static_cast<int64_t>(totals.size()) <= c) totals.resize(c + 1);
        totals[c] = *static_cast<const double*>(pinned);
      });
  while (totals.size() > 1) {  // pairwise
    std::vector<double> next((totals.size() + 1) / 2);
    for (size_t i = 0; i < next.size(); ++i) {
      next[i] = totals[2 * i] + (2 * i + 1 < totals.size() ? totals[2 * i + 1] : 0.0);
    }
    totals.swap(next);
  }
  return totals[0];
}

template <class T>
const T* dev(const Slot& slot, int k) {
  return static_cast<const T*>(slot.device[k]);
}

template <class T>
T* dev_out(const Slot& slot) {
  return static_cast<T*>(slot.device[0]);
}

// Calls body(T{}) with T the compute type: float or double.
template <class Body>
void with_compute_type(gpuvec_dtype compute, Body&& body) {
  check_dtype(compute, "compute");
  if (compute == GPUVEC_FLOAT32) {
    body(float{});
  } else {
    body(double{});
  }
}

// An elementwise op on host arrays: in the compute type T (float or double),
// staged_map<T, N> runs launch(T{}, slot, m) on each chunk of m elements.
template <int N, class Launch>
gpuvec_status staged_elementwise(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                 const gpuvec_host_array* hosts, void* out,
                                 const int64_t* out_strides, int threads_per_block,
                                 Launch&& launch) {
  return guard([&] {
    check_threads_per_block(GPUVEC_BACKEND_CUDA, threads_per_block, false);
    with_compute_type(compute, [&](auto zero) {
      using T = decltype(zero);
      staged_map<T, N>(ndim, shape, hosts, out, out_strides,
                       [&](Slot& slot, int64_t m) { launch(zero, slot, m); });
    });
  });
}

}  // namespace
}  // namespace gpuvec::cuda

using gpuvec::check_pointer;
using gpuvec::check_threads_per_block;
using gpuvec::guard;
using namespace gpuvec::cuda;  // NOLINT: the helpers above, in this file only

extern "C" {

gpuvec_status gpuvec_staged_binary(gpuvec_binary_op op, gpuvec_dtype compute, int ndim,
                                   const int64_t* shape, gpuvec_host_array a, gpuvec_host_array b,
                                   void* out, const int64_t* out_strides, int threads_per_block) {
  const gpuvec_host_array hosts[2] = {a, b};
  return staged_elementwise<3>(compute, ndim, shape, hosts, out, out_strides, threads_per_block,
                               [&](auto zero, Slot& slot, int64_t m) {
                                 using T = decltype(zero);
                                 gpuvec::cuda::binary<T>(op, contiguous<3>(m), dev_out<T>(slot),
                                                         dev<T>(slot, 1), dev<T>(slot, 2),
                                                         threads_per_block, slot.stream);
                               });
}

gpuvec_status gpuvec_staged_scale(gpuvec_dtype compute, double alpha, int ndim,
                                  const int64_t* shape, gpuvec_host_array x, void* out,
                                  const int64_t* out_strides, int threads_per_block) {
  return staged_elementwise<2>(compute, ndim, shape, &x, out, out_strides, threads_per_block,
                               [&](auto zero, Slot& slot, int64_t m) {
                                 using T = decltype(zero);
                                 gpuvec::cuda::scale<T>(contiguous<2>(m), dev_out<T>(slot),
                                                        static_cast<T>(alpha), dev<T>(slot, 1),
                                                        threads_per_block, slot.stream);
                               });
}

gpuvec_status gpuvec_staged_axpy(gpuvec_dtype compute, double alpha, int ndim,
                                 const int64_t* shape, gpuvec_host_array x, gpuvec_host_array y,
                                 void* out, const int64_t* out_strides, int threads_per_block) {
  const gpuvec_host_array hosts[2] = {x, y};
  return staged_elementwise<3>(
      compute, ndim, shape, hosts, out, out_strides, threads_per_block,
      [&](auto zero, Slot& slot, int64_t m) {
        using T = decltype(zero);
        gpuvec::cuda::axpy<T>(contiguous<3>(m), dev_out<T>(slot), static_cast<T>(alpha),
                              dev<T>(slot, 1), dev<T>(slot, 2), threads_per_block, slot.stream);
      });
}

gpuvec_status gpuvec_staged_axpby(gpuvec_dtype compute, double alpha, double beta, int ndim,
                                  const int64_t* shape, gpuvec_host_array x, gpuvec_host_array y,
                                  void* out, const int64_t* out_strides, int threads_per_block) {
  const gpuvec_host_array hosts[2] = {x, y};
  return staged_elementwise<3>(compute, ndim, shape, hosts, out, out_strides, threads_per_block,
                               [&](auto zero, Slot& slot, int64_t m) {
                                 using T = decltype(zero);
                                 gpuvec::cuda::axpby<T>(contiguous<3>(m), dev_out<T>(slot),
                                                        static_cast<T>(alpha), dev<T>(slot, 1),
                                                        static_cast<T>(beta), dev<T>(slot, 2),
                                                        threads_per_block, slot.stream);
                               });
}

gpuvec_status gpuvec_staged_unary(gpuvec_unary_op op, gpuvec_dtype compute, int ndim,
                                  const int64_t* shape, gpuvec_host_array x, void* out,
                                  const int64_t* out_strides, int threads_per_block) {
  return staged_elementwise<2>(compute, ndim, shape, &x, out, out_strides, threads_per_block,
                               [&](auto zero, Slot& slot, int64_t m) {
                                 using T = decltype(zero);
                                 gpuvec::cuda::unary<T>(op, contiguous<2>(m), dev_out<T>(slot),
                                                        dev<T>(slot, 1), threads_per_block,
                                                        slot.stream);
                               });
}

gpuvec_status gpuvec_staged_sum(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                gpuvec_host_array x, double* result, int threads_per_block) {
  return guard([&] {
    check_threads_per_block(GPUVEC_BACKEND_CUDA, threads_per_block, true);
    with_compute_type(compute, [&](auto zero) {
      using T = decltype(zero);
      *result = staged_total<T, 1>(ndim, shape, &x, [&](Slot& slot, int64_t m) {
        sum_into_double<T>(contiguous_1(m), dev<T>(slot, 1), static_cast<double*>(slot.device[0]),
                           threads_per_block, slot.stream);
      });
    });
  });
}

gpuvec_status gpuvec_staged_dot(gpuvec_dtype compute, int ndim, const int64_t* shape,
                                gpuvec_host_array x, gpuvec_host_array y, double* result,
                                int threads_per_block) {
  return guard([&] {
    check_threads_per_block(GPUVEC_BACKEND_CUDA, threads_per_block, true);
    const gpuvec_host_array hosts[2] = {x, y};
    with_compute_type(compute, [&](auto zero) {
      using T = decltype(zero);
      *result = staged_total<T, 2>(ndim, shape, hosts, [&](Slot& slot, int64_t m) {
        dot_into_double<T>(contiguous<2>(m), dev<T>(slot, 1), dev<T>(slot, 2),
                           static_cast<double*>(slot.device[0]), threads_per_block, slot.stream);
      });
    });
  });
}

gpuvec_status gpuvec_staged_upload(gpuvec_dtype to, int ndim, const int64_t* shape,
                                   gpuvec_host_array src, void* device_dst, gpuvec_stream stream) {
  return guard([&] {
    check_dtype(to, "to");
    check_dtype(src.dtype, "src");
    // C order over `shape`, as the destination is laid out: the source's
    // dimensions are merged where they can be, but never reordered.
    const gpuvec::Layout<1> layout = gpuvec::ordered_layout(ndim, shape, src.strides);
    check_pointer(src.data, layout.size, "src");
    check_pointer(device_dst, layout.size, "device_dst");
    if (layout.size == 0) return;
    with_compute_type(to, [&](auto zero) {
      using To = decltype(zero);
      upload<To>({src.data, src.dtype, layout}, layout.size, static_cast<To*>(device_dst),
                 as_cuda_stream(stream));
    });
  });
}

gpuvec_status gpuvec_staged_download(void* host_dst, const void* device_src, size_t nbytes,
                                     gpuvec_stream stream) {
  return guard([&] {
    const int64_t n = static_cast<int64_t>(nbytes);
    check_pointer(host_dst, n, "host_dst");
    check_pointer(device_src, n, "device_src");
    if (n == 0) return;
    download(static_cast<char*>(host_dst), static_cast<const char*>(device_src), n,
             as_cuda_stream(stream));
  });
}

}  // extern "C"
