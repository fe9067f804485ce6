"""Regenerates tests/data/oracle/formats_*.jsonl: what Google's protobuf
runtime (Python 7.36.2, upb) and real XLA (jaxlib 0.10.2, through the XLA
oracle) say about the proto formats of xla_data.proto.

Run with the oracle's venv, from the repository root:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/formats_gen.py ORACLE

where ORACLE is the XLA oracle script (which asks jaxlib 0.10.2 about
shape strings and proto bytes).

It writes
- formats_oracle.jsonl: the oracle's records (`--json-indent 2`) for
  ShapeProto and LayoutProto bytes the golden set lacks: unknown fields at
  every level, retired LayoutProto fields, unknown enum numbers, wrong wire
  types, groups, merged messages, malformed bytes. The records are the
  oracle's output lines, unchanged.
- formats_messages.jsonl: other messages of the schema built with
  xla_data_pb2 (floats, doubles, bytes, strings, maps, oneofs, optional
  fields, unknown fields in map entries): the bytes, their re-encoding
  (`SerializeToString`), `MessageToJson` (indent 2, both name styles),
  `MessageToString` (normal and `as_one_line=True`).
- formats_one_line.jsonl: `MessageToString(as_one_line=True)` of every
  `proto_hex` (and proto input) of shapes.jsonl and layouts.jsonl.
- formats_text_parse.jsonl, formats_json_parse.jsonl: inputs given to
  `text_format.Parse` and `json_format.Parse`, with the bytes of the parsed
  message or the error.
"""

import json
import math
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
sys.path.insert(0, os.path.expanduser("~/.cache/xla-oracle-venv/gen"))

from google.protobuf import json_format, text_format  # noqa: E402
from xla import xla_data_pb2 as x  # noqa: E402


def write(name, records):
    with open(os.path.join(HERE, name), "w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def views(msg):
    return {
        "reencode_hex": msg.SerializeToString().hex(),
        "json": json_format.MessageToJson(msg),
        "json_preserving_names": json_format.MessageToJson(
            msg, preserving_proto_field_name=True
        ),
        "text_format": text_format.MessageToString(msg),
        "text_format_one_line": text_format.MessageToString(msg, as_one_line=True),
    }


def record(note, message_cls, data):
    r = {"note": note, "message": message_cls.DESCRIPTOR.full_name, "hex": data.hex()}
    try:
        msg = message_cls.FromString(data)
    except Exception as e:  # noqa: BLE001
        r["error"] = f"{type(e).__name__}: {e}"
        return r
    r.update(views(msg))
    return r


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


# ---------------------------------------------------------------- oracle
# ShapeProto (`hex:`) and LayoutProto (`layouthex:`) inputs, and one
# shape string. Comments say
# what each one is; the tests read the oracle's answers.
ORACLE_INPUTS = """
# f32[2] with an unknown varint field 20 before dimensions: re-encoded after the known fields
hex:100b a00105 1a0102
# unknown fields 20 then 19: kept in arrival order
hex:100b a00105 980107 1a0102
# unknown fixed32 (19) and fixed64 (20) fields
hex:100b 9d0101020304 a1010102030405060708 1a0102
# an unknown group (field 15) holding field 1 = 1
hex:100b 7b 0801 7c 1a0102
# an unknown group holding a nested group
hex:100b 7b 0b 1001 0c 7c 1a0102
# the largest field number, 536870911, unknown
hex:100b f8ffffff0f 01 1a0102
# field 1 (reserved "rank") as an unknown varint
hex:0802 100b 1a0102
# element_type sent as length-delimited: a wrong wire type keeps it unknown
hex:100b 1200 1a0102
# dimensions sent as fixed32: wrong wire type for a repeated int64
hex:100b 1d01000000 1a0102
# element_type 99, unknown to the schema
hex:1063 1a0102
# element_type -1 (ten-byte varint)
hex:10ffffffffffffffffff01 1a0102
# element_type 0 written explicitly: a default, dropped on re-encoding
hex:1000 100b 1a0102
# a non-minimal varint for a dimension (2 as 82 00)
hex:100b 1a028200
# is_dynamic_dimension unpacked, with a bool written as 2
hex:100b 1a020203 3002 3000
# an empty packed dimensions field
hex:100b 1a00
# the layout given twice: the two are merged
hex:100b 1a0102 2a030a0100 2a03800101
# a layout carrying unknown fields 3 (length-delimited) and 2 (varint), in that order
hex:100b 1a0102 2a08 0a0100 1a0107 1001
# f32[2,3]{1,0} as TensorFlow wrote it in 2017: padded_dimensions [8, 128] packed, padding_value ZERO_PAD
hex:100b 1a020203 2a0b 0a020100 1203088001 1801
# a 2018 layout: format DENSE (4) and max_sparse_elements 16 (5)
hex:100b 1a020203 2a08 0a020100 2001 2810
# a tuple whose second element's layout has an unknown field 20
hex:100d 2205 100b1a0102 220d 100b 1a0102 2a06 0a0100 a00105
# a layout whose physical_shape has an unknown field 20
hex:100b 1a0102 2a0c 0a0100 520710 0b a00105 1a00
# unknown dim_level_types numbers (packed enum): 7 and -1
hex:100b 1a0102 2a10 0a0100 4a0b07ffffffffffffffffff01
# truncated: a dimensions field whose length runs past the end
hex:100b 1a0502
# truncated varint
hex:10
# field number 0
hex:0001
# wire type 7
hex:0f
# an end-group tag without a group
hex:100b 7c
# a group that does not end
hex:100b 7b 0801
# a varint longer than ten bytes
hex:10ffffffffffffffffffff01
# the benchmark's shape, as XLA parses and encodes it
bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}
# LayoutProto itself with the 2017 fields
layouthex:0a020100 1203088001 1801
# LayoutProto with format DENSE (4) and an unknown field 30
layouthex:0a020100 2001 f00105
"""


def deep_tuple(levels):
    m = x.ShapeProto(element_type=x.F32)
    for _ in range(levels):
        m = x.ShapeProto(element_type=x.TUPLE, tuple_shapes=[m])
    return m.SerializeToString().hex()


def oracle_records(oracle):
    lines = [l for l in ORACLE_INPUTS.splitlines() if l.strip()]
    out = subprocess.run(
        [sys.executable, oracle, "--json-indent", "2"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


# -------------------------------------------------------------- messages
def message_records():
    rnd = random.Random(20250609)
    recs = []

    floats = [0.1, 1.0, 1 / 3, 1e-5, 1e20, 3.4e38, 123456789.0, 1e16, 1e15,
              32768.25, 1.5e-45, 1.17549435e-38, 3.4028234663852886e38,
              -2.5, 1e-4, 0.0001234, 65504.0, 16777217.0, 2.0 ** -149]
    floats += [rnd.uniform(-1, 1) * 10 ** rnd.randint(-40, 38) for _ in range(300)]
    floats += [struct.unpack("<f", struct.pack("<I", rnd.getrandbits(32)))[0] for _ in range(300)]
    floats = [v for v in floats if not math.isnan(v) and not math.isinf(f32(v))]
    doubles = [0.1, 1.0, 1 / 3, 1e-5, 1e16, 1e15, 123456789012345678.0, 5e-324,
               2.2250738585072014e-308, 1.7976931348623157e308, -0.0, 9007199254740993.0,
               0.30000000000000004, 100.0, 1e22, 1e23]
    doubles += [rnd.uniform(-1, 1) * 10 ** rnd.randint(-300, 300) for _ in range(300)]
    doubles += [struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0] for _ in range(300)]
    doubles = [v for v in doubles if not math.isnan(v) and not math.isinf(v)]
    lit = x.LiteralProto(f32s=floats, f64s=doubles)
    recs.append(record("floats and doubles, random and edge values", x.LiteralProto,
                       lit.SerializeToString()))
    lit = x.LiteralProto(f32s=[float("inf"), float("-inf"), float("nan"), -0.0, 0.0],
                         f64s=[float("inf"), float("-inf"), float("nan"), -0.0, 0.0])
    recs.append(record("non-finite floats, signed zeros", x.LiteralProto, lit.SerializeToString()))
    lit = x.LiteralProto(
        shape=x.ShapeProto(element_type=x.S8, dimensions=[256]),
        s8s=bytes(range(256)),
        preds=[True, False, True],
        s32s=[-1, 0, 2147483647, -2147483648],
        s64s=[-9223372036854775808, 9223372036854775807],
        u32s=[4294967295, 0, 7],
        u64s=[18446744073709551615, 1],
        bf16s=b"\x80\x3f",
        dynamic_sizes=[-3, 5],
    )
    recs.append(record("every integer type, all byte values", x.LiteralProto, lit.SerializeToString()))
    recs.append(record("empty bytes field (default)", x.LiteralProto, bytes.fromhex("1a00")))
    recs.append(record("-0.0 in a singular double", x.ComputationStats,
                       x.ComputationStats(flop_count=-0.0, transcendental_count=2.5).SerializeToString()))
    recs.append(record("NaN in a singular double", x.ComputationStats,
                       x.ComputationStats(flop_count=float("nan")).SerializeToString()))
    names = ["p0", "ééx", "a\"b\\\n\t\r\x01\x7f'", "😀", "", "\u2028", "\x00"]
    ps = x.ProgramShapeProto(
        parameters=[x.ShapeProto(element_type=x.F32)] * len(names),
        parameter_names=names,
        result=x.ShapeProto(element_type=x.TUPLE),
    )
    recs.append(record("parameter names with escapes and non-ASCII", x.ProgramShapeProto,
                       ps.SerializeToString()))
    recs.append(record("a string that is not UTF-8", x.ProgramShapeProto, bytes.fromhex("1a02c328")))
    fa = x.FrontendAttributes()
    for k in ["b", "a", "c", "aa", "", "é"]:
        fa.map[k] = "v" + k
    recs.append(record("string map, several keys", x.FrontendAttributes, fa.SerializeToString()))
    fa = x.FrontendAttributes()
    fa.map["only"] = "one"
    recs.append(record("string map, one key", x.FrontendAttributes, fa.SerializeToString()))
    recs.append(record("map entry with default key and value", x.FrontendAttributes,
                       bytes.fromhex("0a040a001200")))
    recs.append(record("map entries without key, then without value", x.FrontendAttributes,
                       bytes.fromhex("0a03120161" + "0a030a0162")))
    recs.append(record("map entry with an unknown field 3", x.FrontendAttributes,
                       bytes.fromhex("0a080a01611201621805")))
    recs.append(record("map entry with an unknown field, then the same key plainly",
                       x.FrontendAttributes, bytes.fromhex("0a080a01611201621805" + "0a060a0161120163")))
    recs.append(record("duplicate map keys: the last wins", x.FrontendAttributes,
                       bytes.fromhex("0a060a0161120162" + "0a060a0161120163")))
    g = x.GemmPerfTableEntry(b=1, m=2, n=3, k=4)
    g.flops["x"] = 10
    g.flops["a"] = -1
    t = x.GemmPerfTable()
    t.entries["k2"].entries.append(g)
    t.entries["k1"].SetInParent()
    recs.append(record("map with message values", x.GemmPerfTable, t.SerializeToString()))
    # entries["k"] = GemmPerfTableEntryValues with an unknown field 9 inside the value
    inner = bytes.fromhex("4801")
    entry = bytes.fromhex("0a016b") + b"\x12" + bytes([len(inner)]) + inner
    recs.append(record("map value message with an unknown field", x.GemmPerfTable,
                       b"\x0a" + bytes([len(entry)]) + entry))
    recs.append(record("oneof: id", x.Payload, x.Payload(id=0).SerializeToString()))
    recs.append(record("oneof: value then id on the wire", x.Payload, bytes.fromhex("0a0161" + "1005")))
    recs.append(record("oneof: id then value on the wire", x.Payload, bytes.fromhex("1005" + "0a0161")))
    recs.append(record("oneof enum member at its default", x.ResultAccuracy,
                       x.ResultAccuracy(mode=x.ResultAccuracy.DEFAULT).SerializeToString()))
    recs.append(record("oneof message member, empty", x.ResultAccuracy,
                       x.ResultAccuracy(tolerance=x.ResultAccuracy.Tolerance()).SerializeToString()))
    dv = x.WhileLoopBackendConfig(dynamic_variables=[
        x.WhileLoopBackendConfig.DynamicVariable(tuple_index=1, init=0),
        x.WhileLoopBackendConfig.DynamicVariable(tuple_index=2, step=-1),
        x.WhileLoopBackendConfig.DynamicVariable(),
    ])
    recs.append(record("proto3 optional fields at their defaults", x.WhileLoopBackendConfig,
                       dv.SerializeToString()))
    recs.append(record("unknown enum numbers in a packed repeated enum", x.PrecisionConfig,
                       bytes.fromhex("0a0400020763" + "1063")))
    recs.append(record("repeated enum unpacked on the wire", x.PrecisionConfig,
                       bytes.fromhex("0801 0802")))
    recs.append(record("f32 nested in 100 tuples: the deepest protobuf decodes", x.ShapeProto,
                       bytes.fromhex(deep_tuple(100))))
    recs.append(record("f32 nested in 101 tuples: one level too deep", x.ShapeProto,
                       bytes.fromhex(deep_tuple(101))))
    om = x.OpMetadata(op_type="add", op_name="jit(f)/add", source_file="/tmp/a.py", source_line=-3,
                      profile_type=[x.ProfileType.WINDOW])
    recs.append(record("OpMetadata: strings, negative int32, repeated enum", x.OpMetadata,
                       om.SerializeToString()))
    return recs


def one_line_records():
    recs = []
    for name, msg_cls in [("shapes.jsonl", x.ShapeProto), ("layouts.jsonl", x.LayoutProto)]:
        with open(os.path.join(DATA, name)) as f:
            for line in f:
                r = json.loads(line)
                hexes = [r["proto_hex"]]
                if r["input"].get("kind") == "proto":
                    hexes.append(r["input"]["hex"])
                for h in hexes:
                    msg = msg_cls.FromString(bytes.fromhex(h))
                    recs.append({
                        "id": r["id"],
                        "message": msg_cls.DESCRIPTOR.full_name,
                        "hex": h,
                        "text_format_one_line": text_format.MessageToString(msg, as_one_line=True),
                    })
    return recs


# ----------------------------------------------------------------- parsing
TEXT_CASES = [
    ("xla.ShapeProto", ""),
    ("xla.ShapeProto", "  \n# only a comment\n"),
    ("xla.ShapeProto", "element_type: F32 dimensions: 2 dimensions: 3"),
    ("xla.ShapeProto", "element_type: F32\ndimensions: [2, 3]\n"),
    ("xla.ShapeProto", "element_type: F32 dimensions: []"),
    ("xla.ShapeProto", "element_type: F32; dimensions: 2, dimensions: 3;"),
    ("xla.ShapeProto", "element_type: 11"),
    ("xla.ShapeProto", "element_type: 99"),
    ("xla.ShapeProto", "element_type: -1"),
    ("xla.ShapeProto", "element_type: f32"),
    ("xla.ShapeProto", "element_type: \"F32\""),
    ("xla.ShapeProto", "element_type: F33"),
    ("xla.ShapeProto", "element_type F32"),
    ("xla.ShapeProto", "element_type: F32 element_type: S32"),
    ("xla.ShapeProto", "element_type: PRIMITIVE_TYPE_INVALID element_type: S32"),
    ("xla.ShapeProto", "dimensions: 0x10 dimensions: 010 dimensions: -0x10 dimensions: 0"),
    ("xla.ShapeProto", "dimensions: 9223372036854775807 dimensions: -9223372036854775808"),
    ("xla.ShapeProto", "dimensions: 9223372036854775808"),
    ("xla.ShapeProto", "dimensions: 1.0"),
    ("xla.ShapeProto", "dimensions: 1e3"),
    ("xla.ShapeProto", "dimensions: 2 # trailing comment"),
    ("xla.ShapeProto", "is_dynamic_dimension: true is_dynamic_dimension: false"),
    ("xla.ShapeProto", "is_dynamic_dimension: True is_dynamic_dimension: t is_dynamic_dimension: 1 is_dynamic_dimension: 0 is_dynamic_dimension: f"),
    ("xla.ShapeProto", "is_dynamic_dimension: 2"),
    ("xla.ShapeProto", "is_dynamic_dimension: yes"),
    ("xla.ShapeProto", "layout { minor_to_major: 0 }"),
    ("xla.ShapeProto", "layout: { minor_to_major: 0 }"),
    ("xla.ShapeProto", "layout < minor_to_major: 0 >"),
    ("xla.ShapeProto", "layout {}"),
    ("xla.ShapeProto", "layout { minor_to_major: 0 } layout { tiles { } }"),
    ("xla.ShapeProto", "layout { minor_to_major: 0 >"),
    ("xla.ShapeProto", "layout { minor_to_major: 0"),
    ("xla.ShapeProto", "tuple_shapes { element_type: F32 } tuple_shapes { }"),
    ("xla.ShapeProto", "tuple_shapes: [{ element_type: F32 }, { element_type: S8 }]"),
    ("xla.ShapeProto", "tuple_shapes [{ element_type: F32 }]"),
    ("xla.ShapeProto", "rank: 2"),
    ("xla.ShapeProto", "3: 2"),
    ("xla.ShapeProto", "unknown_field: 2"),
    ("xla.ShapeProto", "[xla.ext]: 2"),
    ("xla.ShapeProto", "element_type: F32 }"),
    ("xla.ShapeProto", "element_type: F32 garbage"),
    ("xla.ShapeProto", "dimensions: 2,, dimensions: 3"),
    ("xla.ShapeProto", "dimensions: [2,]"),
    ("xla.ShapeProto", "dimensions: - 2"),
    ("xla.ShapeProto", "dimensions:-2"),
    ("xla.ShapeProto", "element_type:F32 dimensions:2"),
    ("xla.ProgramShapeProto", "parameter_names: \"a\" \"b\" 'c'"),
    ("xla.ProgramShapeProto", "parameter_names: \"\\x41\\101\\u00e9\\U0001F600\\n\\t\\\\\\\"\\'\\a\\b\\f\\v\\?\""),
    ("xla.ProgramShapeProto", "parameter_names: \"\\xc3\\xa9\""),
    ("xla.ProgramShapeProto", "parameter_names: \"\\303\""),
    ("xla.ProgramShapeProto", "parameter_names: \"é😀\""),
    ("xla.ProgramShapeProto", "parameter_names: \"unterminated"),
    ("xla.ProgramShapeProto", "parameter_names: \"a\nb\""),
    ("xla.ProgramShapeProto", "parameter_names: \"\\z\""),
    ("xla.ProgramShapeProto", "parameter_names: a"),
    ("xla.LiteralProto", "f32s: 1 f32s: 1.5 f32s: -2.5e3 f32s: .5 f32s: 1.0f f32s: 2F f32s: 1e40"),
    ("xla.LiteralProto", "f32s: inf f32s: -inf f32s: infinity f32s: -Infinity f32s: nan f32s: NaN f32s: -nan"),
    ("xla.LiteralProto", "f64s: 0.1 f64s: 1e-320 f64s: 1e400 f64s: -0 f64s: -0.0 f64s: 0x10"),
    ("xla.LiteralProto", "f64s: 1.5.5"),
    ("xla.LiteralProto", "s8s: \"\\000\\377abc\" u8s: 'x'"),
    ("xla.LiteralProto", "s32s: 2147483648"),
    ("xla.LiteralProto", "s32s: -2147483648 u32s: 4294967295 u64s: 18446744073709551615"),
    ("xla.LiteralProto", "u32s: -1"),
    ("xla.LiteralProto", "u64s: 18446744073709551616"),
    ("xla.FrontendAttributes", "map { key: \"b\" value: \"1\" } map { key: \"a\" value: \"2\" }"),
    ("xla.FrontendAttributes", "map { key: \"a\" value: \"1\" } map { key: \"a\" value: \"2\" }"),
    ("xla.FrontendAttributes", "map { value: \"1\" }"),
    ("xla.FrontendAttributes", "map: [{ key: \"a\" value: \"1\" }, { key: \"b\" }]"),
    ("xla.FrontendAttributes", "map { key: \"a\" key: \"b\" }"),
    ("xla.Payload", "value: \"a\" id: 3"),
    ("xla.Payload", "id: 0"),
    ("xla.ResultAccuracy", "tolerance { }"),
    ("xla.ResultAccuracy", "mode: HIGHEST tolerance { atol: 1 }"),
    ("xla.WhileLoopBackendConfig", "dynamic_variables { init: 0 } dynamic_variables { step: 5 tuple_index: 1 }"),
    ("xla.WhileLoopBackendConfig", "dynamic_variables { init: 0 init: 1 }"),
    ("xla.ComputationStats", "flop_count: -0.0"),
    ("xla.ComputationStats", "flop_count: 1 flop_count: 2"),
]


def nested_text(levels):
    return "tuple_shapes { " * levels + "element_type: F32" + " }" * levels


def parse_text_records():
    cases = list(TEXT_CASES)
    cases.append(("xla.ShapeProto", nested_text(100)))
    cases.append(("xla.ShapeProto", nested_text(101)))
    recs = []
    for name, text in cases:
        cls = getattr(x, name.split(".", 1)[1])
        r = {"message": name, "text": text}
        try:
            msg = text_format.Parse(text, cls())
            r["hex"] = msg.SerializeToString().hex()
        except Exception as e:  # noqa: BLE001
            r["error"] = f"{type(e).__name__}: {e}"[:500]
        recs.append(r)
    return recs


JSON_CASES = [
    ("xla.ShapeProto", "{}"),
    ("xla.ShapeProto", " {\n} "),
    ("xla.ShapeProto", "{\"elementType\": \"F32\", \"dimensions\": [\"2\", \"3\"]}"),
    ("xla.ShapeProto", "{\"element_type\": \"F32\", \"dimensions\": [2, 3]}"),
    ("xla.ShapeProto", "{\"elementType\": \"F32\", \"is_dynamic_dimension\": [true]}"),
    ("xla.ShapeProto", "{\"elementType\": \"F32\", \"element_type\": \"S8\"}"),
    ("xla.ShapeProto", "{\"elementType\": \"F32\", \"elementType\": \"S8\"}"),
    ("xla.ShapeProto", "{\"elementType\": 11}"),
    ("xla.ShapeProto", "{\"elementType\": 99}"),
    ("xla.ShapeProto", "{\"elementType\": \"99\"}"),
    ("xla.ShapeProto", "{\"elementType\": \"f32\"}"),
    ("xla.ShapeProto", "{\"elementType\": \"F33\"}"),
    ("xla.ShapeProto", "{\"elementType\": null}"),
    ("xla.ShapeProto", "{\"elementType\": 11.0}"),
    ("xla.ShapeProto", "{\"elementType\": true}"),
    ("xla.ShapeProto", "{\"dimensions\": null}"),
    ("xla.ShapeProto", "{\"dimensions\": [null]}"),
    ("xla.ShapeProto", "{\"dimensions\": \"2\"}"),
    ("xla.ShapeProto", "{\"dimensions\": [2.0, \"3\", 1e2, \"-4\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [2.5]}"),
    ("xla.ShapeProto", "{\"dimensions\": [\"2.0\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [\"1e2\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [\" 2\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [\"0x10\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [\"9223372036854775807\", \"-9223372036854775808\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [\"9223372036854775808\"]}"),
    ("xla.ShapeProto", "{\"dimensions\": [9223372036854775807]}"),
    ("xla.ShapeProto", "{\"dimensions\": [true]}"),
    ("xla.ShapeProto", "{\"isDynamicDimension\": [\"true\"]}"),
    ("xla.ShapeProto", "{\"isDynamicDimension\": [1]}"),
    ("xla.ShapeProto", "{\"layout\": {}}"),
    ("xla.ShapeProto", "{\"layout\": null}"),
    ("xla.ShapeProto", "{\"layout\": []}"),
    ("xla.ShapeProto", "{\"tupleShapes\": [{}, {\"elementType\": \"F32\"}]}"),
    ("xla.ShapeProto", "{\"tupleShapes\": [null]}"),
    ("xla.ShapeProto", "{\"tupleShapes\": {}}"),
    ("xla.ShapeProto", "{\"rank\": 2}"),
    ("xla.ShapeProto", "{\"unknownField\": 2}"),
    ("xla.ShapeProto", "{\"ElementType\": \"F32\"}"),
    ("xla.ShapeProto", "{\"elementType\": \"F32\",}"),
    ("xla.ShapeProto", "[]"),
    ("xla.ShapeProto", "null"),
    ("xla.ShapeProto", ""),
    ("xla.ShapeProto", "{\"elementType\": \"F32\"} x"),
    ("xla.ShapeProto", "{\"elementType\": \"F32\"} {}"),
    ("xla.ShapeProto", "{'elementType': 'F32'}"),
    ("xla.ShapeProto", "{\"elementType\": \"F\\u0033\\u0032\"}"),
    ("xla.LiteralProto", "{\"f32s\": [1, 1.5, \"2.5\", \"NaN\", \"Infinity\", \"-Infinity\", 1e40]}"),
    ("xla.LiteralProto", "{\"f32s\": [3.4028235e38, -3.4028235e38, 1e-50]}"),
    ("xla.LiteralProto", "{\"f32s\": [\"nan\"]}"),
    ("xla.LiteralProto", "{\"f32s\": [NaN]}"),
    ("xla.LiteralProto", "{\"f64s\": [0.1, \"1e-320\", 1e400]}"),
    ("xla.LiteralProto", "{\"s8s\": \"AAEC/w==\", \"u8s\": \"AAEC_w\"}"),
    ("xla.LiteralProto", "{\"s8s\": \"AAEC/w\"}"),
    ("xla.LiteralProto", "{\"s8s\": \"!!\"}"),
    ("xla.LiteralProto", "{\"s32s\": [2147483647, -2147483648, \"5\"], \"u32s\": [4294967295]}"),
    ("xla.LiteralProto", "{\"s32s\": [2147483648]}"),
    ("xla.LiteralProto", "{\"u32s\": [-1]}"),
    ("xla.LiteralProto", "{\"u64s\": [\"18446744073709551615\", 18446744073709551615]}"),
    ("xla.LiteralProto", "{\"preds\": [true, false]}"),
    ("xla.ProgramShapeProto", "{\"parameterNames\": [\"\\u00e9\", \"\\ud83d\\ude00\", \"\\n\"]}"),
    ("xla.ProgramShapeProto", "{\"parameterNames\": [\"\\ud83d\"]}"),
    ("xla.ProgramShapeProto", "{\"parameterNames\": [1]}"),
    ("xla.FrontendAttributes", "{\"map\": {\"b\": \"1\", \"a\": \"2\"}}"),
    ("xla.FrontendAttributes", "{\"map\": {\"a\": null}}"),
    ("xla.FrontendAttributes", "{\"map\": []}"),
    ("xla.GemmPerfTableEntry", "{\"flops\": {\"x\": \"10\", \"y\": 5}}"),
    ("xla.Payload", "{\"value\": \"YQ==\", \"id\": \"3\"}"),
    ("xla.Payload", "{\"id\": \"0\"}"),
    ("xla.Payload", "{\"id\": null, \"value\": \"YQ==\"}"),
    ("xla.ResultAccuracy", "{\"tolerance\": {}}"),
    ("xla.WhileLoopBackendConfig", "{\"dynamicVariables\": [{\"init\": \"0\"}, {}]}"),
    ("xla.ComputationStats", "{\"flopCount\": -0.0}"),
    ("xla.ComputationStats", "{\"flopCount\": \"-0\"}"),
]


def nested_json(levels):
    return "{\"tupleShapes\": [" * levels + "{\"elementType\": \"F32\"}" + "]}" * levels


def parse_json_records():
    cases = list(JSON_CASES)
    cases.append(("xla.ShapeProto", nested_json(99)))
    cases.append(("xla.ShapeProto", nested_json(100)))
    recs = []
    for name, text in cases:
        cls = getattr(x, name.split(".", 1)[1])
        r = {"message": name, "json": text}
        try:
            msg = json_format.Parse(text, cls())
            r["hex"] = msg.SerializeToString().hex()
        except Exception as e:  # noqa: BLE001
            r["error"] = f"{type(e).__name__}: {e}"[:500]
        recs.append(r)
    return recs


def main():
    oracle = sys.argv[1]
    write("formats_oracle.jsonl", oracle_records(oracle))
    write("formats_messages.jsonl", message_records())
    write("formats_one_line.jsonl", one_line_records())
    write("formats_text_parse.jsonl", parse_text_records())
    write("formats_json_parse.jsonl", parse_json_records())


if __name__ == "__main__":
    main()
