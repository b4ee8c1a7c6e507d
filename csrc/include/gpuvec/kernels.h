/* Users' own kernels: compile, load and launch them, on either backend.
 *
 * One source runs on both backends:
 *   - CUDA: NVRTC compiles it (gpuvec_nvrtc_compile) to a CUBIN for the
 *     current device, or to PTX where NVRTC does not know the device; the
 *     image is loaded with the runtime's library API and launched on a
 *     gpuvec stream.
 *   - host: the host C++ compiler builds it into a shared library against
 *     gpuvec/cuda_emulation.h; the library's entries run each block's
 *     threads, blocks in parallel over the cores.
 *
 * The Python layer parses the kernel's signature and turns each argument
 * into one gpuvec_kernel_arg: a pointer parameter is a contiguous block of
 * memory (host or device) with its length, a scalar parameter the bytes of
 * its value in the declared C type. Behind gpuvec_kernel_launch the boundary
 * validates the launch configuration as CUDA does, copies host memory in (and
 * back out, for pointers that are not const) on the CUDA backend, and runs
 * the kernel.
 */
#ifndef GPUVEC_KERNELS_H
#define GPUVEC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuvec/gpuvec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuvec_module_s* gpuvec_module; /* a loaded CUBIN/PTX image or shared library */
typedef struct gpuvec_kernel_s* gpuvec_kernel; /* one __global__ function of a module */

typedef struct gpuvec_dim3 {
  uint32_t x, y, z;
} gpuvec_dim3;

/* What a host-backend kernel needs from the emulation (gpuvec_module_kernel's flags). */
#define GPUVEC_KERNEL_COOPERATIVE 1 /* it calls __syncthreads or a warp intrinsic: run fibers */
#define GPUVEC_KERNEL_CHECKED 2     /* compiled with bounds-checked pointer parameters */

typedef enum gpuvec_kernel_arg_kind {
  GPUVEC_KERNEL_ARG_POINTER = 0, /* a pointer parameter */
  GPUVEC_KERNEL_ARG_VALUE = 1    /* a scalar parameter, passed by value */
} gpuvec_kernel_arg_kind;

/* One argument of a launch. */
typedef struct gpuvec_kernel_arg {
  gpuvec_kernel_arg_kind kind;
  const char* name; /* the parameter's name, for messages */
  /* POINTER: `count` elements of `itemsize` bytes at `data`, contiguous. */
  void* data;
  gpuvec_memory memory; /* HOST memory is copied to the device for a CUDA launch */
  int64_t count;
  int64_t itemsize;
  int writes; /* not a pointer to const: copied back to HOST memory after a CUDA launch */
  /* VALUE: `size` bytes (at most 16) of the value in the parameter's C type. */
  union {
    int64_t i;
    uint64_t u;
    double d;
    unsigned char bytes[16];
  } value;
  int64_t size;
} gpuvec_kernel_arg;

typedef struct gpuvec_kernel_config {
  gpuvec_dim3 grid;
  gpuvec_dim3 block;
  size_t shared_mem; /* bytes of dynamic shared memory (extern __shared__) */
  double timeout;    /* the host emulation's: seconds the launch may run before it is
                        stopped (cudaErrorLaunchTimeout); 0: GPUVEC_KERNEL_TIMEOUT's, else
                        none. A GPU ignores it: a queued launch cannot be stopped. */
} gpuvec_kernel_config;

/* What the backend can tell about a compiled kernel; -1 where it cannot. */
typedef struct gpuvec_kernel_attributes {
  int max_threads_per_block;
  int num_regs;
  int64_t shared_size_bytes; /* static shared memory */
  int64_t local_size_bytes;
  int64_t const_size_bytes;
  int ptx_version;
  int binary_version;
} gpuvec_kernel_attributes;

/* The largest launch both backends accept (CUDA's limits on every current
 * GPU): a block of at most 1024 threads, 1024 x 1024 x 64; a grid of at most
 * 2^31 - 1 x 65535 x 65535 blocks; 48 KiB of dynamic shared memory per block
 * (the most a kernel gets without opting in). */
#define GPUVEC_MAX_SHARED_MEMORY_PER_BLOCK 49152

/* Loads a module. CUDA: image is a CUBIN or a NUL-terminated PTX of `size`
 * bytes, loaded on the current device. Host: path names a shared library
 * built against gpuvec/cuda_emulation.h (image is unused). */
gpuvec_status gpuvec_module_load(gpuvec_backend backend, const void* image, size_t size,
                                 const char* path, gpuvec_module* module);
gpuvec_status gpuvec_module_unload(gpuvec_module module);

/* The kernel named `symbol` in a module: its lowered (mangled) name on the
 * CUDA backend, the entry gpuvec generated for it on the host backend. flags
 * are GPUVEC_KERNEL_* bits; the CUDA backend ignores them. The kernel lives
 * as long as its module. */
gpuvec_status gpuvec_module_kernel(gpuvec_module module, const char* symbol, int flags,
                                   gpuvec_kernel* kernel);
gpuvec_status gpuvec_kernel_get_attributes(gpuvec_kernel kernel,
                                           gpuvec_kernel_attributes* attributes);

/* Runs the kernel on config.grid blocks of config.block threads.
 *
 * A configuration CUDA would refuse fails on both backends alike, with
 * GPUVEC_ERROR_CUDA and CUDA's cudaErrorInvalidConfiguration: a block of
 * more than 1024 threads or a dimension above its limit, a zero dimension,
 * more shared memory than GPUVEC_MAX_SHARED_MEMORY_PER_BLOCK. On the CUDA
 * backend HOST pointers are copied into temporaries and back out (those
 * with `writes`), and the call returns once they have landed; otherwise
 * the launch is asynchronous on launch->stream. On the host backend the
 * call returns when the kernel has finished; a kernel compiled checked that
 * indexes a pointer out of its bounds fails with GPUVEC_ERROR_INDEX and a
 * message naming the parameter, the index, the length, the thread and the
 * block. */
gpuvec_status gpuvec_kernel_launch(gpuvec_kernel kernel, const gpuvec_kernel_arg* args, int n_args,
                                   const gpuvec_kernel_config* config,
                                   const gpuvec_launch* launch);

/* Elementwise kernels compiled from gpuvec's own map templates
 * (gpuvec/map.hpp) for one signature, out = f(in[0], ..., in[n_inputs - 1]):
 * a user's ElementwiseKernel. gpuvec_map runs one as gpuvec_elementwise runs
 * gpuvec's own ops: it broadcasts nothing (the inputs have out's shape, with
 * stride 0 where they repeat) but takes any strides, scalars, an out that
 * overlaps an input, and, on the CUDA backend, host arrays (copied to the
 * device and the result back, before the call returns).
 *
 * kernels[k] is the kernel of gpuvec::MapKernel k, from the module the
 * source was compiled into: on the CUDA backend the four instances
 * map_contiguous<T, V>, map_contiguous<T, 1>, map_rows<V> and map_strided;
 * on the host backend kernels[0] alone, the library's GPUVEC_MAP_ENTRY. The
 * dtypes are those the kernels were compiled for: float32, float64 or bool. */
#define GPUVEC_MAP_KERNELS 4

typedef struct gpuvec_map_kernel {
  gpuvec_kernel kernels[GPUVEC_MAP_KERNELS];
  int n_inputs;
  gpuvec_dtype out_dtype;
  gpuvec_dtype in_dtypes[GPUVEC_MAX_MAP_INPUTS];
} gpuvec_map_kernel;

/* out = f(inputs...) with the kernel's functor f. Every input has out's ndim
 * and shape and the dtype the kernel takes for it (a scalar's value is a
 * double, converted to that dtype). On the host backend every array is host
 * memory; on the CUDA backend the arrays are all device memory, or all host
 * memory. The launch is asynchronous on launch->stream for device memory. */
gpuvec_status gpuvec_map(const gpuvec_map_kernel* kernel, const gpuvec_array* out,
                         const gpuvec_array* inputs, int n_inputs, const gpuvec_launch* launch);

/* Reductions compiled from gpuvec's own reduction engine (gpuvec/reduce.hpp)
 * for one signature: a user's ReductionKernel, whose map, reduce and post-map
 * expressions are a policy (term, combine, finish) the engine instantiates.
 * gpuvec_map_reduce runs one as gpuvec_reduce runs gpuvec's own reductions,
 * with the same launch plan: it broadcasts nothing (every input has the same
 * shape, with stride 0 where it repeats) but takes any strides, scalars, an
 * out that overlaps an input, and, on the CUDA backend, host arrays (copied
 * to the device and the result back, before the call returns).
 *
 * kernels[k] is the kernel of gpuvec::ReduceKernel k, from the module the
 * source was compiled into: on the CUDA backend the seven instances
 * reduce_contiguous<V>, reduce_contiguous<1>, reduce_groups, reduce_tiles,
 * reduce_columns, reduce_blocks and reduce_partials; on the host backend
 * kernels[0] alone, the library's GPUVEC_REDUCE_ENTRY. state_size is the
 * size of the policy's state (Acc) in bytes, a multiple of 8. */
#define GPUVEC_REDUCE_KERNELS 7

typedef struct gpuvec_map_reduce_kernel {
  gpuvec_kernel kernels[GPUVEC_REDUCE_KERNELS];
  int n_inputs; /* 1 to GPUVEC_MAX_MAP_INPUTS */
  gpuvec_dtype out_dtype;
  gpuvec_dtype in_dtypes[GPUVEC_MAX_MAP_INPUTS];
  int64_t state_size;
  int has_identity; /* 0: a row of no elements has no value (an error) */
} gpuvec_map_reduce_kernel;

/* out = the kernel's reduction of the inputs over their last reduced_ndim
 * dimensions. Every input has the same ndim and shape and the dtype the
 * kernel takes for it (a scalar's value is a double, converted to that
 * dtype); out has the shape of their first ndim - reduced_ndim dimensions.
 * On the host backend every array is host memory; on the CUDA backend the
 * arrays are all device memory, or all host memory. The launch is
 * asynchronous on launch->stream for device memory. */
gpuvec_status gpuvec_map_reduce(const gpuvec_map_reduce_kernel* kernel, const gpuvec_array* out,
                                const gpuvec_array* inputs, int n_inputs, int reduced_ndim,
                                const gpuvec_launch* launch);

/* NVRTC's output: an image to load, the compile log, and the lowered name of
 * each name expression. Owned by gpuvec: free it with gpuvec_nvrtc_output_free. */
typedef struct gpuvec_nvrtc_output {
  char* image;
  size_t image_size;
  int is_cubin; /* 1: a CUBIN for the architecture asked; 0: PTX */
  char* log;    /* NUL-terminated; empty when NVRTC said nothing */
  char** lowered_names;
  int n_names;
} gpuvec_nvrtc_output;

/* The NVRTC library at `path` (dlopen'ed once; later paths are ignored), and its version. */
gpuvec_status gpuvec_nvrtc_version(const char* path, int* major, int* minor);

/* Compiles `source`, named `program_name` in the log's messages, for compute
 * capability `arch` (e.g. 90): to a CUBIN where NVRTC supports sm_<arch>,
 * else to PTX for the newest architecture it supports below it. options are
 * NVRTC's. A compile error returns GPUVEC_ERROR_COMPILE, with the log in
 * output. */
gpuvec_status gpuvec_nvrtc_compile(const char* path, const char* source, const char* program_name,
                                   int arch, const char* const* options, int n_options,
                                   const char* const* name_expressions, int n_names,
                                   gpuvec_nvrtc_output* output);
void gpuvec_nvrtc_output_free(gpuvec_nvrtc_output* output);

/* gpuvec's own kernels on the CUDA backend (its elementwise ops, reductions
 * and conversions) are compiled at their first use, one kernel at a time,
 * for the device of the call: a build then compiles no kernel for a list of
 * architectures, and a dtype or op that no one calls costs nothing. The
 * compiler is the Python layer's, which `import gpuvec` registers: it
 * compiles `source` with NVRTC, instantiating the one template that
 * `name_expression` names, through the kernel cache on disk; loads the image;
 * and returns the kernel, which must stay loaded for the life of the process.
 * On failure it returns GPUVEC_ERROR_CALLBACK with its own error pending for
 * the caller (a Python exception). It is called from the thread of the call
 * that needs the kernel, which has released the GIL (the compiler takes it). */
typedef gpuvec_status (*gpuvec_kernel_compiler)(const char* source, const char* name_expression,
                                                gpuvec_kernel* kernel);
gpuvec_status gpuvec_set_kernel_compiler(gpuvec_kernel_compiler compiler);

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_KERNELS_H */
