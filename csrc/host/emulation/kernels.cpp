// Users' own kernels on the host backend: loading the shared library that
// the host compiler built from the user's source against
// gpuvec/cuda_emulation.h, and launching its entries.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "../../kit/error.hpp"
#include "../../kit/kernel_backends.hpp"
#include "../parallel.hpp"
#include "gpuvec/emulation.h"
#include "launch.hpp"
#include "sandbox.hpp"

namespace gpuvec::host {
namespace {

std::string dl_error() {
  const char* text = dlerror();
  return text ? text : "unknown dlopen error";
}

// Whether a launch pays for the pool's threads: about 30 µs of work at least,
// a thread of a plain loop costing about a nanosecond and a fiber about 30.
bool worth_parallel(int64_t blocks, int64_t threads_per_block, bool cooperative) {
  const int64_t enough = cooperative ? 1024 : 32768;  // threads
  return blocks > 1 && (blocks >= enough || blocks * threads_per_block >= enough);
}

}  // namespace

void* load_library(const char* path) {
  if (path == nullptr) throw_invalid_argument("the kernel library's path is NULL");
  dlerror();
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr)
    throw_invalid_argument("cannot load the kernel library '" + std::string(path) +
                           "': " + dl_error());
  // Built against the same emulation ABI as this gpuvec?
  const auto* abi = static_cast<const unsigned int*>(dlsym(library, "gpuvec_emulation_abi"));
  std::string problem;
  if (abi == nullptr) {
    problem =
        "it has no gpuvec_emulation_abi symbol: it was not built against "
        "gpuvec/cuda_emulation.h";
  } else if (*abi != GPUVEC_EMULATION_VERSION) {
    problem = "it was built against emulation ABI version " + std::to_string(*abi) +
              " and this gpuvec runs version " + std::to_string(GPUVEC_EMULATION_VERSION) +
              ": compile the kernel again";
  }
  if (!problem.empty()) {
    dlclose(library);
    throw_invalid_argument("cannot use the kernel library '" + std::string(path) +
                           "': " + problem);
  }
  emulation::remember_library(library);  // where the watchdog may stop a thread
  return library;
}

void unload_library(void* library) {
  if (library != nullptr) emulation::forget_library(library);
  if (library != nullptr && dlclose(library) != 0)
    throw Error(GPUVEC_ERROR_INTERNAL, "cannot unload a kernel library: " + dl_error());
}

void* find_entry(void* library, const char* symbol) {
  if (symbol == nullptr) throw_invalid_argument("the kernel's entry name is NULL");
  dlerror();
  void* entry = dlsym(library, symbol);
  if (entry == nullptr)
    throw_invalid_argument("the kernel library has no entry '" + std::string(symbol) + "'");
  return entry;
}

void launch_kernel(void* entry, int flags, const gpuvec_kernel_config& config,
                   const gpuvec_kernel_arg* args, int n_args) {
  // params[k] as the entry reads it: a pointer argument's
  // gpuvec_emulation_pointer (its first member is the pointer), a value's bytes.
  std::vector<gpuvec_emulation_pointer> pointers(n_args > 0 ? n_args : 0);
  std::vector<void*> params(pointers.size());
  for (int k = 0; k < n_args; ++k) {
    const gpuvec_kernel_arg& arg = args[k];
    if (arg.kind == GPUVEC_KERNEL_ARG_POINTER) {
      pointers[k] = {arg.data, arg.count, arg.itemsize, arg.name};
      params[k] = &pointers[k];
    } else {
      params[k] = const_cast<void*>(static_cast<const void*>(&arg.value));
    }
  }
  // Ctrl-C stops the launch (the scope outlives it, to raise SIGINT again
  // for Python once the launch is over).
  emulation::InterruptScope interrupts;
  emulation::Launch launch(reinterpret_cast<gpuvec_emulation_entry>(entry),
                           (flags & GPUVEC_KERNEL_COOPERATIVE) != 0, config, params.data());
  const int64_t blocks = launch.blocks();
  for_each(blocks,
           worth_parallel(blocks, launch.threads_per_block(), flags & GPUVEC_KERNEL_COOPERATIVE),
           [&](int64_t block, int) { launch.run_block(block); });
  launch.check();
}

}  // namespace gpuvec::host
