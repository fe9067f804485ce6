"""Mutated HloModuleProto bytes and what Google's protobuf runtime makes of them.

Each mutation appends fields to the module, a computation or an
instruction of tests/data/hlo/zero_size.pb: a field given twice (a name,
an id, a shape, a program shape), a known field with another wire type,
unknown fields (varint, fixed, length-delimited, group), operand ids packed
and unpacked. The runtime (the `protobuf` package, upb) parses the bytes,
drops the unknown fields (which include known fields with the wrong wire
type) and serializes the merged message: that is the expected module.

Run with the protobuf runtime installed, from the repository root:
    python3 tests/data/oracle/hlo_pb_merge_gen.py tests/data > tests/data/oracle/hlo_pb_merge.jsonl

where tests/data holds the FileDescriptorProtos of jaxlib 0.10.2's
xla_data.proto, metrics.proto and hlo.proto (NAME.descriptor.binpb, as
jaxlib embeds them).
"""

import json
import sys

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, duration_pb2, message_factory
from google.protobuf import timestamp_pb2


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def ld(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def vi(field, value):
    return key(field, 0) + varint(value)


# f32[3] as a ShapeProto: element_type F32 = 11 (field 2), dimensions [3]
# (field 3, packed), layout {minor_to_major [0]} (field 5).
F32_3 = vi(2, 11) + ld(3, varint(3)) + ld(5, ld(1, varint(0)))
UNKNOWN = vi(999, 7) + key(998, 1) + b"\x01" * 8 + ld(997, b"xyz") + key(996, 3) + vi(1, 5) + key(996, 4)

# (module extra, computation extra, instruction extra), applied to every
# computation and instruction.
MUTATIONS = {
    "unknown_fields_everywhere": (UNKNOWN, UNKNOWN, UNKNOWN),
    "names_twice_last_wins": (ld(1, b"renamed"), ld(1, b"comp.renamed"), ld(1, b"instr.renamed")),
    "opcode_twice": (b"", b"", ld(2, b"negate")),
    "instruction_shape_twice_merges": (b"", b"", ld(3, F32_3)),
    "instruction_shape_layout_merges": (b"", b"", ld(3, ld(5, ld(6, ld(1, varint(128)))))),
    "ids_twice_last_wins": (vi(6, 1234), vi(5, 77) + vi(6, 5), vi(35, 5)),
    "wrong_wire_types_are_unknown": (
        vi(1, 3) + vi(3, 1) + vi(4, 1),
        vi(1, 3) + vi(2, 9) + ld(5, b"ab") + key(6, 5) + b"\x00" * 4,
        vi(1, 3) + vi(2, 4) + vi(3, 1) + ld(35, b"\x01") + key(36, 1) + b"\x00" * 8,
    ),
    "operand_ids_packed_and_unpacked_append": (b"", b"", vi(36, 9) + ld(36, varint(10) + varint(11))),
    "program_shapes_merge": (
        ld(4, ld(1, F32_3) + ld(3, b"extra")),
        ld(4, ld(2, F32_3)),
        b"",
    ),
    "negative_ids": (vi(6, -1), vi(5, -1), vi(35, -3) + ld(36, varint(-2))),
}


def main():
    pool = descriptor_pool.DescriptorPool()
    for wkt in (any_pb2, duration_pb2, timestamp_pb2):
        pool.AddSerializedFile(wkt.DESCRIPTOR.serialized_pb)
    for name in ("xla_data", "metrics", "hlo"):
        pool.AddSerializedFile(open(f"{sys.argv[1]}/{name}.descriptor.binpb", "rb").read())
    cls = lambda name: message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    Module, Computation = cls("xla.HloModuleProto"), cls("xla.HloComputationProto")
    base = Module.FromString(open("tests/data/hlo/zero_size.pb", "rb").read())
    for name, (m_extra, c_extra, i_extra) in MUTATIONS.items():
        head = Module()
        head.CopyFrom(base)
        del head.computations[:]
        out = head.SerializeToString()
        for c in base.computations:
            c_head = Computation()
            c_head.CopyFrom(c)
            del c_head.instructions[:]
            body = c_head.SerializeToString()
            for i in c.instructions:
                body += ld(2, i.SerializeToString() + i_extra)
            out += ld(3, body + c_extra)
        out += m_extra
        merged = Module.FromString(out)
        merged.DiscardUnknownFields()
        print(json.dumps({"id": name, "input": out.hex(), "merged": merged.SerializeToString().hex()}))


main()
