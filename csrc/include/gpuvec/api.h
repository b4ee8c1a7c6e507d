/* gpuvec's C API for other Python extensions: a table of function pointers.
 *
 * gpuvec's compiled code lives in the extension module gpuvec._core, which
 * exports no C symbol but its PyInit__core. Another extension reaches the
 * functions of gpuvec.h through a table that gpuvec._core publishes as the
 * capsule gpuvec._core._C_API, as NumPy publishes its C API (_ARRAY_API):
 *
 *   #include "gpuvec/api.h"   // first: it includes Python.h
 *
 *   PyMODINIT_FUNC PyInit_mine(void) {
 *     if (import_gpuvec() < 0) return NULL;   // an ImportError is set
 *     ...
 *   }
 *   ...
 *   gpuvec_status status = gpuvec_api_table->elementwise(op, &out, in, 2, NULL,
 *                                                         GPUVEC_FLOAT64, &launch);
 *   if (status != GPUVEC_SUCCESS) ... gpuvec_api_table->last_error_message() ...
 *
 * The folder holding this header is gpuvec.get_include(). Cython declares the
 * same in gpuvec/_abi.pxd (gpuvec_api, gpuvec_api_table, import_gpuvec).
 *
 * gpuvec_api_table is a static variable: each C file (translation unit) has
 * its own and calls import_gpuvec() before using it (a module look-up, cheap
 * after the first), or receives the pointer from a file that did.
 *
 * The version rule. The table only grows: a new function is a new field
 * appended at the end, with GPUVEC_API_VERSION raised by one; no field is
 * ever removed, reordered or given another type. So an extension built
 * against version N runs with any gpuvec whose table is version N or later,
 * and import_gpuvec() refuses an older one. The structs that cross the table
 * (gpuvec_array, gpuvec_launch, and gpuvec_op_info, whose rows are read by
 * index) are part of it: their layouts stay too. A change that cannot follow
 * the rule publishes a table under another capsule name.
 *
 * Op codes (GPUVEC_ADD, ...) are the op table's code column: stable, never
 * reused. An op added in a later gpuvec is missing from an older one;
 * elementwise_ops() and reduce_ops() list the ops of the installed gpuvec.
 */
#ifndef GPUVEC_API_H
#define GPUVEC_API_H

#include <Python.h>
#include <stdint.h>

#include "gpuvec/gpuvec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the table this header declares (see the version rule above). */
#define GPUVEC_API_VERSION 1

/* The capsule's name, and the attribute of gpuvec._core that holds it. */
#define GPUVEC_API_CAPSULE_NAME "gpuvec._core._C_API"

/* gpuvec.h's functions, each a field of the same name without `gpuvec_`
 * (gpuvec_cuda_alloc is cuda_alloc). Each is documented where gpuvec.h,
 * runtime.h or status.h declares it. */
typedef struct gpuvec_api {
  uint32_t abi_version; /* GPUVEC_API_VERSION of the gpuvec that made the table */
  uint32_t size;        /* sizeof(gpuvec_api) there: the bytes of the table */

  /* Version 1. */
  /* The op table (gpuvec.h). */
  const gpuvec_op_info* (*elementwise_ops)(int* count);
  const gpuvec_op_info* (*reduce_ops)(int* count);
  /* The ops (gpuvec.h). */
  gpuvec_status (*elementwise)(gpuvec_op op, const gpuvec_array* out, const gpuvec_array* inputs,
                               int n_inputs, const double* params, gpuvec_dtype compute,
                               const gpuvec_launch* launch);
  gpuvec_status (*reduce)(gpuvec_reduce_op op, const gpuvec_array* out, const gpuvec_array* x,
                          const gpuvec_array* y, int reduced_ndim, gpuvec_dtype compute,
                          double ddof, const gpuvec_launch* launch);
  gpuvec_status (*copy)(const gpuvec_array* out, const gpuvec_array* in,
                        const gpuvec_launch* launch);
  gpuvec_status (*count_true)(const gpuvec_array* mask, int64_t* count,
                              const gpuvec_launch* launch);
  gpuvec_status (*compress)(const gpuvec_array* out, const gpuvec_array* x,
                            const gpuvec_array* mask, const gpuvec_launch* launch);
  gpuvec_status (*expand)(const gpuvec_array* x, const gpuvec_array* mask,
                          const gpuvec_array* values, const gpuvec_launch* launch);
  /* The calling thread's last failure (status.h). */
  const char* (*last_error_message)(void);
  int (*last_error_cuda_code)(void);
  const char* (*last_error_cuda_name)(void);
  /* The CUDA runtime that an extension's device arrays need (runtime.h):
   * which devices there are, gpuvec's stream-ordered memory pool, copies. */
  int (*cuda_built)(void);
  gpuvec_status (*cuda_versions)(int* runtime_version, int* driver_version);
  gpuvec_status (*cuda_device_count)(int* count);
  gpuvec_status (*cuda_get_device)(int* device);
  gpuvec_status (*cuda_alloc)(size_t bytes, gpuvec_stream stream, void** ptr);
  gpuvec_status (*cuda_free)(void* ptr, size_t bytes, gpuvec_stream stream);
  gpuvec_status (*cuda_copy_to_device)(void* dst, const void* src, size_t bytes,
                                       gpuvec_stream stream);
  gpuvec_status (*cuda_copy_to_host)(void* dst, const void* src, size_t bytes,
                                     gpuvec_stream stream);
  gpuvec_status (*cuda_stream_synchronize)(gpuvec_stream stream);
  /* Later versions append their fields here. */
} gpuvec_api;

/* This translation unit's table: NULL until import_gpuvec() succeeds. */
static const gpuvec_api* gpuvec_api_table = NULL;

/* Imports gpuvec._core and sets gpuvec_api_table from its capsule. Returns 0,
 * or -1 with a Python exception set: the import's own error, or ImportError
 * when the capsule is missing or its table is older than this header. Call it
 * with the GIL held, as a module's init function runs. */
static inline int import_gpuvec(void) {
  gpuvec_api_table = NULL; /* until this import has checked the table */
  PyObject* module = PyImport_ImportModule("gpuvec._core");
  if (module == NULL) return -1;
  PyObject* capsule = PyObject_GetAttrString(module, "_C_API");
  Py_DECREF(module);
  if (capsule == NULL || !PyCapsule_IsValid(capsule, GPUVEC_API_CAPSULE_NAME)) {
    Py_XDECREF(capsule);
    PyErr_Clear();
    PyErr_SetString(PyExc_ImportError,
                    "gpuvec._core._C_API is not a capsule named '" GPUVEC_API_CAPSULE_NAME
                    "': the installed gpuvec has no C API for other extensions; upgrade it");
    return -1;
  }
  /* The table is static data of gpuvec._core, which is never unloaded: the
   * pointer outlives the reference to the capsule. */
  const gpuvec_api* api =
      (const gpuvec_api*)PyCapsule_GetPointer(capsule, GPUVEC_API_CAPSULE_NAME);
  Py_DECREF(capsule);
  if (api == NULL) return -1;
  if (api->abi_version < GPUVEC_API_VERSION || api->size < sizeof(gpuvec_api)) {
    PyErr_Format(PyExc_ImportError,
                 "this extension was built against gpuvec's C API version %d, but the "
                 "installed gpuvec's is version %u (a table of %u bytes, %u expected): "
                 "upgrade gpuvec, or rebuild the extension against the installed one",
                 GPUVEC_API_VERSION, (unsigned)api->abi_version, (unsigned)api->size,
                 (unsigned)sizeof(gpuvec_api));
    return -1;
  }
  gpuvec_api_table = api;
  return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* GPUVEC_API_H */
