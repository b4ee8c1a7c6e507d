// The table of gpuvec's own kernels, compiled at first use (own_kernels.hpp).
#include "own_kernels.hpp"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "../common/kernel_handles.hpp"
#include "../kit/error.hpp"
#include "check.cuh"

namespace gpuvec::cuda {

// The ops' functors (gpuvec/ops.hpp) over the map kernels, and the
// reductions' policies over the reduction kernels.
const char* const kMapSource = "#include <gpuvec/map.hpp>\n#include <gpuvec/ops.hpp>\n";
const char* const kReduceSource =
    "#include <gpuvec/reduce.hpp>\n#include <gpuvec/reduce_ops.hpp>\n";

namespace {

std::atomic<gpuvec_kernel_compiler> registered{nullptr};

using Key = std::tuple<int, const char*, std::string>;  // device, source, expression

struct Table {
  std::mutex mutex;
  std::map<Key, void*> kernels;
};

Table& table() {
  static Table* t = new Table;  // never destroyed: kernels may launch during exit
  return *t;
}

}  // namespace

void set_kernel_compiler(gpuvec_kernel_compiler compiler) {
  registered.store(compiler, std::memory_order_release);
}

int current_device() {
  int device = 0;
  GPUVEC_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void* own_kernel(const char* source, const std::string& expression, int device) {
  Table& t = table();
  const Key key{device, source, expression};
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    const auto found = t.kernels.find(key);
    if (found != t.kernels.end()) return found->second;
  }
  const gpuvec_kernel_compiler compile = registered.load(std::memory_order_acquire);
  if (compile == nullptr) {
    throw Error(GPUVEC_ERROR_INVALID_ARGUMENT,
                "gpuvec's kernels are compiled at first use by its Python layer, which registers "
                "the compiler on import: import gpuvec before calling its C API");
  }
  // Compiled without the lock: a compile takes a fraction of a second and
  // the GIL, which another thread may hold while it waits for this table.
  // Two threads may compile the same kernel at once; the first one kept wins.
  gpuvec_kernel kernel = nullptr;
  const gpuvec_status status = compile(source, expression.c_str(), &kernel);
  if (status != GPUVEC_SUCCESS) {
    throw Error(status, "compiling gpuvec's kernel " + expression + " failed");
  }
  if (kernel == nullptr || kernel->handle == nullptr) {
    throw Error(GPUVEC_ERROR_INTERNAL, "the kernel compiler returned no kernel for " + expression);
  }
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.kernels.emplace(key, kernel->handle).first->second;
}

}  // namespace gpuvec::cuda
