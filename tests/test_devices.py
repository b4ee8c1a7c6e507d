"""Devices: selecting one, arrays remembering theirs, and refusing to mix them.

The tests of two devices (the two_devices fixture of conftest.py) run on the
cuda backend wherever two GPUs are visible, and skip elsewhere, saying how
many the suite sees; with GPUVEC_TEST_DEVICES=2 they fail there instead.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import skip_without_cuda

import gpuvec


def test_device_context_and_array_device(backend):
    with gpuvec.Device(0) as d:
        assert gpuvec.current_device() == d
        x = gpuvec.ones(3)
    assert x.device == gpuvec.Device(0)
    assert "name" in d.properties


def test_device_out_of_range(backend):
    count = len(gpuvec.devices()) if backend == "cuda" else 1
    with pytest.raises(ValueError, match=f"device {count} does not exist"):
        gpuvec.Device(count)


def test_the_suite_sees_the_devices_a_new_process_sees(tmp_path):
    # Nothing the suite does (its conftest, another test module, a library it
    # imports) may hide devices from it: the tests of two devices would skip.
    skip_without_cuda()
    code = "import gpuvec; print([d['uuid'] for d in gpuvec.devices()])"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=tmp_path,  # not the repository root, whose gpuvec/ has no compiled core
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([d["uuid"] for d in gpuvec.devices()])


def test_two_devices(two_devices):
    with gpuvec.Device(1):
        b = gpuvec.ones(4)
    a = gpuvec.ones(4)
    assert b.device.id == 1
    assert float(gpuvec.sum(b + b)) == 8.0  # runs on device 1 from device 0's context
    with pytest.raises(ValueError, match="different devices"):
        gpuvec.add(a, b)


def test_like_arrays_are_made_on_the_prototypes_device(two_devices):
    with gpuvec.Device(1):
        d = gpuvec.ones((2, 3), dtype=np.float32)
    assert gpuvec.current_device().id == 0
    made = [
        gpuvec.empty_like(d),
        gpuvec.zeros_like(d),
        gpuvec.ones_like(d),
        gpuvec.full_like(d, 2.5),
        np.zeros_like(d),  # through NumPy's protocol
    ]
    for like in made:
        assert like.device.id == 1
        assert (like.shape, like.dtype) == (d.shape, d.dtype)
    np.testing.assert_array_equal(made[3].to_host(), np.full((2, 3), 2.5, np.float32))
    assert gpuvec.current_device().id == 0


def test_device_context_nests_and_restores(two_devices):
    assert gpuvec.current_device().id == 0
    with gpuvec.Device(1):
        assert gpuvec.current_device().id == 1
        with gpuvec.Device(0):
            assert gpuvec.current_device().id == 0
            inner = gpuvec.zeros(2)
        assert gpuvec.current_device().id == 1
        outer = gpuvec.zeros(2)
    assert gpuvec.current_device().id == 0
    assert (inner.device.id, outer.device.id) == (0, 1)


def test_arrays_keep_their_device_through_ops_and_views(two_devices, rng):
    x = rng.standard_normal((33, 17))
    with gpuvec.Device(1):
        b = gpuvec.to_device(x)
    # Called from device 0's context: the work runs where the data is, and
    # the caller's current device is left as it was.
    results = [b * 2.0 - 1.0, gpuvec.exp(b), b.T, b[::2], b.copy(), b.astype(np.float32)]
    results += [gpuvec.sum(b, axis=0), b > 0.0, b[b > 0.0]]
    assert gpuvec.current_device().id == 0
    assert [r.device.id for r in results] == [1] * len(results)
    np.testing.assert_array_equal(results[0].to_host(), x * 2.0 - 1.0)
    np.testing.assert_array_equal(results[-1].to_host(), x[x > 0.0])
    np.testing.assert_allclose(results[6].to_host(), x.sum(axis=0), rtol=1e-12)
    assert gpuvec.count_nonzero(b > 0.0) == np.count_nonzero(x > 0.0)


def test_mixing_devices_is_a_value_error(two_devices):
    a = gpuvec.ones(4)
    with gpuvec.Device(1):
        b = gpuvec.ones(4)
    calls = [
        lambda: a + b,
        lambda: gpuvec.add(a, 1.0, out=b),
        lambda: gpuvec.where(b > 0.0, a, 0.0),
        lambda: a[b > 0.0],
        lambda: a.__setitem__(b > 0.0, 2.0),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="different devices"):
            call()
    np.testing.assert_array_equal(b.to_host(), np.ones(4))  # nothing was written


def test_copies_between_devices_go_through_the_host(two_devices, rng):
    x = rng.standard_normal(1025)
    a = gpuvec.to_device(x)
    with gpuvec.Device(1):
        b = gpuvec.to_device(a.to_host())
    assert b.device.id == 1
    np.testing.assert_array_equal(b.to_host(), x)
    back = gpuvec.to_device(b.to_host())
    assert back.device.id == 0
    np.testing.assert_array_equal(back.to_host(), x)


def test_streams_and_pools_are_per_device(two_devices):
    in_use_on_0 = gpuvec.memory_info()["in_use"]
    with gpuvec.Device(1):
        stream = gpuvec.Stream()  # a stream of device 1
        before = gpuvec.memory_info()["in_use"]
        with stream:
            b = gpuvec.full(1 << 20, 3.0)
            c = b * b
        stream.synchronize()
        used_on_1 = gpuvec.memory_info()["in_use"] - before
    np.testing.assert_array_equal(c.to_host(), np.full(1 << 20, 9.0))
    assert used_on_1 >= b.nbytes + c.nbytes  # both arrays come from device 1's pool
    # ... and none from device 0's (whose use may only have shrunk, as the
    # garbage of earlier tests was freed meanwhile).
    assert gpuvec.memory_info()["in_use"] <= in_use_on_0
