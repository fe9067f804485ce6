"""Shared helpers: the golden records of ``tests/data`` (made by real XLA,
jaxlib 0.10.2 and Google's protobuf runtime; see tests/data/README.md)."""

import json
import re
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def records(name):
    """The records of ``tests/data/<name>``, one JSON object per line."""
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def held_without_validation():
    """The golden records whose shape XLA's parser or decoder holds without
    validating it, which this crate rejects with the validation message (see
    docs/differences.md): the list the Rust tests keep in
    tests/common/mod.rs, read from there so that there is one list."""
    text = (REPO / "tests" / "common" / "mod.rs").read_text(encoding="utf-8")
    block = text.split("HELD_WITHOUT_VALIDATION", 1)[1].split("];", 1)[0]
    pairs = re.findall(r'\(\s*"([^"]+)",\s*"((?:[^"\\]|\\.)*)",?\s*\)', block)
    assert pairs, "no records found in HELD_WITHOUT_VALIDATION"
    return {i: m.replace('\\"', '"') for i, m in pairs}


def read_invalid(i):
    """Reads the input of an ``invalid.jsonl`` record as the golden
    generator gave it to XLA: a shape string, or ShapeProto bytes."""
    import xla_shape as xs

    if i["kind"] == "text":
        return xs.Shape.parse(i["text"])
    return xs.Shape.from_proto_bytes(bytes.fromhex(i["hex"]))


def ids(rows, key="id"):
    """Test ids for parametrizing over records."""
    return [str(r.get(key, i)) for i, r in enumerate(rows)]


@pytest.fixture(scope="session")
def xla_data_pb2(tmp_path_factory):
    """A Python module generated from the repository's xla_data.proto by
    protoc (grpcio-tools) in this test run; nothing generated is kept."""
    grpc_tools = pytest.importorskip("grpc_tools.protoc")
    out = tmp_path_factory.mktemp("pb2")
    proto_dir = REPO / "proto"
    rc = grpc_tools.main(
        [
            "protoc",
            f"-I{proto_dir}",
            f"--python_out={out}",
            str(proto_dir / "xla" / "xla_data.proto"),
        ]
    )
    assert rc == 0, "protoc failed"
    import importlib.util
    import sys

    path = out / "xla" / "xla_data_pb2.py"
    spec = importlib.util.spec_from_file_location("xla_data_pb2_generated", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
