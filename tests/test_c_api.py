"""gpuvec's C API for other extensions: the capsule ``gpuvec._core._C_API``.

The capsule holds a versioned table of function pointers (``gpuvec/api.h``),
since gpuvec._core exports no C symbol. These tests build a small extension
against the installed headers, as a third party would, with the C (and the
C++) compiler Python was built with, and call gpuvec through the table on the
host backend: no GPU is needed.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shlex
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import gpuvec
from gpuvec import _core
from gpuvec._table import ELEMENTWISE, REDUCE

CAPSULE_NAME = b"gpuvec._core._C_API"

# The extension: `binary(name, a, b, out)` runs an elementwise op of gpuvec's
# op table on buffers (float32 or float64, any strides) through the table;
# `ops()` gives the op tables' codes by name; `reimport()` runs import_gpuvec() again.
PROBE_SOURCE = r"""
#include "gpuvec/api.h" /* first: it includes Python.h */

#include <string.h>

/* The row of `name` in one of the op tables, or -1. */
static int find_op(const gpuvec_op_info* rows, int count, const char* name) {
  for (int i = 0; i < count; ++i)
    if (strcmp(rows[i].name, name) == 0) return rows[i].code;
  return -1;
}

/* A buffer as a descriptor of host memory; -1 with a Python error if it is
 * not float32 or float64. */
static int describe(const Py_buffer* view, gpuvec_array* array) {
  memset(array, 0, sizeof *array);
  if (strcmp(view->format, "d") == 0) {
    array->dtype = GPUVEC_FLOAT64;
  } else if (strcmp(view->format, "f") == 0) {
    array->dtype = GPUVEC_FLOAT32;
  } else {
    PyErr_Format(PyExc_TypeError, "expected float32 or float64, got format '%s'", view->format);
    return -1;
  }
  if (view->ndim > GPUVEC_MAX_NDIM) {
    PyErr_SetString(PyExc_ValueError, "too many dimensions");
    return -1;
  }
  array->data = view->buf;
  array->memory = GPUVEC_MEMORY_HOST;
  array->ndim = view->ndim;
  for (int i = 0; i < view->ndim; ++i) {
    array->shape[i] = view->shape[i];
    array->strides[i] = view->strides[i] / view->itemsize; /* gpuvec counts elements */
  }
  return 0;
}

static PyObject* binary(PyObject* self, PyObject* args) {
  const char* name;
  PyObject *a, *b, *out;
  (void)self;
  if (!PyArg_ParseTuple(args, "sOOO", &name, &a, &b, &out)) return NULL;
  int count = 0;
  const gpuvec_op_info* rows = gpuvec_api_table->elementwise_ops(&count);
  int code = find_op(rows, count, name);
  if (code < 0) {
    PyErr_Format(PyExc_KeyError, "no elementwise op '%s'", name);
    return NULL;
  }
  Py_buffer views[3];
  PyObject* objects[3] = {a, b, out};
  int got = 0;
  gpuvec_array arrays[3];
  for (; got < 3; ++got) {
    int flags = got == 2 ? PyBUF_RECORDS : PyBUF_RECORDS_RO;
    if (PyObject_GetBuffer(objects[got], &views[got], flags) < 0) break;
    if (describe(&views[got], &arrays[got]) < 0) {
      ++got;
      break;
    }
  }
  gpuvec_status status = GPUVEC_SUCCESS;
  const char* message = "";
  if (got == 3 && !PyErr_Occurred()) {
    gpuvec_launch launch = {GPUVEC_BACKEND_HOST, 0, NULL};
    Py_BEGIN_ALLOW_THREADS
    status = gpuvec_api_table->elementwise((gpuvec_op)code, &arrays[2], arrays, 2, NULL,
                                           arrays[2].dtype, &launch);
    if (status != GPUVEC_SUCCESS) message = gpuvec_api_table->last_error_message();
    Py_END_ALLOW_THREADS
  }
  for (int i = 0; i < got; ++i) PyBuffer_Release(&views[i]);
  if (PyErr_Occurred()) return NULL;
  if (status != GPUVEC_SUCCESS) {
    PyErr_SetString(PyExc_ValueError, message);
    return NULL;
  }
  Py_RETURN_NONE;
}

/* ({name: code} of the elementwise ops, the same of the reductions), read
 * through the table. */
static PyObject* ops(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  const gpuvec_op_info* (*tables[2])(int*) = {gpuvec_api_table->elementwise_ops,
                                              gpuvec_api_table->reduce_ops};
  PyObject* result = PyTuple_New(2);
  for (int t = 0; result != NULL && t < 2; ++t) {
    int count = 0;
    const gpuvec_op_info* rows = tables[t](&count);
    PyObject* codes = PyDict_New();
    PyTuple_SET_ITEM(result, t, codes); /* steals it; NULL is released as nothing */
    for (int i = 0; codes != NULL && i < count; ++i) {
      PyObject* code = PyLong_FromLong(rows[i].code);
      if (code == NULL || PyDict_SetItemString(codes, rows[i].name, code) < 0) codes = NULL;
      Py_XDECREF(code);
    }
    if (codes == NULL) Py_CLEAR(result);
  }
  return result;
}

/* (GPUVEC_API_VERSION, sizeof(gpuvec_api)) as this extension was built. */
static PyObject* built_against(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return Py_BuildValue("(in)", GPUVEC_API_VERSION, (Py_ssize_t)sizeof(gpuvec_api));
}

static PyObject* reimport(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  if (import_gpuvec() < 0) return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"binary", binary, METH_VARARGS, NULL},
    {"ops", ops, METH_NOARGS, NULL},
    {"built_against", built_against, METH_NOARGS, NULL},
    {"reimport", reimport, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "MODULE", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_MODULE(void) {
  if (import_gpuvec() < 0) return NULL;
  return PyModule_Create(&module);
}
"""


def _compiler(language: str) -> list[str] | None:
    """Python's own C or C++ compiler as a command that builds an extension, or None."""
    command = sysconfig.get_config_var("CC" if language == "c" else "CXX")
    if not command or shutil.which(shlex.split(command)[0]) is None:
        return None
    flags = ["-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror"]
    if sys.platform == "darwin":
        flags += ["-undefined", "dynamic_lookup"]  # Python's symbols come from the process
    return [*shlex.split(command), *flags]


@pytest.fixture(scope="module", params=["c", "c++"])
def probe(request, tmp_path_factory):
    """The extension, built in a temporary folder and imported; in C, then in C++."""
    compiler = _compiler(request.param)
    if compiler is None:
        pytest.skip(f"no {request.param} compiler from sysconfig to build an extension with")
    name = "gpuvec_capi_probe_" + ("c" if request.param == "c" else "cpp")
    folder = tmp_path_factory.mktemp(name)
    source = folder / (name + (".c" if request.param == "c" else ".cpp"))
    source.write_text(PROBE_SOURCE.replace("MODULE", name), encoding="utf-8")
    library = folder / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    includes = [f"-I{sysconfig.get_paths()['include']}", f"-I{gpuvec.get_include()}"]
    build = subprocess.run(
        [*compiler, *includes, str(source), "-o", str(library)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    spec = importlib.util.spec_from_file_location(name, library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _capsule_api():
    """The capsule's C functions, by ctypes."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_New.restype = ctypes.py_object
    api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return api


class _Header(ctypes.Structure):
    """The table's first fields, which every version keeps."""

    _fields_ = [("abi_version", ctypes.c_uint32), ("size", ctypes.c_uint32)]


def test_capsule_is_published():
    api = _capsule_api()
    assert type(_core._C_API).__name__ == "PyCapsule"
    assert api.PyCapsule_GetName(_core._C_API) == CAPSULE_NAME
    header = _Header.from_address(api.PyCapsule_GetPointer(_core._C_API, CAPSULE_NAME))
    assert header.abi_version >= 1
    # the two counters, then function pointers
    assert header.size > ctypes.sizeof(_Header)
    assert (header.size - ctypes.sizeof(_Header)) % ctypes.sizeof(ctypes.c_void_p) == 0


def test_table_matches_the_headers(probe):
    api = _capsule_api()
    header = _Header.from_address(api.PyCapsule_GetPointer(_core._C_API, CAPSULE_NAME))
    assert (header.abi_version, header.size) == probe.built_against()


def test_op_table_through_the_table(probe):
    assert probe.ops() == (ELEMENTWISE, REDUCE)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_elementwise_through_the_table(probe, name, dtype):
    rng = np.random.default_rng()
    a = rng.standard_normal((37, 29)).astype(dtype)
    b = rng.standard_normal((37, 29)).astype(dtype) + 3
    out = np.empty_like(a)
    probe.binary(name, a, b, out)
    np.testing.assert_array_equal(out, getattr(np, name)(a, b))  # IEEE ops: NumPy's bits
    # strided and reversed views, written into a strided out
    wide = np.zeros((37, 58), dtype)
    probe.binary(name, a[::-1], b.T.copy().T, wide[:, ::2])
    np.testing.assert_array_equal(wide[:, ::2], getattr(np, name)(a[::-1], b))
    assert not wide[:, 1::2].any()


def test_errors_carry_gpuvec_message(probe):
    a = np.ones(5)
    with pytest.raises(ValueError, match=r"shape"):
        probe.binary("add", a, np.ones(6), np.empty(5))
    with pytest.raises(KeyError, match="no elementwise op 'no_such_op'"):
        probe.binary("no_such_op", a, a, np.empty(5))


def test_import_refuses_an_older_table(probe, monkeypatch):
    api = _capsule_api()
    old = _Header(0, ctypes.sizeof(_Header))  # a table of version 0: no functions at all
    name = ctypes.create_string_buffer(CAPSULE_NAME)
    monkeypatch.setattr(_core, "_C_API", api.PyCapsule_New(ctypes.addressof(old), name, None))
    version, _ = probe.built_against()
    with pytest.raises(ImportError, match=rf"C API version {version}, but .* is version 0"):
        probe.reimport()
    monkeypatch.setattr(_core, "_C_API", object())
    with pytest.raises(ImportError, match=r"is not a capsule named 'gpuvec\._core\._C_API'"):
        probe.reimport()
    monkeypatch.undo()
    probe.reimport()  # the real table again, for the tests after this one
    out = np.empty(3)
    probe.binary("add", np.arange(3.0), np.ones(3), out)
    np.testing.assert_array_equal(out, np.arange(3.0) + 1)
