"""Writes the comparison suite's inputs into OUT (stdlib only).

From the crate's golden data (tests/data, made by jaxlib 0.10.2):
- mixed.bin: the ShapeProto bytes XLA wrote for every record of
  shapes.jsonl (`proto_hex`), each as a 4-byte little-endian length and the bytes;
- rank4.bin: XLA's ShapeProto of bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}
  (tests/data/oracle/example.jsonl), one record;
- tuple.bin: one ShapeProto, a tuple of 100 of that shape (field 2
  element_type = TUPLE (13), then field 4 tuple_shapes, in field-number
  order as XLA serializes), one record of about 4.3 KB;
- shapes.txt: XLA's printed form (`xla_str`) of every record that XLA
  parsed back (`reparse_str` present), one a line;
- shapes_all.txt: the whole golden corpus of shape strings, errors
  included: XLA's printed form of every record of shapes.jsonl, then
  every text input of invalid.jsonl that XLA rejects with an error
  (`status` "error"; the ones XLA crashes on would end jaxlib's process).
Every harness checks that it decodes and re-encodes these bytes unchanged.
"""

import json
import pathlib
import struct
import sys

root = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
data = root / "tests" / "data"
records = [json.loads(line) for line in open(data / "shapes.jsonl")]


def write(name, blobs):
    with open(out / name, "wb") as f:
        for b in blobs:
            f.write(struct.pack("<I", len(b)) + b)


def varint(n):
    b = bytearray()
    while True:
        if n < 0x80:
            b.append(n)
            return bytes(b)
        b.append(n & 0x7F | 0x80)
        n >>= 7


mixed = [bytes.fromhex(r["proto_hex"]) for r in records if r.get("proto_hex")]
write("mixed.bin", mixed)
example = json.loads(open(data / "oracle" / "example.jsonl").readline())
rank4 = bytes.fromhex(example["proto_hex"])
write("rank4.bin", [rank4])
tuple_bytes = b"\x10\x0d" + (b"\x22" + varint(len(rank4)) + rank4) * 100
write("tuple.bin", [tuple_bytes])
texts = [r["xla_str"] for r in records if r.get("reparse_str") is not None]
(out / "shapes.txt").write_text("".join(t + "\n" for t in texts))
invalid = [json.loads(line) for line in open(data / "invalid.jsonl")]
every = [r["xla_str"] for r in records] + [
    r["input"]["text"] for r in invalid if r["input"]["kind"] == "text" and r["status"] == "error"
]
(out / "shapes_all.txt").write_text("".join(t + "\n" for t in every))
print(
    f"inputs: {len(mixed)} ShapeProtos ({sum(map(len, mixed)) / len(mixed):.1f} B mean), "
    f"rank-4 {len(rank4)} B, tuple {len(tuple_bytes)} B, {len(texts)} shape strings "
    f"({len(every)} with the rest of the corpus and its errors)"
)
