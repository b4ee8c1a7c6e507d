"""Devices: selecting one, arrays remembering theirs, and refusing to mix them."""

import pytest

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


def test_two_devices(backend):
    if backend != "cuda" or len(gpuvec.devices()) < 2:
        pytest.skip("needs two CUDA devices")
    with gpuvec.Device(1):
        b = gpuvec.ones(4)
    a = gpuvec.ones(4)
    assert b.device.id == 1
    assert float(gpuvec.sum(b + b)) == 8.0  # runs on device 1 from device 0's context
    with pytest.raises(ValueError, match="different devices"):
        gpuvec.add(a, b)
