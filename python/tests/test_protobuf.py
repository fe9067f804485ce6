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


def program_shapes():
    """Program shapes of golden shapes taken two at a time: the first as
    the result, the next ones as named parameters."""
    shapes = []
    for r in SHAPES:
        try:
            shapes.append(xs.Shape.from_proto_bytes(bytes.fromhex(r["proto_hex"])))
        except xs.XlaShapeError:
            continue
    for i in range(0, len(shapes) - 2, 3):
        yield xs.ProgramShape(shapes[i + 1 : i + 3], shapes[i], [f"p{i}", ""])


def test_program_shape_formats_as_google_runtime(xla_data_pb2):
    """JSON and text format of ProgramShape are Google's runtime's
    (json_format / text_format of the same message), and read back."""
    from google.protobuf import json_format, text_format

    checked = 0
    for ps in program_shapes():
        msg = ps.to_proto(xla_data_pb2.ProgramShapeProto)
        assert msg.SerializeToString() == ps.to_serialized_proto()
        assert xs.ProgramShape.from_proto(msg) == ps
        assert ps.to_json(pretty=True) == json_format.MessageToJson(msg)
        assert ps.to_json(preserving_proto_field_name=True, pretty=True) == json_format.MessageToJson(
            msg, preserving_proto_field_name=True
        )
        assert ps.to_text_format() == text_format.MessageToString(msg)
        assert ps.to_text_format(as_one_line=True) == text_format.MessageToString(msg, as_one_line=True)
        assert xs.ProgramShape.from_json(ps.to_json()) == ps
        assert xs.ProgramShape.from_text_format(ps.to_text_format()) == ps
        checked += 1
    assert checked > 100


def test_layout_through_protobuf_messages(xla_data_pb2):
    lay = xs.Layout.parse("{3,2,0,1:T(8,128)(2,1)}")
    msg = lay.to_proto(xla_data_pb2.LayoutProto)
    assert isinstance(msg, xla_data_pb2.LayoutProto)
    assert list(msg.minor_to_major) == [3, 2, 0, 1]
    assert [list(t.dimensions) for t in msg.tiles] == [[8, 128], [2, 1]]
    assert xs.Layout.from_proto(msg) == lay
