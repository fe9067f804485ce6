"""Regenerates tests/data/oracle/formats_json_any.jsonl: what Google's
protobuf runtime (Python 7.36.2, upb; the version of the XLA oracle's venv)
reads from JSON holding a `google.protobuf.Any`, in particular the empty
`Any` that `json_format.MessageToJson` writes as `{}`.

Run from the repository root with a Python that has protobuf 7.36.2, after
a build of the crate (its build script writes the descriptor set of
`proto/`):

    python tests/data/oracle/formats_json_any_gen.py \
        target/debug/build/xla-shape-*/out/xla_descriptor_set.bin

Each record is the message's full name, the JSON given to
`json_format.Parse`, and the bytes of the parsed message
(`SerializeToString`, hex) or the error.
"""

import json
import os
import sys

# The well-known types the schema imports, into the default pool.
from google.protobuf import any_pb2, duration_pb2, timestamp_pb2  # noqa: F401
from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf import message_factory

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    ("xla.PassMetrics", '{"customMetrics": {}}'),
    ("xla.PassMetrics", '{"customMetrics": { \n }}'),
    ("xla.PassMetrics", '{"custom_metrics": {}}'),
    ("xla.PassMetrics", '{"passName": "p", "customMetrics": {}, "moduleId": "3"}'),
    ("xla.PassMetrics", '{"customMetrics": null}'),
    ("xla.PassMetrics", '{"customMetrics": {"@type": ""}}'),
    ("xla.PassMetrics", '{"customMetrics": {"value": ""}}'),
    ("xla.PassMetrics", '{"customMetrics": {"x": 1}}'),
    ("xla.PassMetrics", '{"customMetrics": []}'),
    (
        "xla.PassMetrics",
        '{"customMetrics": {"@type": "type.googleapis.com/xla.PassMetrics",'
        ' "passName": "inner", "customMetrics": {}}}',
    ),
    ("xla.HloPassMetadata", '{"customMetadata": {}}'),
    (
        "xla.HloModuleMetadataProto",
        '{"passMetadata": [{"customMetadata": {}}, {"passId": "3", "customMetadata": {}}]}',
    ),
    ("google.protobuf.Any", "{}"),
    # An `Any` whose `@type` is not its first key: the keys are read in the
    # input's order, so of several bad keys the first is the one quoted.
    (
        "xla.HloPassMetadata",
        '{"customMetadata": {"minorToMajor": [1, 0], "@type":'
        ' "type.googleapis.com/xla.LayoutProto", "tiles": [{"dimensions": [2]}]}}',
    ),
    (
        "xla.HloPassMetadata",
        '{"customMetadata": {"zeta": 1, "alpha": 2, "@type":'
        ' "type.googleapis.com/xla.LayoutProto"}}',
    ),
    (
        "xla.HloPassMetadata",
        '{"customMetadata": {"alpha": 1, "zeta": 2, "@type":'
        ' "type.googleapis.com/xla.LayoutProto"}}',
    ),
    (
        "xla.HloPassMetadata",
        '{"customMetadata": {"minorToMajor": [1], "mid": 1, "@type":'
        ' "type.googleapis.com/xla.LayoutProto", "tiles": [], "last": 2}}',
    ),
    (
        "xla.HloPassMetadata",
        '{"customMetadata": {"customMetadata": {"b": 1, "a": 2, "@type":'
        ' "type.googleapis.com/xla.LayoutProto"}, "@type":'
        ' "type.googleapis.com/xla.HloPassMetadata"}}',
    ),
]


def main():
    fds = descriptor_pb2.FileDescriptorSet.FromString(open(sys.argv[1], "rb").read())
    pool = descriptor_pool.Default()
    for f in fds.file:
        if f.name.startswith("google/protobuf/"):
            continue  # already in the default pool
        pool.Add(f)
    records = []
    for name, text in CASES:
        message = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))()
        record = {"message": name, "json": text}
        try:
            json_format.Parse(text, message)
            record["hex"] = message.SerializeToString().hex()
        except json_format.ParseError as e:
            record["error"] = f"ParseError: {e}"
        records.append(record)
    with open(os.path.join(HERE, "formats_json_any.jsonl"), "w") as out:
        for r in records:
            out.write(json.dumps(r, sort_keys=True) + "\n")


main()
