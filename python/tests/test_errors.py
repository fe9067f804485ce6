"""The attributes of the errors: ``kind`` (the Rust crate's
``ErrorKind::as_str``), ``diagnostics`` against XLA's own ``was parsing
L:C: error:`` lines (``tests/data/oracle/diagnostics.jsonl``, jaxlib
0.10.2), and ``context``."""

import re

import pytest

import xla_shape as xs
from conftest import ids, read_invalid, records

DIAGNOSTICS = [r for r in records("oracle/diagnostics.jsonl") if "was parsing" in r["xla_error"]]
INVALID = [r for r in records("invalid.jsonl") if r["status"] == "error"]

# The exception class of each kind (the Rust crate's ErrorKind names).
CLASSES = {
    "Decode": xs.DecodeError,
    "MalformedProto": xs.MalformedProtoError,
    "InvalidShape": xs.InvalidShapeError,
    "InvalidLayout": xs.InvalidLayoutError,
    "Parse": xs.ParseError,
    "InvalidArgument": xs.InvalidArgumentError,
    "Overflow": xs.SizeOverflowError,
    "Format": xs.FormatError,
    "BufferSize": xs.BufferSizeError,
}


def test_diagnostics_exist():
    assert len(DIAGNOSTICS) == 2


@pytest.mark.parametrize("r", DIAGNOSTICS, ids=ids(DIAGNOSTICS, "line"))
def test_diagnostics_are_xlas_places_and_messages(r):
    with pytest.raises(xs.ParseError) as info:
        xs.Shape.parse(r["input"]["text"])
    e = info.value
    assert e.kind == "Parse"
    xla = re.findall(r"^was parsing (\d+):(\d+): error: (.*)$", r["xla_error"], re.M)
    assert len(e.diagnostics) == len(xla) > 0
    for d, (line, column, message) in zip(e.diagnostics, xla):
        assert isinstance(d, xs.Diagnostic)
        # XLA's column is 0-based on the first line, 1-based after it;
        # ours is 1-based on every line, as the CLI's.
        xla_column = int(column) + (int(line) == 1)
        assert (d.line, d.column, d.message) == (int(line), xla_column, message)
        assert str(d) == f"was parsing {line}:{column}: error: {message}"
    last = e.diagnostics[-1]
    assert (e.line, e.column, e.offset) == (last.line, last.column, last.offset)
    assert e.context == ()


@pytest.mark.parametrize("r", INVALID, ids=ids(INVALID))
def test_kind_names_the_class(r):
    i = r["input"]
    with pytest.raises(xs.XlaShapeError) as info:
        read_invalid(i)
    e = info.value
    assert type(e) is CLASSES[e.kind]
    # Errors about bytes point at no text.
    if i["kind"] == "proto":
        assert (e.diagnostics, e.line) == ((), None)


def test_errors_not_raised_by_the_library_have_the_defaults():
    e = xs.XlaShapeError("mine")
    assert (e.kind, e.message, e.line, e.diagnostics, e.context) == (None, None, None, (), ())
