// NVRTC, found at run time: gpuvec links no NVRTC, so `import gpuvec` and its
// own ops never need it. The Python layer finds the library (the CUDA
// toolkit's, or the nvidia-cuda-nvrtc wheel's through cuda-pathfinder) and
// passes its path; it is dlopen'ed once and its functions looked up by name.
#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "../kit/error.hpp"
#include "../kit/kernel_backends.hpp"

namespace gpuvec::cuda {
namespace {

// The NVRTC functions gpuvec calls, with their own signatures from nvrtc.h.
struct Nvrtc {
  decltype(&nvrtcVersion) version;
  decltype(&nvrtcGetErrorString) error_string;
  decltype(&nvrtcGetNumSupportedArchs) num_supported_archs;
  decltype(&nvrtcGetSupportedArchs) supported_archs;
  decltype(&nvrtcCreateProgram) create;
  decltype(&nvrtcDestroyProgram) destroy;
  decltype(&nvrtcAddNameExpression) add_name_expression;
  decltype(&nvrtcCompileProgram) compile;
  decltype(&nvrtcGetProgramLogSize) log_size;
  decltype(&nvrtcGetProgramLog) log;
  decltype(&nvrtcGetCUBINSize) cubin_size;
  decltype(&nvrtcGetCUBIN) cubin;
  decltype(&nvrtcGetPTXSize) ptx_size;
  decltype(&nvrtcGetPTX) ptx;
  decltype(&nvrtcGetLoweredName) lowered_name;
};

template <class F>
void bind(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (f == nullptr) {
    throw Error(GPUVEC_ERROR_INVALID_ARGUMENT,
                std::string("the NVRTC library has no ") + name + "; it is too old for gpuvec");
  }
}

const Nvrtc& nvrtc(const char* path) {
  static std::mutex mutex;
  static Nvrtc api;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) return api;
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw Error(GPUVEC_ERROR_INVALID_ARGUMENT, std::string("cannot load NVRTC from ") + path +
                                                   ": " + (why ? why : "unknown error"));
  }
  bind(library, "nvrtcVersion", api.version);
  bind(library, "nvrtcGetErrorString", api.error_string);
  bind(library, "nvrtcGetNumSupportedArchs", api.num_supported_archs);
  bind(library, "nvrtcGetSupportedArchs", api.supported_archs);
  bind(library, "nvrtcCreateProgram", api.create);
  bind(library, "nvrtcDestroyProgram", api.destroy);
  bind(library, "nvrtcAddNameExpression", api.add_name_expression);
  bind(library, "nvrtcCompileProgram", api.compile);
  bind(library, "nvrtcGetProgramLogSize", api.log_size);
  bind(library, "nvrtcGetProgramLog", api.log);
  bind(library, "nvrtcGetCUBINSize", api.cubin_size);
  bind(library, "nvrtcGetCUBIN", api.cubin);
  bind(library, "nvrtcGetPTXSize", api.ptx_size);
  bind(library, "nvrtcGetPTX", api.ptx);
  bind(library, "nvrtcGetLoweredName", api.lowered_name);
  loaded = true;  // the library stays loaded for the life of the process
  return api;
}

void check(const Nvrtc& api, nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) {
    throw Error(GPUVEC_ERROR_INTERNAL, std::string(what) + " failed: " + api.error_string(result));
  }
}

// The architecture to compile for: sm_<arch> when NVRTC knows it (a CUBIN),
// else the newest it knows below it (PTX, which the driver compiles for the
// device when loading it).
int target_arch(const Nvrtc& api, int arch, bool* cubin) {
  int count = 0;
  check(api, api.num_supported_archs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(count);
  if (count > 0) check(api, api.supported_archs(archs.data()), "nvrtcGetSupportedArchs");
  *cubin = std::find(archs.begin(), archs.end(), arch) != archs.end();
  if (*cubin) return arch;
  int best = 0;
  for (int a : archs) {
    if (a <= arch) best = std::max(best, a);
  }
  if (best == 0) {
    throw Error(GPUVEC_ERROR_INVALID_ARGUMENT,
                "this NVRTC cannot compile for compute capability " + std::to_string(arch / 10) +
                    "." + std::to_string(arch % 10));
  }
  return best;
}

// Destroys the program however the compile ends.
struct ProgramGuard {
  const Nvrtc& api;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program) api.destroy(&program);
  }
};

}  // namespace

void nvrtc_version(const char* path, int* major, int* minor) {
  const Nvrtc& api = nvrtc(path);
  check(api, api.version(major, minor), "nvrtcVersion");
}

NvrtcResult nvrtc_compile(const char* path, const NvrtcProgram& p) {
  const Nvrtc& api = nvrtc(path);
  NvrtcResult result;
  const int arch = target_arch(api, p.arch, &result.is_cubin);
  const std::string arch_option = std::string("--gpu-architecture=") +
                                  (result.is_cubin ? "sm_" : "compute_") + std::to_string(arch);
  std::vector<const char*> options = p.options;
  options.push_back(arch_option.c_str());

  ProgramGuard guard{api};
  check(api, api.create(&guard.program, p.source.c_str(), p.name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  for (const char* name : p.name_expressions) {
    check(api, api.add_name_expression(guard.program, name), "nvrtcAddNameExpression");
  }
  const nvrtcResult compiled =
      api.compile(guard.program, static_cast<int>(options.size()), options.data());

  size_t log_size = 0;
  check(api, api.log_size(guard.program, &log_size), "nvrtcGetProgramLogSize");
  result.log.assign(log_size, '\0');
  if (log_size > 0) check(api, api.log(guard.program, &result.log[0]), "nvrtcGetProgramLog");
  while (!result.log.empty() && result.log.back() == '\0') result.log.pop_back();
  if (compiled != NVRTC_SUCCESS) {
    if (compiled != NVRTC_ERROR_COMPILATION) check(api, compiled, "nvrtcCompileProgram");
    return result;  // ok stays false: the log says why
  }

  size_t size = 0;
  if (result.is_cubin) {
    check(api, api.cubin_size(guard.program, &size), "nvrtcGetCUBINSize");
    result.image.assign(size, '\0');
    check(api, api.cubin(guard.program, &result.image[0]), "nvrtcGetCUBIN");
  } else {
    check(api, api.ptx_size(guard.program, &size), "nvrtcGetPTXSize");
    result.image.assign(size, '\0');  // includes the terminating NUL the loader needs
    check(api, api.ptx(guard.program, &result.image[0]), "nvrtcGetPTX");
  }
  for (const char* name : p.name_expressions) {
    const char* lowered = nullptr;
    check(api, api.lowered_name(guard.program, name, &lowered), "nvrtcGetLoweredName");
    result.lowered_names.emplace_back(lowered);
  }
  result.ok = true;
  return result;
}

}  // namespace gpuvec::cuda
