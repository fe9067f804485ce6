"""Regenerates tests/data/oracle/interop_tf_types.json: the `DataType` enum
of TensorFlow 2.21's `tensorflow/core/framework/types.proto`, read from the
serialized FileDescriptorProto that tensorboard 2.21.0 vendors in
`tensorboard/compat/proto/types_pb2.py` (TensorFlow's wheels ship no .proto
text).

    pip download tensorboard==2.21.0 --no-deps -d /tmp/tb
    python3 -m zipfile -e /tmp/tb/tensorboard-2.21.0-py3-none-any.whl /tmp/tb/x
    python3 tests/data/oracle/interop_tf_types_gen.py \
        /tmp/tb/x/tensorboard/compat/proto/types_pb2.py

Only the standard library is used: the descriptor is decoded by hand
(FileDescriptorProto.enum_type = 5, EnumDescriptorProto.name = 1,
value = 2, EnumValueDescriptorProto.name = 1, number = 2).
"""

import ast
import json
import re
import sys


def varint(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        else:
            raise ValueError(f"wire type {w}")
        yield f, v


def main(path):
    src = open(path).read()
    data = ast.literal_eval(re.search(r"AddSerializedFile\((b'.*?')\)", src, re.S).group(1))
    out = {}
    for f, v in fields(data):
        if f != 5:
            continue
        name, values = None, []
        for g, u in fields(v):
            if g == 1:
                name = u.decode()
            elif g == 2:
                vals = dict(fields(u))
                values.append([vals[1].decode(), vals.get(2, 0)])
        out[name] = values
    with open("tests/data/oracle/interop_tf_types.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
