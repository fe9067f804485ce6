"""Interop with Google's protobuf message objects, through a module
generated from the repository's xla_data.proto by protoc in this run."""

import pytest

import xla_shape as xs
from conftest import records

SHAPES = [r for r in records("shapes.jsonl")]


def test_every_golden_shape_through_protobuf_messages(xla_data_pb2):
    checked = 0
    for r in SHAPES:
        data = bytes.fromhex(r["proto_hex"])
        msg = xla_data_pb2.ShapeProto()
        msg.ParseFromString(data)
        try:
            s = xs.Shape.from_proto(msg)
        except xs.XlaShapeError:
            continue  # records XLA holds without validating (test_golden)
        back = s.to_proto(xla_data_pb2.ShapeProto)
        assert isinstance(back, xla_data_pb2.ShapeProto)
        assert back == msg, r["id"]
        assert back.SerializeToString() == data, r["id"]
        checked += 1
    assert checked > 430


def test_protobuf_accepts_what_we_reject(xla_data_pb2):
    """Google's runtime validates nothing: minor_to_major [0, 0] is a fine
    message; from_proto applies XLA's validation."""
    msg = xla_data_pb2.ShapeProto(element_type=xla_data_pb2.F32, dimensions=[2, 3])
    msg.layout.minor_to_major.extend([0, 0])
    msg.is_dynamic_dimension.extend([False, False])
    with pytest.raises(xs.InvalidLayoutError):
        xs.Shape.from_proto(msg)


def test_from_proto_needs_serialize_to_string():
    with pytest.raises(AttributeError):
        xs.Shape.from_proto(object())

    class Liar:
        def SerializeToString(self):
            return "not bytes"

    with pytest.raises(TypeError):
        xs.Shape.from_proto(Liar())
