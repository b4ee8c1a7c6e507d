"""DeviceArrays pickle by value and copy on their device: what Dask's workers rely on."""

import copy
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from conftest import random_array

import gpuvec

LAYOUTS = {
    "contiguous": lambda d: d,
    "strided": lambda d: d[::-2, 1::3],
    "transposed": lambda d: d.T,
    "0d": lambda d: d[1, 2],
    "empty": lambda d: d[:0],
}


def _check_copy(loaded, original, expected):
    assert isinstance(loaded, gpuvec.DeviceArray)
    assert (loaded.shape, loaded.dtype) == (expected.shape, expected.dtype)
    assert loaded.is_c_contiguous
    assert loaded.device == gpuvec.current_device()
    np.testing.assert_array_equal(loaded.to_host(), expected)
    if loaded.size:  # a copy: writing it leaves the original as it was
        loaded.fill(1.0)
        np.testing.assert_array_equal(original.to_host(), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_pickle_round_trip(backend, rng, layout, dtype, protocol):
    base = random_array(rng, (9, 10), np.float64)
    base = base > 0 if dtype == np.bool_ else base.astype(dtype)
    view = LAYOUTS[layout]
    d = view(gpuvec.to_device(base))
    _check_copy(pickle.loads(pickle.dumps(d, protocol=protocol)), d, view(base))


def test_pickle_keeps_the_dtype_under_another_precision(backend):
    data = pickle.dumps(gpuvec.to_device(np.arange(3.0)))
    with gpuvec.precision("float32"):
        loaded = pickle.loads(data)
    assert loaded.dtype == np.float64


def test_pickled_read_only_view_loads_writable(backend):
    d = gpuvec.broadcast_to(gpuvec.to_device(np.array([1.0, 2.0])), (3, 2))
    loaded = pickle.loads(pickle.dumps(d))
    loaded[0, 0] = 5.0  # as NumPy's: the loaded copy is dense and writable
    np.testing.assert_array_equal(loaded.to_host(), [[5.0, 2.0], [1.0, 2.0], [1.0, 2.0]])


@pytest.mark.parametrize("make_copy", [copy.copy, copy.deepcopy])
def test_copy_module_copies_on_the_device(backend, rng, make_copy, no_transfers):
    x = random_array(rng, (5, 6), np.float32)
    d = gpuvec.to_device(x)
    with no_transfers:
        c = make_copy(d[:, ::2])
    assert isinstance(c, gpuvec.DeviceArray)
    _check_copy(c, d[:, ::2], x[:, ::2])


def test_pickle_loads_in_another_process(backend, rng, tmp_path):
    """The bytes carry the data, not an address: a fresh process reads the same values."""
    x = random_array(rng, (4, 7), np.float32)
    path = tmp_path / "array.pickle"
    path.write_bytes(pickle.dumps(gpuvec.to_device(x)[::2]))
    script = (
        "import pickle, sys, numpy as np, gpuvec\n"
        "d = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "assert isinstance(d, gpuvec.DeviceArray) and d.dtype == np.float32\n"
        "np.save(sys.argv[2], d.to_host())\n"
    )
    env = {**os.environ, "GPUVEC_BACKEND": backend}
    subprocess.run(
        [sys.executable, "-W", "ignore", "-c", script, str(path), str(tmp_path / "out.npy")],
        check=True,
        env=env,
        cwd=tmp_path,
    )
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), x[::2])


def test_pickle_loads_on_the_current_device(two_devices):
    """Pickled on device 1, loaded where device 0 is current: it lands on device 0."""
    with gpuvec.Device(1):
        data = pickle.dumps(gpuvec.arange(5))
    with gpuvec.Device(0):
        loaded = pickle.loads(data)
    assert loaded.device.id == 0
    np.testing.assert_array_equal(loaded.to_host(), np.arange(5.0))
