"""The Examples sections of the docstrings run and give what they show."""

import doctest
import importlib

import pytest

MODULES = [
    "gpuvec",
    "gpuvec._backend",
    "gpuvec._core._operands",  # the dtype policy, which gpuvec._dtypes re-exports
    "gpuvec._dtypes",
    "gpuvec._errors",
    "gpuvec._numpy_protocols",
    "gpuvec._table",
    "gpuvec.blas",
    "gpuvec.dask",  # needs Dask (the test extra has it)
    "gpuvec.device_array",
    "gpuvec.elementwise",
    "gpuvec.fusion._codegen",
    "gpuvec.fusion._fuse",
    "gpuvec.fusion._graph",
    "gpuvec.fusion._ops",
    "gpuvec.fusion._paired",
    "gpuvec.kernels._cache",
    "gpuvec.kernels._compile_errors",
    "gpuvec.kernels._elementwise",
    "gpuvec.kernels._headers",
    "gpuvec.kernels._lexer",
    "gpuvec.kernels._map_source",
    "gpuvec.kernels._module",
    "gpuvec.kernels._options",
    "gpuvec.kernels._own",
    "gpuvec.kernels._signature",
    "gpuvec.kernels._source",
    "gpuvec.kernels.classics",
    "gpuvec.manipulation",
    "gpuvec.random",
    "gpuvec.random._bit_generator",
    "gpuvec.random._draws",
    "gpuvec.random._generator",
    "gpuvec.random._placement",
    "gpuvec.reductions",
    "gpuvec.ufuncs",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(backend, name):
    if name == "gpuvec.dask":
        pytest.importorskip("dask.array", reason="gpuvec.dask needs dask[array]")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
