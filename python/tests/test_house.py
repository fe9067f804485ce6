"""Where jaxlib 0.10.2 aborts the process, this package raises: ``rank()``
and ``dimensions()`` of a tuple or token
(tests/data/oracle/model_non_array.jsonl records jaxlib's CHECK failure)."""

import pytest

import xla_shape as xs
from conftest import records

NON_ARRAY = records("oracle/model_non_array.jsonl")


@pytest.mark.parametrize("r", NON_ARRAY, ids=[f'{r["shape"]}.{r["method"]}' for r in NON_ARRAY])
def test_rank_and_dimensions_of_a_non_array_raise(r):
    assert r["status"] == "abort"
    s = xs.Shape(r["shape"])
    with pytest.raises(xs.InvalidArgumentError) as e:
        getattr(s, r["method"])()
    assert isinstance(e.value, xs.XlaShapeError)
    assert "expected an array shape" in str(e.value)


def test_rank_and_dimensions_of_an_array():
    s = xs.Shape("f32[2,3]")
    assert s.rank() == 2 and s.dimensions() == (2, 3)
