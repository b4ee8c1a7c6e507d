"""gpuvec._core as a package of modules: what crosses between them, seen from Python."""

import pickle

import numpy as np
import pytest
from conftest import random_array

import gpuvec
from gpuvec import _core


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float16])
@pytest.mark.parametrize("target_dtype", [np.float32, np.float64])
def test_assignment_converts_host_ints_and_float16(backend, rng, dtype, target_dtype):
    """A copy's host source of ints is converted by NumPy first, as NumPy's
    own assignment converts it; float16 by gpuvec, exactly as NumPy widens it."""
    source = (100 * random_array(rng, (5, 7), np.float64)).astype(dtype)
    d = gpuvec.zeros((5, 7), dtype=target_dtype)
    d[:] = source
    expected = np.zeros((5, 7), target_dtype)
    expected[:] = source
    np.testing.assert_array_equal(d.to_host(), expected)


def test_assignment_broadcasts_a_converted_host_row(backend, rng):
    row = (10 * random_array(rng, (7,), np.float64)).astype(np.int16)
    d = gpuvec.zeros((4, 7))
    d[1:3] = row
    expected = np.zeros((4, 7))
    expected[1:3] = row
    np.testing.assert_array_equal(d.to_host(), expected)


@pytest.mark.parametrize(
    "error",
    [
        gpuvec.CudaError("invalid argument", 1, "cudaErrorInvalidValue"),
        gpuvec.OutOfMemoryError("out of memory", 2, "cudaErrorMemoryAllocation"),
        gpuvec.CompileError("k.cu, line 2: y is undefined", log="...", source_name="k.cu"),
        gpuvec.GpuvecError("internal"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_exceptions_keep_their_public_module_and_pickle(error):
    """The core defines the exceptions; users and pickle know them as gpuvec's."""
    cls = type(error)
    assert cls.__module__ == "gpuvec._errors"
    assert cls is getattr(gpuvec, cls.__name__)
    loaded = pickle.loads(pickle.dumps(error))
    assert type(loaded) is cls
    assert str(loaded) == str(error)
    assert loaded.__dict__ == error.__dict__


def test_the_core_raises_the_public_exceptions(backend):
    with pytest.raises(gpuvec.CudaError):
        gpuvec.add(np.ones(4), np.ones(4), threads_per_block=4096)


def test_facade_lists_no_private_name():
    """The Python layer calls the core through public names only (and the C
    API's capsule, which other extensions read by that name)."""
    exported = [name for name in vars(_core) if not name.startswith("__")]
    private = [name for name in exported if name.startswith("_")]
    modules = {
        "_abi",
        "_copy",
        "_dlpack",
        "_elementwise",
        "_kernels",
        "_launch",
        "_memory",
        "_operands",
        "_reduce",
        "_results",
        "_scan",
        "_select",
        "_streams",
    }
    assert set(private) <= modules | {"_C_API"}


def test_c_api_capsule_is_published_where_import_gpuvec_reads_it():
    assert type(_core._C_API).__name__ == "PyCapsule"
    assert "gpuvec._core._C_API" in repr(_core._C_API)
