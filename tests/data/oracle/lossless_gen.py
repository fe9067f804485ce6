"""Regenerates tests/data/oracle/lossless.jsonl: what Google's protobuf
runtime (Python 7.36.2, upb, the oracle's venv) makes of ShapeProto bytes
that XLA's validation rejects (every `proto` record of invalid.jsonl) and of
`100b2800` (field 5, `layout`, sent as a varint: kept as an unknown field).

Run with the oracle's venv, from the repository root:

    ~/.cache/xla-oracle-venv/bin/python tests/data/oracle/lossless_gen.py

Each line: `hex` (the input), `reencoded_hex` (`SerializeToString`),
`json`, `json_preserving_names` (`MessageToJson`),
`text_format` (`MessageToString`).
"""

import json
import os
import sys

sys.path.insert(0, os.path.expanduser("~/.cache/xla-oracle-venv/gen"))

from google.protobuf import json_format, text_format  # noqa: E402
from xla import xla_data_pb2  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)

inputs = []
with open(os.path.join(DATA, "invalid.jsonl")) as f:
    for line in f:
        r = json.loads(line)
        if r["input"].get("kind") == "proto":
            inputs.append(r["input"]["hex"])
inputs.append("100b2800")

with open(os.path.join(HERE, "lossless.jsonl"), "w") as out:
    for h in inputs:
        m = xla_data_pb2.ShapeProto.FromString(bytes.fromhex(h))
        rec = {
            "hex": h,
            "reencoded_hex": m.SerializeToString().hex(),
            "json": json_format.MessageToJson(m),
            "json_preserving_names": json_format.MessageToJson(
                m, preserving_proto_field_name=True
            ),
            "text_format": text_format.MessageToString(m),
        }
        out.write(json.dumps(rec, sort_keys=True) + "\n")
