// Users' own kernels (gpuvec/kernels.h): modules, kernels and launches.
//
// The boundary checks a launch once, for both backends, so that a bad
// configuration fails with one name whether or not there is a GPU; on the
// CUDA backend it also moves host (NumPy) memory in and back out.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../kit/backends.hpp"
#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"
#include "../kit/view.hpp"
#include "gpuvec/kernels.h"
#include "kernel_handles.hpp"

namespace gpuvec {

// A malloc'ed copy, for strings that C callers free.
char* copy_to_c_string(const std::string& s) {
  char* out = static_cast<char*>(malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

namespace {

[[noreturn]] void throw_invalid_configuration(const std::string& why) {
  throw Error(GPUVEC_ERROR_CUDA, "invalid configuration argument: " + why,
              GPUVEC_CUDA_ERROR_INVALID_CONFIGURATION, "cudaErrorInvalidConfiguration");
}

std::string dims(const gpuvec_dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// CUDA's limits, checked here so that both backends refuse the same launches
// with the same error (CUDA itself reports some of them as
// cudaErrorInvalidValue, others as cudaErrorInvalidConfiguration).
void check_config(const gpuvec_kernel_config& c) {
  const gpuvec_dim3& b = c.block;
  const gpuvec_dim3& g = c.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0) {
    throw_invalid_configuration("block " + dims(b) + " has a zero dimension");
  }
  const uint64_t threads = uint64_t{b.x} * b.y * b.z;
  if (threads > GPUVEC_MAX_THREADS_PER_BLOCK) {
    throw_invalid_configuration("block " + dims(b) + " has " + std::to_string(threads) +
                                " threads; a block has at most 1024");
  }
  if (b.x > 1024 || b.y > 1024 || b.z > 64) {
    throw_invalid_configuration("block " + dims(b) + " exceeds the limits (1024, 1024, 64)");
  }
  if (g.x == 0 || g.y == 0 || g.z == 0) {
    throw_invalid_configuration("grid " + dims(g) + " has a zero dimension");
  }
  if (!(c.timeout >= 0 && c.timeout < 1e300)) {  // false for NaN too
    throw_invalid_argument("timeout must be a finite number of seconds, 0 or more, got " +
                           std::to_string(c.timeout));
  }
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) {
    throw_invalid_configuration("grid " + dims(g) +
                                " exceeds the limits (2147483647, 65535, 65535)");
  }
  if (c.shared_mem > GPUVEC_MAX_SHARED_MEMORY_PER_BLOCK) {
    throw_invalid_configuration(std::to_string(c.shared_mem) +
                                " bytes of dynamic shared memory; a block has at most 49152");
  }
}

std::string arg_name(const gpuvec_kernel_arg& a, int k) {
  return a.name ? std::string("parameter '") + a.name + "'" : "argument " + std::to_string(k);
}

void check_args(const gpuvec_kernel_arg* args, int n_args) {
  if (n_args < 0 || (n_args > 0 && args == nullptr)) throw_invalid_argument("args is NULL");
  for (int k = 0; k < n_args; ++k) {
    const gpuvec_kernel_arg& a = args[k];
    if (a.kind == GPUVEC_KERNEL_ARG_POINTER) {
      if (a.count < 0 || a.itemsize <= 0) {
        throw_invalid_argument(arg_name(a, k) + " has a negative length or a zero item size");
      }
      if (a.memory != GPUVEC_MEMORY_HOST && a.memory != GPUVEC_MEMORY_DEVICE) {
        throw_invalid_argument(arg_name(a, k) + " is a pointer; it takes an array");
      }
    } else if (a.kind == GPUVEC_KERNEL_ARG_VALUE) {
      if (a.size <= 0 || a.size > static_cast<int64_t>(sizeof(a.value))) {
        throw_invalid_argument(arg_name(a, k) + " has a value of " + std::to_string(a.size) +
                               " bytes");
      }
    } else {
      throw_invalid_argument(arg_name(a, k) + " has an unknown kind");
    }
  }
}

// A host array as the staging pipeline sees it: its bytes, one after another.
HostView bytes_of(const gpuvec_kernel_arg& a) {
  return {a.data, GPUVEC_BOOL, 0.0, contiguous_layout<1>(a.count * a.itemsize)};
}

// Device temporaries for the host arrays of a CUDA launch, returned to the
// pool (after the launch's work) however the launch ends.
class StagedArgs {
 public:
  StagedArgs(const gpuvec_kernel_arg* args, int n, gpuvec_stream stream)
      : args_(args), n_(n), stream_(stream), device_(n, nullptr) {}
  ~StagedArgs() {
    for (int k = 0; k < n_; ++k) {
      if (device_[k]) cuda::deallocate(device_[k], args_[k].count * args_[k].itemsize, stream_);
    }
  }
  StagedArgs(const StagedArgs&) = delete;
  StagedArgs& operator=(const StagedArgs&) = delete;

  // params[k] for cudaLaunchKernel: each argument's value, host arrays
  // replaced by device copies.
  std::vector<void*> upload() {
    std::vector<void*> params(n_);
    for (int k = 0; k < n_; ++k) {
      const gpuvec_kernel_arg& a = args_[k];
      if (a.kind == GPUVEC_KERNEL_ARG_VALUE) {
        params[k] = const_cast<void*>(static_cast<const void*>(&a.value));
      } else if (a.memory == GPUVEC_MEMORY_DEVICE || a.count == 0) {
        params[k] = const_cast<void**>(&a.data);
      } else {
        const int64_t bytes = a.count * a.itemsize;
        device_[k] = cuda::allocate(static_cast<size_t>(bytes), stream_);
        cuda::upload(bytes_of(a), bytes, GPUVEC_BOOL, device_[k], stream_);
        params[k] = &device_[k];
      }
    }
    return params;
  }

  // Copies each written host array back; returns once they have landed.
  void download() {
    for (int k = 0; k < n_; ++k) {
      const gpuvec_kernel_arg& a = args_[k];
      if (device_[k] && a.writes) {
        cuda::download(device_[k], GPUVEC_BOOL, a.count * a.itemsize, bytes_of(a), stream_);
      }
    }
  }

 private:
  const gpuvec_kernel_arg* args_;
  int n_;
  gpuvec_stream stream_;
  std::vector<void*> device_;
};

void launch(const gpuvec_kernel_s& kernel, const gpuvec_kernel_arg* args, int n_args,
            const gpuvec_kernel_config& config, gpuvec_stream stream) {
  if (kernel.module->backend == GPUVEC_BACKEND_HOST) {
    for (int k = 0; k < n_args; ++k) {
      if (args[k].kind == GPUVEC_KERNEL_ARG_POINTER && args[k].memory != GPUVEC_MEMORY_HOST) {
        throw_invalid_argument(arg_name(args[k], k) +
                               " is device memory; the host backend runs on host memory");
      }
    }
    host::launch_kernel(kernel.handle, kernel.flags, config, args, n_args);
    return;
  }
  StagedArgs staged(args, n_args, stream);
  std::vector<void*> params = staged.upload();
  cuda::launch_kernel(kernel.handle, config, params.data(), stream);
  staged.download();
}

}  // namespace
}  // namespace gpuvec

using gpuvec::guard;
using gpuvec::throw_invalid_argument;

extern "C" {

gpuvec_status gpuvec_module_load(gpuvec_backend backend, const void* image, size_t size,
                                 const char* path, gpuvec_module* module) {
  return guard([&] {
    if (module == nullptr) throw_invalid_argument("module is NULL");
    auto m = std::make_unique<gpuvec_module_s>();
    m->backend = backend;
    if (backend == GPUVEC_BACKEND_HOST) {
      if (path == nullptr) throw_invalid_argument("path is NULL");
      m->library = gpuvec::host::load_library(path);
    } else {
      if (image == nullptr || size == 0) throw_invalid_argument("the image is empty");
      m->library = gpuvec::cuda::load_library(image, size);
    }
    *module = m.release();
  });
}

gpuvec_status gpuvec_module_unload(gpuvec_module module) {
  return guard([&] {
    if (module == nullptr) return;
    std::unique_ptr<gpuvec_module_s> owned(module);
    if (owned->backend == GPUVEC_BACKEND_HOST) {
      gpuvec::host::unload_library(owned->library);
    } else {
      gpuvec::cuda::unload_library(owned->library);
    }
  });
}

gpuvec_status gpuvec_module_kernel(gpuvec_module module, const char* symbol, int flags,
                                   gpuvec_kernel* kernel) {
  return guard([&] {
    if (module == nullptr || symbol == nullptr || kernel == nullptr) {
      throw_invalid_argument("module, symbol and kernel must not be NULL");
    }
    auto k = std::make_unique<gpuvec_kernel_s>();
    k->module = module;
    k->flags = flags;
    k->handle = module->backend == GPUVEC_BACKEND_HOST
                    ? gpuvec::host::find_entry(module->library, symbol)
                    : gpuvec::cuda::find_kernel(module->library, symbol);
    *kernel = k.get();
    module->kernels.push_back(std::move(k));
  });
}

gpuvec_status gpuvec_kernel_get_attributes(gpuvec_kernel kernel,
                                           gpuvec_kernel_attributes* attributes) {
  return guard([&] {
    if (kernel == nullptr || attributes == nullptr) throw_invalid_argument("a NULL argument");
    if (kernel->module->backend == GPUVEC_BACKEND_CUDA) {
      gpuvec::cuda::kernel_attributes(kernel->handle, attributes);
      return;
    }
    // The emulation knows only the launch limit it shares with CUDA.
    *attributes = {GPUVEC_MAX_THREADS_PER_BLOCK, -1, -1, -1, -1, -1, -1};
  });
}

gpuvec_status gpuvec_kernel_launch(gpuvec_kernel kernel, const gpuvec_kernel_arg* args, int n_args,
                                   const gpuvec_kernel_config* config,
                                   const gpuvec_launch* launch) {
  return guard([&] {
    if (kernel == nullptr || config == nullptr || launch == nullptr) {
      throw_invalid_argument("kernel, config and launch must not be NULL");
    }
    gpuvec::check_config(*config);
    gpuvec::check_args(args, n_args);
    gpuvec::launch(*kernel, args, n_args, *config, launch->stream);
  });
}

gpuvec_status gpuvec_nvrtc_version(const char* path, int* major, int* minor) {
  return guard([&] {
    if (path == nullptr || major == nullptr || minor == nullptr) {
      throw_invalid_argument("path, major and minor must not be NULL");
    }
    gpuvec::cuda::nvrtc_version(path, major, minor);
  });
}

gpuvec_status gpuvec_nvrtc_compile(const char* path, const char* source, const char* program_name,
                                   int arch, const char* const* options, int n_options,
                                   const char* const* name_expressions, int n_names,
                                   gpuvec_nvrtc_output* output) {
  return guard([&] {
    if (path == nullptr || source == nullptr || program_name == nullptr || output == nullptr) {
      throw_invalid_argument("path, source, program_name and output must not be NULL");
    }
    *output = {};
    gpuvec::cuda::NvrtcProgram program;
    program.source = source;
    program.name = program_name;
    program.arch = arch;
    program.options.assign(options, options + n_options);
    program.name_expressions.assign(name_expressions, name_expressions + n_names);
    const gpuvec::cuda::NvrtcResult result = gpuvec::cuda::nvrtc_compile(path, program);
    // The log goes out whether or not the compile succeeded: it is the error's text.
    output->log = gpuvec::copy_to_c_string(result.log);
    if (!result.ok) {
      throw gpuvec::Error(GPUVEC_ERROR_COMPILE, "the kernel source did not compile");
    }
    output->image = static_cast<char*>(malloc(result.image.size()));
    if (output->image == nullptr) throw std::bad_alloc();
    memcpy(output->image, result.image.data(), result.image.size());
    output->image_size = result.image.size();
    output->is_cubin = result.is_cubin;
    output->n_names = static_cast<int>(result.lowered_names.size());
    output->lowered_names =
        static_cast<char**>(calloc(result.lowered_names.size() + 1, sizeof(char*)));
    if (output->lowered_names == nullptr) throw std::bad_alloc();
    for (size_t k = 0; k < result.lowered_names.size(); ++k) {
      output->lowered_names[k] = gpuvec::copy_to_c_string(result.lowered_names[k]);
    }
  });
}

gpuvec_status gpuvec_set_kernel_compiler(gpuvec_kernel_compiler compiler) {
  return guard([&] { gpuvec::cuda::set_kernel_compiler(compiler); });
}

void gpuvec_nvrtc_output_free(gpuvec_nvrtc_output* output) {
  if (output == nullptr) return;
  if (output->lowered_names) {
    for (int k = 0; k < output->n_names; ++k) free(output->lowered_names[k]);
    free(output->lowered_names);
  }
  free(output->image);
  free(output->log);
  *output = {};
}

}  // extern "C"
