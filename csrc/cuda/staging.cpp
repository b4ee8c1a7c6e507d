// The staging pipeline: host (NumPy) arrays on the GPU through pinned
// buffers (the cuda::staged_* functions of csrc/kit/backends.hpp).
//
// The data is cut into chunks. For each chunk, host threads gather the
// operands' elements (following their strides, converting float64 <-> float32
// on the way) into pinned buffers; the chunk is copied to the device, the
// kernel runs, and the result is copied back and scattered into `out`. Chunks
// rotate over a few streams, so copies in, kernels and copies out of
// neighbouring chunks overlap. The cast is part of the gather, which the data
// needs anyway to reach pinned memory: it is never a pass of its own, and
// data cast to float32 crosses the bus at half the size.
//
// upload and download move whole arrays the same way (an upload gathers and
// casts too, a download scatters and casts), for the work that needs its
// operands in device memory at once: axis reductions, gpuvec_copy.
//
// Staging memory is fixed: kSlots slots of kChunkBytes per operand, pinned on
// the host and allocated on the device once per device, whatever the size of
// the data. Calls are serialized (one pipeline at a time per device) and
// synchronous: when one returns, its result is in host memory.
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

#include "../kit/backends.hpp"
#include "../kit/dtype.hpp"
#include "../kit/error.hpp"
#include "check.cuh"
#include "gpuvec/walk.hpp"
#include "known_streams.hpp"
#include "pinned_results.hpp"
#include "staging.hpp"

namespace gpuvec::cuda {
namespace {

constexpr int kSlots = 3;
constexpr size_t kChunkBytes = 4 << 20;
constexpr int kMaxOperands = 1 + GPUVEC_MAX_INPUTS;  // the output (or a total), then the inputs
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
      note_created_stream(slot.stream);  // never destroyed: its reductions keep their scratch
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

// Runs body(begin, end) over [begin, end) split among the copy threads.
template <class Body>
void split(int64_t begin, int64_t end, size_t bytes, Body&& body) {
  const int threads = bytes >= (256 << 10) ? copy_threads() : 1;
  if (threads == 1) {  // no OpenMP region at all: a small chunk is done before a team starts
    body(begin, end);
    return;
  }
#pragma omp parallel num_threads(threads)
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
      for (int64_t i = lo; i < hi; ++i) *out++ = convert<To>(src[i]);
    } else {
      walk(L, lo, hi, [&](const int64_t(&off)[1]) { *out++ = convert<To>(src[off[0]]); });
    }
  });
}

// Element i of dst = To(src[i - begin]), for i in [begin, end).
template <class To, class From>
void scatter(const Layout<1>& L, const From* src, int64_t begin, int64_t end, To* dst) {
  split(begin, end, (end - begin) * sizeof(To), [&](int64_t lo, int64_t hi) {
    const From* in = src + (lo - begin);
    if (L.contiguous() && std::is_same_v<To, From>) {
      std::memcpy(dst + lo, in, (hi - lo) * sizeof(To));
    } else if (L.contiguous()) {
      for (int64_t i = lo; i < hi; ++i) dst[i] = convert<To>(*in++);
    } else {
      walk(L, lo, hi, [&](const int64_t(&off)[1]) { dst[off[0]] = convert<To>(*in++); });
    }
  });
}

// pinned[i - begin] = element i of v converted to `to`, for i in [begin, end).
void gather_view(const HostView& v, gpuvec_dtype to, int64_t begin, int64_t end, void* pinned) {
  with_conversion(to, v.dtype, [&](auto t, auto f) {
    gather(v.layout, static_cast<const decltype(f)*>(v.data), begin, end,
           static_cast<decltype(t)*>(pinned));
  });
}

// Element i of v = pinned[i - begin] (of dtype `from`), converted, for i in [begin, end).
void scatter_view(const HostView& v, gpuvec_dtype from, const void* pinned, int64_t begin,
                  int64_t end) {
  with_conversion(v.dtype, from, [&](auto t, auto f) {
    scatter(v.layout, static_cast<const decltype(f)*>(pinned), begin, end,
            static_cast<decltype(t)*>(v.data));
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
  // The span of the elements of a view.
  explicit Prefaulter(const HostView& v) : Prefaulter(span_start(v), span_bytes(v)) {}

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
  // The lowest and highest element offsets of a view's layout.
  static void reach(const HostView& v, int64_t& low, int64_t& high) {
    low = high = 0;
    for (int d = 0; d < v.layout.ndim; ++d) {
      const int64_t r = (v.layout.shape[d] - 1) * v.layout.strides[0][d];
      (r < 0 ? low : high) += r;
    }
  }
  static void* span_start(const HostView& v) {
    int64_t low, high;
    reach(v, low, high);
    return static_cast<char*>(v.data) + low * static_cast<int64_t>(itemsize(v.dtype));
  }
  static size_t span_bytes(const HostView& v) {
    int64_t low, high;
    reach(v, low, high);
    return static_cast<size_t>(high - low + 1) * itemsize(v.dtype);
  }

  std::vector<std::thread> threads_;
};

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
// array inputs into a slot's pinned buffers (input k into buffer k + 1,
// converted to the compute type T, or kept as bytes for where's condition:
// raw[k]), copy them to the device, run(slot, m), and copy operand 0 back
// (m elements of Result, or result_bytes when that is not 0); finish(chunk,
// begin, end, pinned operand 0) consumes it once the copy has landed, kSlots
// chunks later. A scalar input takes no buffer: run passes it to the kernel
// as a value.
template <class T, class Result, class Run, class Finish>
void pipeline(int64_t size, const HostView* in, const bool* raw, int n_inputs, size_t result_bytes,
              Run&& run, Finish&& finish) {
  const int64_t chunk = static_cast<int64_t>(kChunkBytes / sizeof(T));
  with_stager([&](Stager& st) {
    rotate(
        st, chunk_count(size, chunk),
        [&](Slot& slot, int64_t c) {
          const int64_t begin = c * chunk;
          const int64_t m = std::min(size, begin + chunk) - begin;
          for (int k = 0; k < n_inputs; ++k) {
            if (in[k].data == nullptr) continue;
            const gpuvec_dtype to = raw[k] ? in[k].dtype : dtype_of<T>();
            gather_view(in[k], to, begin, begin + m, slot.pinned[k + 1]);
            GPUVEC_CUDA_CHECK(cudaMemcpyAsync(slot.device[k + 1], slot.pinned[k + 1],
                                              m * itemsize(to), cudaMemcpyHostToDevice,
                                              slot.stream));
          }
          run(slot, m);
          const size_t back = result_bytes == 0 ? m * sizeof(Result) : result_bytes;
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

// An elementwise op of Arity inputs, computed in T on each chunk into a
// result of type Result (T, or bool): arrays come from the slot's device
// buffers, scalars as values, and the kernel takes its contiguous path.
template <class T, class Result, int Arity>
void staged_map(gpuvec_op op, const double* params, int64_t size, const HostView& out,
                const HostView* in, int threads_per_block) {
  Prefaulter prefault(out);
  bool raw[GPUVEC_MAX_INPUTS] = {};
  raw[0] = op == GPUVEC_WHERE;  // where's condition crosses as bytes
  pipeline<T, Result>(
      size, in, raw, Arity, 0,
      [&](Slot& slot, int64_t m) {
        Inputs<T, Arity> operands{};
        for (int k = 0; k < Arity; ++k) {
          const bool array = in[k].data != nullptr;
          if (raw[k]) {
            operands.cond = {array ? static_cast<const uint8_t*>(slot.device[k + 1]) : nullptr,
                             scalar_value<uint8_t>(in[k])};
          } else {
            operands.in[k] = {array ? static_cast<const T*>(slot.device[k + 1]) : nullptr,
                              scalar_value<T>(in[k])};
          }
        }
        elementwise<T, Arity>(op, contiguous_layout<Arity + 1>(m), slot.device[0], operands,
                              params, threads_per_block, slot.stream);
      },
      [&](int64_t, int64_t begin, int64_t end, const void* pinned) {
        scatter_view(out, dtype_of<Result>(), pinned, begin, end);
      });
}

// A reduction to one double: each chunk's total comes back on its own and
// the totals are added pairwise at the end (a fixed order: deterministic).
template <class T, class Kernel>
double staged_total(int64_t size, const HostView* in, int n_inputs, Kernel&& kernel) {
  if (size == 0) return 0.0;
  std::vector<double> totals;
  const bool raw[GPUVEC_MAX_INPUTS] = {};
  pipeline<T, double>(
      size, in, raw, n_inputs, sizeof(double), [&](Slot& slot, int64_t m) { kernel(slot, m); },
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

double* dev_total(const Slot& slot) { return static_cast<double*>(slot.device[0]); }

}  // namespace

void staged_elementwise(gpuvec_op op, const double* params, gpuvec_dtype compute, int64_t size,
                        const HostView& out, const HostView* in, int n_inputs,
                        int threads_per_block) {
  if (size == 0) return;
  // The compute type, then the result's: a float, or a bool.
  with_dtype(compute, [&](auto zero) {
    using T = decltype(zero);
    with_dtype(out.dtype, [&](auto result) {
      using Result = decltype(result);
      constexpr bool kResult = std::is_same_v<Result, T> || std::is_same_v<Result, bool> ||
                               std::is_same_v<Result, uint8_t>;
      if constexpr (kResult) {
        switch (n_inputs) {
          case 1:
            return staged_map<T, Result, 1>(op, params, size, out, in, threads_per_block);
          case 2:
            return staged_map<T, Result, 2>(op, params, size, out, in, threads_per_block);
          case 3:
            return staged_map<T, Result, 3>(op, params, size, out, in, threads_per_block);
        }
        throw Error(GPUVEC_ERROR_INTERNAL, "an elementwise op has 1 to 3 inputs");
      } else {
        throw Error(GPUVEC_ERROR_INTERNAL, "no elementwise op computes in this pair of dtypes");
      }
    });
  });
}

double staged_sum(gpuvec_dtype compute, int64_t size, const HostView& x, int threads_per_block) {
  return with_float(compute, [&](auto zero) {
    using T = decltype(zero);
    return staged_total<T>(size, &x, 1, [&](Slot& slot, int64_t m) {
      sum_into_double<T>(contiguous_layout<1>(m), dev<T>(slot, 1), dev_total(slot),
                         threads_per_block, slot.stream);
    });
  });
}

double staged_dot(gpuvec_dtype compute, int64_t size, const HostView& x, const HostView& y,
                  int threads_per_block) {
  const HostView in[2] = {x, y};
  return with_float(compute, [&](auto zero) {
    using T = decltype(zero);
    return staged_total<T>(size, in, 2, [&](Slot& slot, int64_t m) {
      dot_into_double<T>(contiguous_layout<2>(m), dev<T>(slot, 1), dev<T>(slot, 2),
                         dev_total(slot), threads_per_block, slot.stream);
    });
  });
}

// Each chunk is gathered and converted into a pinned buffer by the copy
// threads, then copied while the next one is gathered. The float64 ->
// float32 cast thus costs no pass of its own, and a float32 result crosses
// the bus at half the size.
void upload(const HostView& src, int64_t size, gpuvec_dtype to, void* device_dst,
            gpuvec_stream stream) {
  if (size == 0) return;
  const int64_t item = static_cast<int64_t>(itemsize(to));
  const int64_t chunk = static_cast<int64_t>(kChunkBytes) / item;
  const cudaStream_t s = as_cuda_stream(stream);
  char* dst = static_cast<char*>(device_dst);
  with_stager([&](Stager& st) {
    on_caller_stream(s, [&] {
      rotate(
          st, chunk_count(size, chunk),
          [&](Slot& slot, int64_t c) {
            const int64_t begin = c * chunk;
            const int64_t end = std::min(size, begin + chunk);
            gather_view(src, to, begin, end, slot.pinned[0]);
            GPUVEC_CUDA_CHECK(cudaMemcpyAsync(dst + begin * item, slot.pinned[0],
                                              (end - begin) * item, cudaMemcpyHostToDevice, s));
            GPUVEC_CUDA_CHECK(cudaEventRecord(slot.done, s));
          },
          [](Slot&, int64_t) {});  // nothing comes back
    });
  });
}

// The reverse: each chunk is copied from the device into a pinned buffer on
// `stream`, then scattered (and converted) out of it by the copy threads
// while the next chunks are on the bus. A result in pinned memory of its own
// (pinned_results.hpp) that needs no scatter or conversion is copied into
// directly, in one copy at the bus's speed.
void download(const void* device_src, gpuvec_dtype from, int64_t size, const HostView& dst,
              gpuvec_stream stream) {
  if (size == 0) return;
  const int64_t item = static_cast<int64_t>(itemsize(from));
  const int64_t chunk = static_cast<int64_t>(kChunkBytes) / item;
  const cudaStream_t s = as_cuda_stream(stream);
  const char* src = static_cast<const char*>(device_src);
  if (dst.dtype == from && dense_walk(dst.layout) &&
      in_pinned_result(dst.data, static_cast<size_t>(size * item))) {
    GPUVEC_CUDA_CHECK(cudaMemcpyAsync(dst.data, src, size * item, cudaMemcpyDeviceToHost, s));
    GPUVEC_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  Prefaulter prefault(dst);
  with_stager([&](Stager& st) {
    on_caller_stream(s, [&] {
      rotate(
          st, chunk_count(size, chunk),
          [&](Slot& slot, int64_t c) {
            const int64_t begin = c * chunk;
            const int64_t end = std::min(size, begin + chunk);
            GPUVEC_CUDA_CHECK(cudaMemcpyAsync(slot.pinned[0], src + begin * item,
                                              (end - begin) * item, cudaMemcpyDeviceToHost, s));
            GPUVEC_CUDA_CHECK(cudaEventRecord(slot.done, s));
          },
          [&](Slot& slot, int64_t c) {
            const int64_t begin = c * chunk;
            scatter_view(dst, from, slot.pinned[0], begin, std::min(size, begin + chunk));
          });
    });
  });
}

}  // namespace gpuvec::cuda
