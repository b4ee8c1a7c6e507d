"""gpuvec.dask: Dask arrays of DeviceArray chunks, and of NumPy chunks through gpuvec.

Results are compared with NumPy in float64 on fresh random data, in chunks of
odd sizes; the computed chunks must be DeviceArrays where the data should stay
on the device, and nothing may be read or copied before Dask computes.
"""

import os
import pickle
import subprocess
import sys
import warnings
from functools import partial

import numpy as np
import pytest
from conftest import random_array, skip_without_cuda

import gpuvec

da = pytest.importorskip("dask.array", reason="gpuvec.dask needs dask[array]")
dask = pytest.importorskip("dask")
gpuvec_dask = pytest.importorskip("gpuvec.dask")

SHAPE, CHUNKS = (101, 29), (13, 7)  # ragged last chunks on both axes


def tolerance(dtype):
    return {"rtol": 2e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}


def blocks(x):
    """The computed chunks of a Dask array."""
    return list(dask.compute(*x.to_delayed().ravel()))


def host(result):
    return result.to_host() if isinstance(result, gpuvec.DeviceArray) else np.asarray(result)


@pytest.fixture
def data(rng):
    x = random_array(rng, SHAPE, np.float64)
    x[3, 4] = 0.0
    return x


@pytest.fixture
def copies_to_host(monkeypatch):
    """Counts DeviceArray.to_host calls: a pickle, np.asarray(d) and to_host all make one."""
    calls = []
    original = gpuvec.DeviceArray.to_host

    def counted(self):
        calls.append(self.shape)
        return original(self)

    monkeypatch.setattr(gpuvec.DeviceArray, "to_host", counted)
    return calls


# -- registration and laziness -------------------------------------------------------------------


def test_import_gpuvec_does_not_import_dask():
    probe = (
        "import sys, gpuvec; print(sorted(m for m in sys.modules if m.split('.')[0] == 'dask'))"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", probe], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_device_array_is_a_dask_chunk_type():
    from dask.array.chunk_types import is_valid_chunk_type

    assert is_valid_chunk_type(gpuvec.DeviceArray)


def test_nothing_is_read_or_copied_before_compute(backend, data, copies_to_host, no_transfers):
    reads = []

    def read(block):
        if block.size:  # Dask calls it on a chunk of no elements to learn its output type
            reads.append(block.shape)
        return block

    source = da.from_array(data, chunks=CHUNKS).map_blocks(read, dtype=data.dtype)
    with no_transfers:
        d = gpuvec_dask.to_device(source)
        pipeline = [
            gpuvec_dask.to_host(np.exp(d / 10) * 2 - d.mean(axis=0)),
            d.std(),
            (d > 0).sum(axis=1),
            d.max(),
            d.rechunk((50, 29)).min(axis=0),
        ]
    assert reads == []
    assert copies_to_host == []
    results = dask.compute(*pipeline)
    assert len(reads) >= d.npartitions
    expected = np.exp(data / 10) * 2 - data.mean(axis=0)
    np.testing.assert_allclose(results[0], expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(float(results[1]), data.std(), rtol=1e-10)


def test_to_device_makes_device_array_chunks(backend, data):
    x = da.from_array(data, chunks=CHUNKS)
    d = gpuvec_dask.to_device(x)
    assert isinstance(d._meta, gpuvec.DeviceArray)
    assert (d.shape, d.chunks, d.dtype) == (x.shape, x.chunks, np.float64)
    chunks = blocks(d)
    assert all(isinstance(c, gpuvec.DeviceArray) for c in chunks)
    assert all(c.device == gpuvec.current_device() for c in chunks)
    np.testing.assert_array_equal(host(d.compute()), data)
    assert gpuvec_dask.to_device(d) is d  # already there


@pytest.mark.parametrize(
    ("source", "dtype", "expected"),
    [
        (np.float32, None, np.float32),
        (np.float64, None, np.float64),
        (np.int32, None, np.int32),
        (np.bool_, None, np.bool_),
        (np.float64, np.float32, np.float32),
        (np.int64, "float32", np.float32),
    ],
)
def test_to_device_dtypes_follow_the_policy(backend, rng, source, dtype, expected):
    values = rng.integers(-5, 5, SHAPE).astype(source)
    d = gpuvec_dask.to_device(da.from_array(values, chunks=CHUNKS), dtype)
    assert d.dtype == expected
    # A precision in force where the chunks are made (this thread: the synchronous
    # scheduler) has no say in their dtype.
    with gpuvec.precision("float64"), dask.config.set(scheduler="sync"):
        result = d.compute()
    assert result.dtype == expected
    np.testing.assert_array_equal(result.to_host(), values.astype(expected))


def test_to_host_makes_numpy_chunks(backend, data):
    d = gpuvec_dask.to_device(da.from_array(data, chunks=CHUNKS))
    h = gpuvec_dask.to_host(d * 2)
    assert type(h._meta) is np.ndarray
    assert all(type(c) is np.ndarray for c in blocks(h))
    np.testing.assert_array_equal(h.compute(), data * 2)
    numpy_chunks = da.from_array(data, chunks=CHUNKS)
    np.testing.assert_array_equal(gpuvec_dask.to_host(numpy_chunks).compute(), data)
    np.testing.assert_array_equal(d.to_backend("numpy").compute(), data)  # Dask's own way


@pytest.mark.parametrize("function", ["to_device", "to_host"])
@pytest.mark.parametrize("bad", [np.ones(3), [1.0, 2.0], None], ids=["ndarray", "list", "None"])
def test_non_dask_input_is_a_type_error(function, bad):
    with pytest.raises(TypeError, match=r"x must be a dask\.array\.Array, got"):
        getattr(gpuvec_dask, function)(bad)


def test_to_device_refuses_other_dtypes(backend):
    with pytest.raises(TypeError, match=r"dtype must be one of float32, .*; got datetime64\[D\]"):
        gpuvec_dask.to_device(da.ones(4, chunks=2), "datetime64[D]")


# -- DeviceArray chunks: elementwise ops ----------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elementwise_stays_on_device(backend, rng, dtype, copies_to_host):
    x, y = random_array(rng, SHAPE, dtype), random_array(rng, (SHAPE[1],), dtype)
    dx = gpuvec_dask.to_device(da.from_array(x, chunks=CHUNKS))
    dy = gpuvec_dask.to_device(da.from_array(y, chunks=CHUNKS[1]))
    expressions = {
        "arithmetic": lambda a, b: (a * 2 + 1) / (abs(b) + 1) - b,
        "ufuncs": lambda a, b: np.sqrt(np.abs(a)) + np.exp(b / 10) + np.maximum(a, b),
        "where and clip": lambda a, b: np.where(a > b, np.clip(a, -3, 3), -1.0),
        "comparison": lambda a, b: (a > 0) & ~(b < -1),
        "transpose": lambda a, b: (a.T + 1).T * b,
        "astype": lambda a, b: (a + b).astype(np.float64 if dtype == np.float32 else np.float32),
    }
    computed = {}
    for name, f in expressions.items():
        result = f(dx, dy)
        assert all(isinstance(c, gpuvec.DeviceArray) for c in blocks(result)), name
        computed[name] = result.compute()
    assert copies_to_host == []  # the chunks stayed on the device, and were joined there
    for name, f in expressions.items():
        expected = f(x.astype(np.float64), y.astype(np.float64))
        got = computed[name].to_host()
        if expected.dtype == np.bool_:
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, err_msg=name, **tolerance(dtype))


def test_device_and_numpy_chunks_do_not_mix(backend, data):
    x = da.from_array(data, chunks=CHUNKS)
    with pytest.raises(TypeError, match="in host memory"):
        (gpuvec_dask.to_device(x) + x).compute()


# -- DeviceArray chunks: Dask's reductions --------------------------------------------------------

# name: (Dask's reduction, NumPy's), both called as f(x, axis=..., keepdims=...).
REDUCTIONS = {
    "sum": (da.sum, np.sum),
    "mean": (da.mean, np.mean),
    "std": (da.std, np.std),
    "var ddof=1": (partial(da.var, ddof=1), partial(np.var, ddof=1)),
    "min": (da.min, np.min),
    "max": (da.max, np.max),
    "prod": (lambda a, **k: da.prod(a / 40 + 1, **k), lambda x, **k: np.prod(x / 40 + 1, **k)),
    "any": (lambda a, **k: da.any(a > 2, **k), lambda x, **k: np.any(x > 2, **k)),
    "all": (lambda a, **k: da.all(a > -20, **k), lambda x, **k: np.all(x > -20, **k)),
    "nansum": (da.nansum, np.nansum),
    "nanmean": (da.nanmean, np.nanmean),
}


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_stay_on_device(backend, data, name, axis, keepdims):
    dask_reduction, numpy_reduction = REDUCTIONS[name]
    x = data.copy()
    if name.startswith("nan"):
        x[::5, 2] = np.nan
        x[:, 11] = np.nan  # a column of NaN alone
    d = gpuvec_dask.to_device(da.from_array(x, chunks=CHUNKS))
    # split_every=2: a tree of combine steps, not one aggregate
    result = dask_reduction(d, axis=axis, keepdims=keepdims, split_every=2).compute()
    assert isinstance(result, gpuvec.DeviceArray), type(result)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of a column of NaN alone
        expected = numpy_reduction(x, axis=axis, keepdims=keepdims)
    assert result.shape == np.shape(expected)
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-10, atol=1e-10)


def test_moment_and_norm(backend, data):
    d = gpuvec_dask.to_device(da.from_array(data, chunks=CHUNKS))
    third = da.moment(d, 3, axis=0).compute()
    np.testing.assert_allclose(
        third.to_host(), np.mean((data - data.mean(axis=0)) ** 3, axis=0), rtol=1e-10, atol=1e-9
    )
    for axis in (None, 1):
        norm = da.linalg.norm(d, axis=axis).compute()
        assert isinstance(norm, gpuvec.DeviceArray)
        np.testing.assert_allclose(norm.to_host(), np.linalg.norm(data, axis=axis), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_and_std_of_float32_chunks(backend, rng, dtype):
    x = random_array(rng, SHAPE, dtype) + 100
    d = gpuvec_dask.to_device(da.from_array(x, chunks=CHUNKS))
    mean, std = dask.compute(d.mean(axis=0), d.std())
    assert mean.dtype == dtype
    np.testing.assert_allclose(
        mean.to_host(), x.astype(np.float64).mean(axis=0), **tolerance(dtype)
    )
    np.testing.assert_allclose(float(std), x.astype(np.float64).std(), **tolerance(dtype))


def test_counts_are_whole_numbers_on_the_device(backend, data):
    d = gpuvec_dask.to_device(da.from_array(data, chunks=CHUNKS))
    counts = {
        "sum of bools": ((d > 0).sum(axis=0), (data > 0).sum(axis=0)),
        "count_nonzero": (da.count_nonzero(d, axis=1), np.count_nonzero(data, axis=1)),
        "count_nonzero of all": (da.count_nonzero(d > 1), np.count_nonzero(data > 1)),
    }
    for name, (result, expected) in counts.items():
        computed = result.compute()
        assert isinstance(computed, gpuvec.DeviceArray), name
        assert computed.dtype == np.asarray(expected).dtype == np.int64, name  # counts stay ints
        np.testing.assert_array_equal(computed.to_host(), expected, err_msg=name)


def test_dot_of_vectors(backend, rng):
    x, y = random_array(rng, 1001, np.float64), random_array(rng, 1001, np.float64)
    dx, dy = (gpuvec_dask.to_device(da.from_array(v, chunks=97)) for v in (x, y))
    result = dx.dot(dy).compute()
    assert isinstance(result, gpuvec.DeviceArray)
    np.testing.assert_allclose(float(result), x @ y, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize(
    "call", [lambda d: d.argmax(), lambda d: d.argmin(axis=0), lambda d: d.cumsum(axis=0)]
)
def test_what_gpuvec_lacks_is_numpys_type_error(backend, data, call, copies_to_host):
    """Dask's argmax gathers by index arrays and cumsum scans: neither is a gpuvec
    op (numpy-differences, 6), so they raise, rather than copy chunks to the host."""
    d = gpuvec_dask.to_device(da.from_array(data, chunks=CHUNKS))
    with pytest.raises(TypeError, match=r"basic indexing only|no implementation found"):
        call(d).compute()
    assert copies_to_host == []


def test_empty_dask_arrays(backend):
    d = gpuvec_dask.to_device(da.zeros((0, 5), chunks=(3, 2)))
    assert float(d.sum().compute()) == 0.0
    assert d.sum(axis=0).compute().shape == (5,)
    assert gpuvec_dask.to_host(d + 1).compute().shape == (0, 5)


# -- NumPy chunks through gpuvec (staged) ---------------------------------------------------------


def test_numpy_chunks_through_gpuvec_functions(backend, rng):
    x, y = random_array(rng, SHAPE, np.float64), random_array(rng, SHAPE, np.float32)
    dx, dy = da.from_array(x, chunks=CHUNKS), da.from_array(y, chunks=(50, 29))
    results = {
        "map_blocks": (dx.map_blocks(gpuvec.exp), np.exp(x)),
        "two arrays": (da.map_blocks(gpuvec.add, dx, dy.rechunk(CHUNKS)), x + y),
        "reduction": (
            da.reduction(dx, gpuvec.sum, gpuvec.sum, axis=0, dtype=np.float64),
            x.sum(axis=0),
        ),
    }
    for name, (result, expected) in results.items():
        assert type(result._meta) is np.ndarray, name
        assert all(type(c) is np.ndarray for c in blocks(result)), name
        np.testing.assert_allclose(result.compute(), expected, rtol=1e-6, atol=1e-6, err_msg=name)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(
            dx.map_blocks(lambda b: gpuvec.sqrt(b, dtype=np.float32)).compute(),
            np.sqrt(x).astype(np.float32),
            rtol=1e-6,
        )


def test_out_of_core_pipeline_on_memmaps(backend, rng, tmp_path):
    """Read a memmap in chunks, compute on the device, write a second memmap."""
    x = random_array(rng, (1003, 17), np.float32)
    source = np.lib.format.open_memmap(tmp_path / "x.npy", "w+", np.float32, x.shape)
    source[:] = x
    source.flush()
    target = np.lib.format.open_memmap(tmp_path / "y.npy", "w+", np.float32, x.shape)
    d = gpuvec_dask.to_device(da.from_array(np.load(tmp_path / "x.npy", mmap_mode="r"), (97, 17)))
    mean, std = dask.compute(d.mean(axis=0), d.std(axis=0))
    da.store(gpuvec_dask.to_host((d - mean) / std), target)
    target.flush()
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(axis=0)) / x64.std(axis=0)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, rtol=1e-4, atol=1e-5)


def test_npy_files_in_and_out(backend, rng, tmp_path, copies_to_host):
    x = random_array(rng, (1003, 17), np.float32)
    np.save(tmp_path / "x.npy", x)
    source = gpuvec_dask.from_npy(tmp_path / "x.npy", chunks=(97, 17))
    assert (source.shape, source.dtype, source.chunks[0][-1]) == (x.shape, x.dtype, 33)
    d = gpuvec_dask.to_device(source)
    gpuvec_dask.to_npy(np.tanh(d / 4) + 1, tmp_path / "y.npy")
    assert len(copies_to_host) == d.npartitions  # one copy of each chunk, to be written
    expected = np.tanh(x.astype(np.float64) / 4) + 1
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, rtol=1e-6, atol=1e-6)
    delayed = gpuvec_dask.to_npy(source * 2, tmp_path / "z.npy", compute=False)
    assert not np.load(tmp_path / "z.npy").any()  # made, not yet written
    delayed.compute()
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), x * 2)


def test_npy_graphs_carry_paths_not_data(tmp_path):
    """A np.memmap in a task graph pickles its whole data; from_npy's graph does not."""
    np.save(tmp_path / "big.npy", np.zeros((1 << 20,)))  # 8 MB
    graph = dict(gpuvec_dask.from_npy(tmp_path / "big.npy", chunks=1 << 16).__dask_graph__())
    assert len(pickle.dumps(graph)) < 100_000


def test_npy_errors(tmp_path):
    with pytest.raises(TypeError, match=r"x must be a dask\.array\.Array, got ndarray"):
        gpuvec_dask.to_npy(np.ones(3), tmp_path / "y.npy")
    with pytest.raises(FileNotFoundError):
        gpuvec_dask.from_npy(tmp_path / "missing.npy")


# -- what Dask needs of a chunk type ------------------------------------------------------------


def test_tokens_read_no_data(backend, copies_to_host):
    d = gpuvec.ones(5)
    assert dask.base.tokenize(d) != dask.base.tokenize(d)  # data may change: never merged
    empty = gpuvec.empty((0, 3))
    assert dask.base.tokenize(empty) == dask.base.tokenize(gpuvec.empty((0, 3)))
    assert copies_to_host == []


def test_sizeof_is_the_data(backend):
    assert dask.sizeof.sizeof(gpuvec.ones((10, 7), dtype=np.float32)) == 280


def test_a_pickled_chunk_registers_gpuvec_with_dask_where_it_loads(backend, tmp_path):
    """A worker that receives a DeviceArray chunk imports gpuvec.dask with it."""
    path = tmp_path / "chunk.pickle"
    path.write_bytes(pickle.dumps(gpuvec.arange(4)))
    script = (
        "import pickle, sys, dask.array\n"
        "d = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "assert 'gpuvec.dask' in sys.modules, 'not registered'\n"
        "assert d.to_host().tolist() == [0.0, 1.0, 2.0, 3.0]\n"
    )
    env = {**os.environ, "GPUVEC_BACKEND": backend}
    subprocess.run([sys.executable, "-W", "ignore", "-c", script, str(path)], check=True, env=env)


# -- several processes ----------------------------------------------------------------------------


@pytest.fixture
def cluster_env(backend, monkeypatch):
    """Workers start with this test's backend (they choose it when they import gpuvec)."""
    monkeypatch.setenv("GPUVEC_BACKEND", backend)
    return backend


def test_local_cluster_of_two_processes(cluster_env, data, tmp_path):
    distributed = pytest.importorskip("distributed")
    x = da.from_array(data, chunks=CHUNKS)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert set(client.run(gpuvec.backend).values()) == {cluster_env}
        d = gpuvec_dask.to_device(x)
        mean, std, scaled = client.compute(
            [d.mean(axis=0), d.std(), gpuvec_dask.to_host((d - d.mean(axis=0)) * 2)], sync=True
        )
        np.save(tmp_path / "x.npy", data)
        on_disk = gpuvec_dask.to_device(gpuvec_dask.from_npy(tmp_path / "x.npy", CHUNKS))
        gpuvec_dask.to_npy(on_disk * 3, tmp_path / "y.npy")  # each worker writes its chunks
        # A rechunk joins chunks of both workers: DeviceArrays travel between them.
        joined = gpuvec_dask.to_host(d.rechunk((101, 29)).sum(axis=0)).compute()
        assert all(client.run(lambda: "gpuvec.dask" in sys.modules).values())
    assert isinstance(mean, gpuvec.DeviceArray)
    np.testing.assert_allclose(mean.to_host(), data.mean(axis=0), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(float(std), data.std(), rtol=1e-12)
    np.testing.assert_allclose(scaled, (data - data.mean(axis=0)) * 2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(joined, data.sum(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), data * 3)


@pytest.mark.cuda
def test_local_cuda_cluster(data):
    """One worker per GPU, each with its GPU as device 0 (the lead's GPU machine)."""
    skip_without_cuda()
    dask_cuda = pytest.importorskip("dask_cuda", reason="needs dask-cuda")
    distributed = pytest.importorskip("distributed")
    with (
        dask_cuda.LocalCUDACluster(dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        devices = client.run(lambda: (gpuvec.backend(), gpuvec.current_device().id))
        assert set(devices.values()) == {("cuda", 0)}
        # One worker per GPU: each one's device 0 is another GPU.
        uuids = client.run(lambda: gpuvec.current_device().properties["uuid"])
        assert sorted(uuids.values()) == sorted(d["uuid"] for d in gpuvec.devices())
        d = gpuvec_dask.to_device(da.from_array(data, chunks=CHUNKS))
        mean, scaled = client.compute([d.mean(axis=0), gpuvec_dask.to_host(d * 2)], sync=True)
    np.testing.assert_allclose(mean.to_host(), data.mean(axis=0), rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(scaled, data * 2)
